import OneTap

/// Which one-tap tokens went to the paid exchange, in PostgreSQL: so a token is exchanged at most once
/// across every server instance. Make one with ``PostgresStores/exchangeLedger(retention:)`` and give it
/// to an ``ExchangeGuard``.
///
/// - One row per token in `<schema>.exchange_ledger`, keyed by the token's SHA-256 (`bytea`, never the
///   token): its state (`pending`, `answered` with the code, `unknown`, `failed`), when it was claimed
///   and settled, and when it is forgotten (its claim plus ``retention``).
/// - ``claim(_:at:)`` is one statement (`INSERT … ON CONFLICT (token) DO UPDATE … WHERE forgotten`), so
///   of any number of instances claiming one token at once exactly one gets nil and exchanges it.
/// - As ``InMemoryExchangeLedger`` does, a token claimed longer than ``retention`` ago is forgotten: a
///   claim takes it afresh, and ``PostgresStores/removeExpiredRows(before:)`` deletes its row. Reconcile
///   the ``unknownExchanges(since:)`` within that time.
/// - A database that is down fails the call with ``StoreError`` kind `io` (the guard then does
///   not exchange), a statement past the statement timeout with `timeout`. Errors never quote a digest.
package final class PostgresExchangeLedger: ExchangeLedger, CustomStringConvertible {
    /// How long a token is remembered after its claim.
    package let retention: Duration
    /// The schema holding the table.
    package var schema: String { pool.configuration.schema }

    private let pool: PostgresPool
    private let statements: Statements

    /// The statement texts, made once from the quoted schema name.
    private struct Statements: Sendable {
        let claim, state, settle, unknown: String

        init(_ schema: String) {
            let table = "\(schema).exchange_ledger"
            // Claimed (first column true) or, when not, the row as it stood when the statement began.
            // $2 the claim's instant as stored, $4 the bound a stored instant is compared with.
            claim = """
                WITH claimed AS (INSERT INTO \(table) AS entry (token, state, code, claimed_at_ms, settled_at_ms, forget_at_ms) \
                VALUES ($1, 'pending', NULL, $2, $2, $3) ON CONFLICT (token) DO UPDATE SET state = 'pending', code = NULL, \
                claimed_at_ms = EXCLUDED.claimed_at_ms, settled_at_ms = EXCLUDED.settled_at_ms, forget_at_ms = EXCLUDED.forget_at_ms \
                WHERE entry.forget_at_ms < $4 RETURNING 1) \
                SELECT EXISTS (SELECT 1 FROM claimed), entry.state, entry.code FROM (SELECT 1) AS one LEFT JOIN \(table) AS entry ON entry.token = $1
                """
            state = "SELECT false, state, code FROM \(table) WHERE token = $1"
            settle = """
                INSERT INTO \(table) (token, state, code, claimed_at_ms, settled_at_ms, forget_at_ms) VALUES ($1, $2, $3, $4, $4, $5) \
                ON CONFLICT (token) DO UPDATE SET state = EXCLUDED.state, code = EXCLUDED.code, settled_at_ms = EXCLUDED.settled_at_ms
                """
            unknown = "SELECT token, settled_at_ms FROM \(table) WHERE state = 'unknown' AND settled_at_ms >= $1 ORDER BY settled_at_ms, token"
        }
    }

    /// Creates a ledger over a pool whose schema is migrated.
    /// - Parameters:
    ///   - pool: The pool.
    ///   - retention: How long a token is remembered after its claim.
    package init(pool: PostgresPool, retention: Duration) {
        self.pool = pool
        self.retention = max(retention, .zero)
        statements = Statements(PostgresIdentifier.quoted(pool.configuration.schema))
    }

    /// `PostgresExchangeLedger(schema onetap, retention 86400.0 s, PostgresPool(…))`.
    package var description: String { "PostgresExchangeLedger(schema \(schema), retention \(retention.seconds) s, \(pool))" }

    /// Claims a token for an exchange, atomically across instances (``ExchangeLedger/claim(_:at:)``).
    /// - Parameters:
    ///   - token: The token's SHA-256.
    ///   - now: The time.
    /// - Returns: Nil when the token was never claimed, or its claim was forgotten (it is claimed now, as
    ///   `pending`), else what the ledger holds for it.
    /// - Throws: ``StoreError`` of kind `io`, `timeout` or `corrupt`; the token is then not
    ///   exchanged.
    package func claim(_ token: SHA256Digest, at now: Date) async throws -> ExchangeLedgerState? {
        let forget = now.addingTimeInterval(retention.seconds)
        do {
            let parameters: [PostgresValue] = [.bytes(token.bytes), .instant(now), .instant(forget), .bound(now)]
            var rows = try await pool.execute(statements.claim, parameters)
            // A claim that waited for another instance's insert of the same token cannot see that row in its
            // own snapshot; the next statement can (and a row removed meanwhile is claimed again).
            for _ in 0..<3 {
                guard let row = rows.first, row.count == 3 else { break }
                if row[0].bool == true { return nil }
                if !row[1].isNull { return try state(row) }
                rows = try await pool.execute(statements.state, [.bytes(token.bytes)])
                if rows.first == nil {
                    rows = try await pool.execute(statements.claim, parameters)
                }
            }
        } catch {
            throw failure(error, doing: "claim the token's exchange (it was not exchanged)")
        }
        throw StoreError(.io, message: "PostgreSQL: cannot claim the token's exchange: its row kept changing under the claim (it was not exchanged)")
    }

    /// Records how a claimed token's exchange ended (``ExchangeLedger/settle(_:_:at:)``).
    /// - Parameters:
    ///   - token: The token's SHA-256.
    ///   - state: How it ended.
    ///   - now: The time.
    /// - Throws: ``StoreError`` of kind `io` or `timeout`.
    package func settle(_ token: SHA256Digest, _ state: ExchangeLedgerState, at now: Date) async throws {
        let (name, code) = Self.columns(state)
        try await pool.execute(
            statements.settle,
            [.bytes(token.bytes), .text(name), code.map { .text($0.text) } ?? .null, .instant(now), .instant(now.addingTimeInterval(retention.seconds))]
        ) { failure($0, doing: "record how the token's exchange ended") }
    }

    /// The exchanges whose result is unknown, oldest first (``ExchangeLedger/unknownExchanges(since:)``).
    /// - Parameter since: The earliest time to list.
    /// - Returns: The tokens' digests and when they were given up on.
    /// - Throws: ``StoreError`` of kind `io`, `timeout` or `corrupt`.
    package func unknownExchanges(since: Date) async throws -> [(token: SHA256Digest, at: Date)] {
        let rows = try await pool.execute(statements.unknown, [.bound(since)]) { failure($0, doing: "list the unknown exchanges") }
        return try rows.rows.map { row throws(StoreError) in
            guard row.count == 2, let bytes = row[0].bytes, let at = row[1].instant,
                let digest = SHA256Digest(hex: Self.hex(bytes))
            else {
                throw StoreError(.corrupt, message: "a row of \(schema).exchange_ledger is not one OneTap wrote; it was left as it is")
            }
            return (digest, at)
        }
    }

    // MARK: Helpers

    private static let digits = Array("0123456789abcdef".utf8)

    /// Bytes as lowercase hexadecimal digits, for `SHA256Digest(hex:)`.
    private static func hex(_ bytes: [UInt8]) -> String {
        String(decoding: bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }, as: UTF8.self)
    }

    private static func columns(_ state: ExchangeLedgerState) -> (String, ResultCode?) {
        switch state {
        case .pending: ("pending", nil)
        case .answered(let code): ("answered", code)
        case .unknown: ("unknown", nil)
        case .failed: ("failed", nil)
        }
    }

    private func state(_ row: [PostgresValue]) throws(StoreError) -> ExchangeLedgerState {
        switch (row[1].text, row[2].text) {
        case ("pending"?, nil): return .pending
        case ("unknown"?, nil): return .unknown
        case ("failed"?, nil): return .failed
        case ("answered"?, let text?):
            if let code = try? ResultCode(text) { return .answered(code) }
        default: break
        }
        throw StoreError(.corrupt, message: "a row of \(schema).exchange_ledger holds a state OneTap does not write; it was left as it is")
    }

    /// The ledger error for a database failure.
    private func failure(_ error: any Error, doing: String) -> any Error {
        if error is CancellationError || error is StoreError { return error }
        let timedOut = (error as? PostgresError)?.kind == .timeout
        return StoreError(timedOut ? .timeout : .io, message: "PostgreSQL: cannot \(doing): \(error)")
    }
}
