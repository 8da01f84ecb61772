import Foundation
import OneTap
import OneTapPostgres

/// `onetap db reconcile`: the exchanges of a schema's exchange ledger to reconcile with the carrier's bill
/// (``ExchangeLedger/unknownExchanges(since:pendingClaimedBefore:after:limit:)``), written a page at a time as it
/// reads them. A listing is no single snapshot: an exchange settled while it runs (a pending one given up on, now
/// unknown) may be listed twice, under its claim and its settle; its token tells. It changes
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

    /// Writes the listing as it reads it, a page of ``ExchangeLedger/reconciliationPageSize`` entries at a time, so a
    /// ledger of any size is listed in bounded memory: a header and one line per exchange (token SHA-256, state,
    /// claimed at, session, sends), or one line saying there is none; with `json`, one JSON object per exchange, a line
    /// each (NDJSON, as every `--json` of `onetap`), and no line when there is none. Every line is short, so `onetap`,
    /// which passes its tool's output on a line at a time, holds one exchange at most (a single JSON document held the
    /// whole listing on one line). A failure part-way leaves what was written (the command then exits non-zero).
    /// - Parameters:
    ///   - stores: The stores of the schema.
    ///   - olderThan: List the pending exchanges claimed at least this many seconds before `now`.
    ///   - json: Whether to write JSON.
    ///   - now: The time.
    ///   - write: Takes each piece of text, line breaks included.
    /// - Throws: ``NotCurrent``, or what the database throws.
    static func write(_ stores: PostgresStores, olderThan: Int64, json: Bool, now: Date, to write: (String) -> Void) async throws {
        // The schema is a validated identifier (lowercase letters, digits, _): quoted as it is.
        let schema = stores.configuration.schema
        let newest = PostgresMigrations.all.last?.version ?? 0
        let rows = try await stores.pool.execute("SELECT max(version) FROM \"\(schema)\".schema_migrations")
        let version = rows.first?.first?.int64
        guard version == Int64(newest) else { throw NotCurrent(schema: schema, version: version, newest: newest) }
        let ledger = stores.exchangeLedger()
        let bound = now.addingTimeInterval(-Double(olderThan))
        let size = PostgresExchangeLedger.reconciliationPageSize
        var last: ExchangeLedgerEntry?
        var listed = 0
        while true {
            let page = try await ledger.unknownExchanges(since: .distantPast, pendingClaimedBefore: bound, after: last, limit: size)
            if json {
                write(page.map { object($0, schema: schema, olderThan: olderThan) + "\n" }.joined())
            } else {
                if listed == 0, !page.isEmpty { write(header + "\n") }
                write(page.map { line($0) + "\n" }.joined())
            }
            listed += page.count
            last = page.last
            if page.count < size { break }
        }
        if !json, listed == 0 {
            write("no exchanges to reconcile in schema \(schema) (unknown, or pending for \(olderThan) s or more)\n")
        }
    }

    /// The text listing's header.
    static let header = ["token-sha256".padding(toLength: 64, withPad: " ", startingAt: 0), "state  ", "claimed-at".padding(toLength: 24, withPad: " ", startingAt: 0),
                         "session               ", "sends"].joined(separator: "  ")

    /// One exchange's line of the text listing.
    static func line(_ entry: ExchangeLedgerEntry) -> String {
        [entry.token.hex, entry.state.name, entry.claimedAt.iso8601, (entry.session?.text ?? "-").padding(toLength: 22, withPad: " ", startingAt: 0),
         String(entry.sends)].joined(separator: "  ")
    }

    /// One exchange of the JSON listing, on a line of its own: `{"schema":"onetap","olderThanSeconds":60,"token":…,
    /// "state":…,"claimedAt":…,"settledAt":…,"session":…,"sends":1}` (`session` absent for a token settled without a
    /// claim).
    /// - Parameters:
    ///   - entry: The exchange.
    ///   - schema: The schema listed.
    ///   - olderThan: The listing's `--older-than`, in seconds.
    /// - Returns: The JSON object, without a line break.
    static func object(_ entry: ExchangeLedgerEntry, schema: String, olderThan: Int64) -> String {
        var writer = JSONWriter(capacity: 320)
        writer.object { writer in
            writer.member("schema", schema)
            writer.member("olderThanSeconds", olderThan)
            writer.member("token", entry.token.hex)
            writer.member("state", entry.state.name)
            writer.member("claimedAt", entry.claimedAt.iso8601)
            writer.member("settledAt", entry.settledAt.iso8601)
            writer.member("session", entry.session?.text)
            writer.member("sends", entry.sends)
        }
        return writer.text
    }
}
