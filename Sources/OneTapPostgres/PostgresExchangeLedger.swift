import OneTap

/// Which one-tap tokens went to the paid exchange, for which login session, and what it answered, in
/// PostgreSQL: so a token is exchanged at most once across every server instance, and a retry of the
/// same login gets the answer. Make one with ``PostgresStores/exchangeLedger(retention:)`` and give it to
/// an ``ExchangeGuard``.
///
/// - One row per token in `<schema>.exchange_ledger`, keyed by the token's SHA-256 (`bytea`, never the
///   token): its state (`pending`, `answered` with the code, `unknown`, `failed`), the login session that
///   claimed it, how many times it was sent, when it was claimed and settled, when it is forgotten (its
///   claim plus ``retention``), and for an answered exchange the verified number and account (migration
///   10), for an answered number verification its verdict (migration 14; never the number). The number is the
///   user's: it is kept only as long as the row, and goes with it.
/// - ``claim(_:for:at:)`` is one statement (`INSERT … ON CONFLICT (token) DO UPDATE … WHERE forgotten`), so
///   of any number of instances claiming one token at once exactly one gets nil and exchanges it;
///   ``resend(_:for:at:)`` is one `UPDATE … WHERE state = 'unknown' AND session = … AND sends < 2`, so of
///   any number of resends one claims it again.
/// - As ``InMemoryExchangeLedger`` does, a token claimed longer than ``retention`` ago is forgotten: a
///   claim takes it afresh, and ``PostgresStores/removeExpiredRows(before:)`` deletes its row. Reconcile
///   the ``unknownExchanges(since:pendingClaimedBefore:after:limit:)`` within that time (`onetap db reconcile`).
/// - A database that is down fails the call with ``StoreError`` kind `io` (the guard then does
///   not exchange), a statement past the statement timeout with `timeout`. Errors never quote a digest.
package final class PostgresExchangeLedger: ExchangeLedger, CustomStringConvertible {
    /// How long a token is remembered after its claim.
    package let retention: Duration
    /// The schema holding the table.
    package var schema: String { pool.configuration.schema }

    let pool: PostgresPool
    private let statements: Statements

    /// The statement texts, made once from the quoted schema name.
    struct Statements: Sendable {
        let table, claim, state, resend, settle, unknown: String
        static let columns =
            "entry.state, entry.code, entry.phone_number, entry.account, entry.session, entry.claimed_at_ms, entry.settled_at_ms, entry.sends, entry.verdict"

        init(_ schema: String) {
            table = "\(schema).exchange_ledger"
            let columns = Self.columns
            claim = "WITH claimed AS (\(Self.claim(table, from: 1, gate: nil))) SELECT \(Self.claimAnswer(table, from: 1, inserted: "claimed"))"
            state = "SELECT false, \(columns) FROM \(table) AS entry WHERE token = $1"
            // $3 the resend's instant, $4 the bound for "not forgotten", $5 the new forget time.
            resend = """
                UPDATE \(table) SET state = 'pending', code = NULL, phone_number = NULL, account = NULL, verdict = NULL, sends = sends + 1, claimed_at_ms = $3, \
                settled_at_ms = $3, forget_at_ms = $5 WHERE token = $1 AND state = 'unknown' AND session = $2 AND sends < 2 AND forget_at_ms >= $4 RETURNING 1
                """
            settle = Self.settle(table, from: 1, gate: nil)
            // A page: the first $5 of the unknown exchanges (by settle) and of the pending ones (by claim) past the last
            // page's (time, token), $3 and $4 (the smallest values when none, which every row is past), each read along
            // its partial index (`exchange_ledger_unknown`, `exchange_ledger_pending`) from the cursor on, merged. A
            // page reads what it lists, never the rows listed before it.
            let unknownPart = Self.page(table, state: "unknown", time: "settled_at_ms", bound: "entry.settled_at_ms >= $1")
            let pendingPart = Self.page(table, state: "pending", time: "claimed_at_ms", bound: "entry.claimed_at_ms < $2")
            unknown = "SELECT page.* FROM (\(unknownPart) UNION ALL \(pendingPart)) AS page ORDER BY page.at, page.token LIMIT $5"
        }

        /// One state's part of a page of the exchanges to reconcile: its rows past the cursor ($3, $4) in the order of
        /// its time, at most $5, each with that time last (`at`).
        static func page(_ table: String, state: String, time: String, bound: String) -> String {
            """
            (SELECT entry.token, \(columns), entry.\(time) AS at FROM \(table) AS entry WHERE entry.state = '\(state)' AND \(bound) \
            AND entry.\(time) >= $3 AND (entry.\(time), entry.token) > ($3, $4) ORDER BY entry.\(time), entry.token LIMIT $5)
            """
        }

        /// The claim's insert, its values numbered from `first`: the token, the claim's instant as stored, the
        /// forget time, the bound a stored instant is compared with, the session; only when `gate` holds
        /// (nil: always).
        static func claim(_ table: String, from first: Int, gate: String?) -> String {
            let p = { (n: Int) in "$\(first + n - 1)" }
            let values = "\(p(1)), 'pending', NULL, NULL, NULL, \(p(5)), 1, \(p(2)), \(p(2)), \(p(3))"
            return """
                INSERT INTO \(table) AS entry (token, state, code, phone_number, account, session, sends, claimed_at_ms, settled_at_ms, forget_at_ms) \
                \(gate.map { "SELECT \(values) WHERE \($0)" } ?? "VALUES (\(values))") ON CONFLICT (token) DO UPDATE SET state = 'pending', code = NULL, \
                phone_number = NULL, account = NULL, verdict = NULL, session = EXCLUDED.session, sends = 1, claimed_at_ms = EXCLUDED.claimed_at_ms, \
                settled_at_ms = EXCLUDED.settled_at_ms, forget_at_ms = EXCLUDED.forget_at_ms WHERE entry.forget_at_ms < \(p(4)) RETURNING 1
                """
        }

        /// The claim's answer (after `SELECT`): claimed (the first column true) or, when not, the row as it
        /// stood when the statement began; `inserted` names the claim's `WITH` query.
        static func claimAnswer(_ table: String, from first: Int, inserted: String) -> String {
            "EXISTS (SELECT 1 FROM \(inserted)), \(columns) FROM (SELECT 1) AS one LEFT JOIN \(table) AS entry ON entry.token = $\(first)"
        }

        /// The settle's upsert, its values numbered from `first`: the token, the state, the code, the instant, the
        /// forget time, the number, the account, the verdict; only when `gate` holds (nil: always).
        static func settle(_ table: String, from first: Int, gate: String?) -> String {
            let p = { (n: Int) in "$\(first + n - 1)" }
            let values = "\(p(1)), \(p(2)), \(p(3)), \(p(6)), \(p(7)), \(p(8)), NULL, 1, \(p(4)), \(p(4)), \(p(5))"
            return """
                INSERT INTO \(table) (token, state, code, phone_number, account, verdict, session, sends, claimed_at_ms, settled_at_ms, forget_at_ms) \
                \(gate.map { "SELECT \(values) WHERE \($0)" } ?? "VALUES (\(values))") ON CONFLICT (token) DO UPDATE SET state = EXCLUDED.state, \
                code = EXCLUDED.code, phone_number = EXCLUDED.phone_number, account = EXCLUDED.account, verdict = EXCLUDED.verdict, \
                settled_at_ms = EXCLUDED.settled_at_ms
                """
        }
    }

    /// The ledger's claim as another statement's `WITH` query named `alongside` (``PostgresLoginSessionLedgerWrites``).
    /// - Parameters:
    ///   - first: The number of its first value.
    ///   - gate: The condition it is made under.
    /// - Returns: The insert.
    func claimStatement(from first: Int, gate: String) -> String {
        Statements.claim(statements.table, from: first, gate: gate)
    }

    /// The columns (with their `FROM`) that ``claim(_:for:at:answered:)`` reads of a statement holding
    /// ``claimStatement(from:gate:)`` as its `WITH` query `alongside`.
    /// - Parameter first: The number of the claim's first value.
    /// - Returns: The columns.
    func claimAnswer(from first: Int) -> String {
        Statements.claimAnswer(statements.table, from: first, inserted: "alongside")
    }

    /// The ledger's settle as another statement's `WITH` query (``PostgresLoginSessionLedgerWrites``).
    /// - Parameters:
    ///   - first: The number of its first value.
    ///   - gate: The condition it is made under.
    /// - Returns: The upsert.
    func settleStatement(from first: Int, gate: String) -> String {
        Statements.settle(statements.table, from: first, gate: gate)
    }

    /// The shortest retention ``PostgresStores/exchangeLedger(retention:)`` gives a ledger: an hour, past every one-tap
    /// token's life and a login's.
    package static let minimumRetention: Duration = .seconds(3600)

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

    /// Claims a token for a session's exchange, atomically across instances (``ExchangeLedger/claim(_:for:at:)``).
    /// - Parameters:
    ///   - token: The token's SHA-256.
    ///   - session: The login session the token came with.
    ///   - now: The time.
    /// - Returns: Nil when the token was never claimed, or its claim was forgotten (it is claimed now, as
    ///   `pending`), else what the ledger holds for it.
    /// - Throws: ``StoreError`` of kind `io`, `timeout` or `corrupt`; the token is then not
    ///   exchanged.
    package func claim(_ token: SHA256Digest, for session: LoginSessionID, at now: Date) async throws -> ExchangeLedgerEntry? {
        try await claim(token, for: session, at: now, answered: nil)
    }

    /// The values of a claim's statement (``claimStatement(from:gate:)`` numbers them).
    func claimParameters(_ token: SHA256Digest, for session: LoginSessionID, at now: Date) -> [PostgresValue] {
        [.bytes(token.bytes), .instant(now), .instant(now.addingTimeInterval(retention.seconds)), .bound(now), .text(session.text)]
    }

    /// A claim, from the answer of its statement when another statement sent it (``claimStatement(from:gate:)``),
    /// else sending it now.
    func claim(_ token: SHA256Digest, for session: LoginSessionID, at now: Date, answered: [PostgresValue]?) async throws -> ExchangeLedgerEntry? {
        do {
            let parameters = claimParameters(token, for: session, at: now)
            var rows: PostgresRows
            if let answered {
                rows = PostgresRows(columns: [], rows: [answered], affected: 1)
            } else {
                rows = try await pool.execute(statements.claim, parameters)
            }
            // A claim that waited for another instance's insert of the same token cannot see that row in its
            // own snapshot; the next statement can (and a row removed meanwhile is claimed again).
            for _ in 0..<3 {
                guard let row = rows.first, row.count == 10 else { break }
                if row[0].bool == true { return nil }
                if !row[1].isNull { return try entry(token, row, from: 1) }
                do {
                    rows = try await pool.execute(statements.state, [.bytes(token.bytes)])
                } catch {
                    throw Self.failure(error, doing: "read the token's exchange (it was not exchanged)", write: false)   // a read: no write to doubt
                }
                if rows.first == nil {
                    rows = try await pool.execute(statements.claim, parameters)
                }
            }
        } catch {
            throw Self.failure(error, doing: "claim the token's exchange (it was not exchanged)", write: true)
        }
        throw StoreError(.io, message: "PostgreSQL: cannot claim the token's exchange: its row kept changing under the claim (it was not exchanged)")
    }

    /// Claims an unknown exchange again for the session that claimed it, once (``ExchangeLedger/resend(_:for:at:)``).
    /// - Parameters:
    ///   - token: The token's SHA-256.
    ///   - session: The login session asking.
    ///   - now: The time.
    /// - Returns: True when this call claimed it again.
    /// - Throws: ``StoreError`` of kind `io` or `timeout`; the token is then not sent.
    package func resend(_ token: SHA256Digest, for session: LoginSessionID, at now: Date) async throws -> Bool {
        let rows = try await pool.execute(
            statements.resend,
            [.bytes(token.bytes), .text(session.text), .instant(now), .bound(now), .instant(now.addingTimeInterval(retention.seconds))]
        ) { Self.failure($0, doing: "claim the token's unknown exchange again (it was not sent)", write: true) }
        return !rows.rows.isEmpty
    }

    /// Records how a claimed token's exchange ended (``ExchangeLedger/settle(_:_:at:)``).
    /// - Parameters:
    ///   - token: The token's SHA-256.
    ///   - state: How it ended.
    ///   - now: The time.
    /// - Throws: ``StoreError`` of kind `io` or `timeout`.
    package func settle(_ token: SHA256Digest, _ state: ExchangeLedgerState, at now: Date) async throws {
        try await pool.execute(statements.settle, settleParameters(token, state, at: now)) { Self.failure($0, doing: "record how the token's exchange ended", write: true) }
    }

    /// The values of a settle's statement (``settleStatement(from:gate:)`` numbers them).
    func settleParameters(_ token: SHA256Digest, _ state: ExchangeLedgerState, at now: Date) -> [PostgresValue] {
        var response: ExchangeResponse? = nil
        if case .answered(let answer) = state { response = answer }
        return [
            .bytes(token.bytes), .text(state.name), response.map { .text($0.code.text) } ?? .null, .instant(now),
            .instant(now.addingTimeInterval(retention.seconds)), response?.phoneNumber.map { .text($0.digits) } ?? .null,
            response?.account.map { .text($0.rawValue) } ?? .null, response?.verdict.map { .text($0.rawValue) } ?? .null,
        ]
    }

    /// The exchanges to reconcile, oldest first, a page at a time
    /// (``ExchangeLedger/unknownExchanges(since:pendingClaimedBefore:after:limit:)``): one statement, the unknown and the
    /// pending exchanges each read along its partial index from the cursor on, `LIMIT` the page, merged.
    /// - Parameters:
    ///   - since: The earliest time to list an unknown exchange by.
    ///   - pendingClaimedBefore: List the pending exchanges claimed before this time.
    ///   - after: The last entry of the page before; nil for the first.
    ///   - limit: The most entries to list.
    /// - Returns: Their entries.
    /// - Throws: ``StoreError`` of kind `io`, `timeout` or `corrupt`.
    package func unknownExchanges(since: Date, pendingClaimedBefore: Date, after: ExchangeLedgerEntry?, limit: Int) async throws -> [ExchangeLedgerEntry] {
        guard limit > 0 else { return [] }
        let cursor: [PostgresValue] = after.map { [.instant($0.at), .bytes($0.token.bytes)] } ?? [.int64(.min), .bytes([])]
        let rows = try await pool.execute(statements.unknown, [.bound(since), .bound(pendingClaimedBefore)] + cursor + [.int64(Int64(limit))]) {
            Self.failure($0, doing: "list the exchanges to reconcile", write: false)
        }
        return try rows.rows.map { row throws(StoreError) in
            guard row.count == 11, let bytes = row[0].bytes, bytes.count == 32 else { throw corrupt("its token is not a SHA-256") }
            return try entry(SHA256Digest(bytes: bytes), row, from: 1)
        }
    }

    // MARK: Helpers

    /// The entry a row's columns from `first` hold: state, code, number, account, session, claimed, settled, sends,
    /// verdict.
    private func entry(_ token: SHA256Digest, _ row: [PostgresValue], from first: Int) throws(StoreError) -> ExchangeLedgerEntry {
        let state: ExchangeLedgerState
        switch (row[first].text, row[first + 1].text) {
        case ("pending"?, nil): state = .pending
        case ("unknown"?, nil): state = .unknown
        case ("failed"?, nil): state = .failed
        case ("answered"?, let text?):
            guard let code = try? ResultCode(text) else { throw corrupt("its code is not a result code") }
            let number = try row[first + 2].text.map { (digits) throws(StoreError) in
                guard let number = try? PhoneNumber(digits) else { throw corrupt("its number is not a phone number") }
                return number
            }
            let account = try row[first + 3].text.map { (text) throws(StoreError) in
                guard let account = try? AccountID(text) else { throw corrupt("its account is not an account id") }
                return account
            }
            let verdict = try row[first + 8].text.map { (text) throws(StoreError) in
                guard let verdict = NumberVerdict(rawValue: text) else { throw corrupt("its verdict is not pass, reject or unknown") }
                return verdict
            }
            state = .answered(ExchangeResponse(code: code, phoneNumber: number, account: account, verdict: verdict))
        default:
            throw corrupt("it holds a state OneTap does not write")
        }
        let session = try row[first + 4].text.map { (text) throws(StoreError) in
            guard let id = try? LoginSessionID(text) else { throw corrupt("its session is not a login session id") }
            return id
        }
        guard let claimed = row[first + 5].instant, let settled = row[first + 6].instant, let sends = row[first + 7].int64 else {
            throw corrupt("it lacks its times or its count of sends")
        }
        return ExchangeLedgerEntry(token: token, state: state, session: session, claimedAt: claimed, settledAt: settled, sends: Int(sends))
    }

    private func corrupt(_ reason: String) -> StoreError {
        StoreError(.corrupt, message: "a row of \(schema).exchange_ledger is not one OneTap wrote (\(reason)); it was left as it is")
    }

    /// The ledger error for a database failure: a write whose answer never came (the connection broke, or the client's
    /// deadline passed with the statement sent) or could not be read says that it may or may not have been recorded; a
    /// read of a row holding a value OneTap does not read is `corrupt`.
    /// - Parameters:
    ///   - error: What the database call threw.
    ///   - doing: What was being done.
    ///   - write: Whether the statement writes.
    /// - Returns: The error to throw.
    static func failure(_ error: any Error, doing: String, write: Bool) -> any Error {
        if error is CancellationError || error is StoreError { return error }
        let unreadable = PostgresStoreFailure.unreadableRow(error, "PostgreSQL: cannot \(doing): \(error)")
        if let unreadable, !write { return StoreError(.corrupt, message: unreadable) }
        let timedOut = (error as? PostgresError)?.kind == .timeout
        // A write's answer that cannot be read: the statement ran.
        let unknown = write && (unreadable != nil || ((error as? PostgresError)?.leavesTheOutcomeUnknown ?? false))
        return StoreError(timedOut ? .timeout : .io, message: "PostgreSQL: cannot \(doing): \(error)\(unknown ? "; the ledger's write may or may not have been recorded" : "")")
    }
}
