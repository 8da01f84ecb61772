import Foundation
import OneTap
import OneTapPostgres

/// `onetap db reconcile`: the exchanges of a schema's exchange ledger to reconcile with the carrier's bill
/// (``ExchangeLedger/unknownExchanges(since:pendingClaimedBefore:)``), as lines to print. It changes
/// nothing, and refuses a schema older than this OneTap (its ledger lacks the sessions: migrate first).
enum Reconciliation {
    /// Thrown for a schema whose version is not this OneTap's newest.
    struct NotCurrent: Error, CustomStringConvertible {
        let schema: String
        let version: Int64?
        let newest: Int

        var description: String {
            // A newer OneTap's schema cannot be migrated back (migrate refuses it): the fix is this tool's upgrade.
            let fix = (version ?? 0) > Int64(newest) ? "upgrade onetap to the version that migrated it" : "run 'onetap db migrate' first"
            return "schema \(schema) is at version \(version.map(String.init) ?? "none"), this OneTap's is \(newest): \(fix)"
        }
    }

    /// The listing's lines: a header and one line per exchange (token SHA-256, state, claimed at, session,
    /// sends), or one line saying there is none; with `json`, one JSON object.
    /// - Parameters:
    ///   - stores: The stores of the schema.
    ///   - olderThan: List the pending exchanges claimed at least this many seconds before `now`.
    ///   - json: Whether to write JSON.
    ///   - now: The time.
    /// - Returns: The lines, without line breaks.
    /// - Throws: ``NotCurrent``, or what the database throws.
    static func lines(_ stores: PostgresStores, olderThan: Int64, json: Bool, now: Date) async throws -> [String] {
        // The schema is a validated identifier (lowercase letters, digits, _): quoted as it is.
        let schema = stores.configuration.schema
        let newest = PostgresMigrations.all.last?.version ?? 0
        let rows = try await stores.pool.execute("SELECT max(version) FROM \"\(schema)\".schema_migrations")
        let version = rows.first?.first?.int64
        guard version == Int64(newest) else { throw NotCurrent(schema: schema, version: version, newest: newest) }
        let entries = try await stores.exchangeLedger().unknownExchanges(
            since: .distantPast, pendingClaimedBefore: now.addingTimeInterval(-Double(olderThan)))
        if json { return [Self.json(entries, schema: schema, olderThan: olderThan)] }
        guard !entries.isEmpty else {
            return ["no exchanges to reconcile in schema \(schema) (unknown, or pending for \(olderThan) s or more)"]
        }
        let header = ["token-sha256".padding(toLength: 64, withPad: " ", startingAt: 0), "state  ", "claimed-at".padding(toLength: 24, withPad: " ", startingAt: 0),
                      "session               ", "sends"]
        return [header.joined(separator: "  ")] + entries.map { entry in
            [entry.token.hex, entry.state.name, entry.claimedAt.iso8601, (entry.session?.text ?? "-").padding(toLength: 22, withPad: " ", startingAt: 0),
             String(entry.sends)].joined(separator: "  ")
        }
    }

    /// `{"schema":"onetap","olderThanSeconds":60,"exchanges":[{"token":…,"state":…,"claimedAt":…,"settledAt":…,"session":…,"sends":1}]}`
    /// (`session` absent for a token settled without a claim).
    static func json(_ entries: [ExchangeLedgerEntry], schema: String, olderThan: Int64) -> String {
        var writer = JSONWriter(capacity: 128 + 256 * entries.count)
        writer.object { writer in
            writer.member("schema", schema)
            writer.member("olderThanSeconds", olderThan)
            writer.member("exchanges", objects: entries) { writer, entry in
                writer.member("token", entry.token.hex)
                writer.member("state", entry.state.name)
                writer.member("claimedAt", entry.claimedAt.iso8601)
                writer.member("settledAt", entry.settledAt.iso8601)
                writer.member("session", entry.session?.text)
                writer.member("sends", entry.sends)
            }
        }
        return writer.text
    }
}
