import OneTap

/// A token store in PostgreSQL, for many server instances sharing one database. Make one with
/// ``PostgresStores/tokenStore(leaseDuration:lockTimeout:)``.
///
/// - One row per account in `<schema>.tokens`; the account id is `text COLLATE "C"`, so ids compare
///   by their bytes (composed and decomposed `café` are two accounts), and the tokens are `bytea`. A
///   token whose record would exceed ``TokenRecordLimit/bytes`` is refused at save (`too-large`).
/// - With a ``PostgresTokenKeyring``, each token is sealed with AES-256-GCM (`nonce ‖ ciphertext ‖ tag`)
///   and the row's `key_id` names the key (migration 12); a row without `key_id` (written unsealed, before
///   migration 12 or without a keyring) is read as it is and sealed at its next save, or at once by
///   ``PostgresStores/sealStoredTokens(keyring:batch:)``. A sealed row read
///   without a keyring, or with a keyring missing its key, fails with `corrupt` naming the key id.
/// - Compare-and-swap on the `version` column, in one statement (`UPDATE … WHERE version = $2` or
///   `INSERT … ON CONFLICT DO NOTHING`); new versions come from the `token_versions` sequence, so an
///   account never gets back a version it had, even after a removal, from any instance.
/// - ``accounts(dueBefore:limit:)`` reads the `(due_at_ms, account)` index, soonest first.
/// - ``withRefreshLock(for:_:)`` holds a **lease row** in `<schema>.refresh_leases`, so that one
///   account is refreshed once across every instance. See there for its clock and its expiry.
/// - Every value is a bound parameter; only the validated, quoted schema name is part of the statement
///   text. Errors never quote a token: the server's `DETAIL` is dropped and the token's values are
///   redacted from whatever is left.
/// - A database that is down or unreachable fails the call with `io`; the stored token is unchanged.
///   When the connection breaks while a write is on its way, the write may or may not have been
///   committed, but the stored token is always whole: the previous one or the new one.
package final class PostgresTokenStore: TokenStore, CustomStringConvertible {
    /// How long a refresh lease lasts without renewal: an instance that crashed mid-refresh blocks the
    /// account's refresh elsewhere for at most this long.
    package let leaseDuration: Duration
    /// How long a refresh waits for another instance's lease before it fails without running (one
    /// refresh at a time).
    package let lockTimeout: Duration
    /// The schema holding the tables.
    package var schema: String { pool.configuration.schema }

    let pool: PostgresPool
    let clock: any WallClock
    /// Told the account when a renewal finds that another instance holds the lease now.
    let leaseLost: @Sendable (AccountID) -> Void
    /// The keys that seal the tokens, or nil to store them unsealed (as before migration 12).
    let keyring: PostgresTokenKeyring?
    let statements: Statements
    /// How often a waiting refresh asks for the lease again.
    let pollInterval = Duration.milliseconds(20)

    /// The statement texts, made once from the quoted schema name.
    struct Statements: Sendable {
        let load, insert, update, version, remove, removeVersion, due: String
        let takeLease, renewLease, releaseLease: String

        init(_ schema: String) {
            let tokens = "\(schema).tokens"
            let leases = "\(schema).refresh_leases"
            let nextVersion = "pg_catalog.nextval('\(schema).token_versions')"
            load = "SELECT version, flow, access_token, refresh_token, issued_at_ms, expires_at_ms, key_id FROM \(tokens) WHERE account = $1"
            insert = """
                INSERT INTO \(tokens) (account, version, flow, access_token, refresh_token, issued_at_ms, expires_at_ms, due_at_ms, key_id) \
                VALUES ($1, \(nextVersion), $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (account) DO NOTHING RETURNING version
                """
            update = """
                UPDATE \(tokens) SET version = \(nextVersion), flow = $3, access_token = $4, refresh_token = $5, issued_at_ms = $6, \
                expires_at_ms = $7, due_at_ms = $8, key_id = $9 WHERE account = $1 AND version = $2 RETURNING version
                """
            version = "SELECT version FROM \(tokens) WHERE account = $1"
            remove = "DELETE FROM \(tokens) WHERE account = $1 RETURNING version"
            removeVersion = "DELETE FROM \(tokens) WHERE account = $1 AND version = $2 RETURNING version"
            // Keyset paging over the `(due_at_ms, account)` index: a page starts after the last row of the one before.
            due = """
                SELECT due_at_ms, account FROM \(tokens) WHERE due_at_ms < $1 AND (due_at_ms, account) > ($3, $4) \
                ORDER BY due_at_ms, account LIMIT $2
                """
            let now = PostgresMigrations.databaseNow
            takeLease = """
                INSERT INTO \(leases) AS lease (account, holder, expires_at_ms) VALUES ($1, $2, \(now) + $3) \
                ON CONFLICT (account) DO UPDATE SET holder = EXCLUDED.holder, expires_at_ms = EXCLUDED.expires_at_ms \
                WHERE lease.expires_at_ms <= \(now) RETURNING lease.holder
                """
            renewLease = "UPDATE \(leases) SET expires_at_ms = \(now) + $3 WHERE account = $1 AND holder = $2"
            releaseLease = "DELETE FROM \(leases) WHERE account = $1 AND holder = $2"
        }
    }

    /// Creates a store over a pool whose schema is migrated.
    /// - Parameters:
    ///   - pool: The pool.
    ///   - clock: Paces the wait for another instance's lease and the renewals.
    ///   - leaseDuration: A lease's length, at least 100 ms.
    ///   - lockTimeout: The longest wait for another instance's lease.
    ///   - keyring: The keys that seal the tokens written; nil to write them unsealed.
    ///   - leaseLost: Told the account when a renewal finds that another instance holds the lease now.
    package init(
        pool: PostgresPool, clock: any WallClock, leaseDuration: Duration, lockTimeout: Duration, keyring: PostgresTokenKeyring? = nil,
        leaseLost: @escaping @Sendable (AccountID) -> Void = { _ in }
    ) {
        self.pool = pool
        self.leaseLost = leaseLost
        self.keyring = keyring
        self.clock = clock
        self.leaseDuration = max(leaseDuration, .milliseconds(100))
        self.lockTimeout = max(lockTimeout, .zero)
        statements = Statements(PostgresIdentifier.quoted(pool.configuration.schema))
    }

    /// `PostgresTokenStore(schema onetap, lease 60.0 s, lock timeout 30.0 s, sealed with key k1, PostgresPool(…))`.
    package var description: String {
        let sealing = keyring.map { "sealed with key \($0.currentKeyID)" } ?? "unsealed"
        return "PostgresTokenStore(schema \(schema), lease \(leaseDuration.seconds) s, lock timeout \(lockTimeout.seconds) s, \(sealing), \(pool))"
    }

    // MARK: Reading

    /// Reads an account's token (``TokenStore/load(_:)``).
    /// - Parameter account: The account.
    /// - Returns: The token and its version, or nil.
    /// - Throws: ``StoreError`` of kind `io` (the database failed or is unreachable) or `corrupt`
    ///   (the row is not a token OneTap wrote; it is left as it is).
    package func load(_ account: AccountID) async throws -> StoredToken? {
        let rows = try await pool.execute(statements.load, [.text(account.rawValue)]) { Self.failure($0, account: account, doing: "read the token") }
        guard let row = rows.first else { return nil }
        return try decode(row, account: account)
    }

    private func decode(_ row: [PostgresValue], account: AccountID) throws(StoreError) -> StoredToken {
        func corrupt(_ reason: String) -> StoreError {
            StoreError(.corrupt, account: account, message: "the row in \(schema).tokens is not a OneTap token (\(reason)); it was left as it is")
        }
        guard row.count == 7, let version = row[0].int64, version >= 1 else { throw corrupt("no positive version") }
        guard let flowName = row[1].text, let flow = LoginFlow(rawValue: flowName) else {
            throw corrupt("unknown flow \(QuotedInput(row[1].text ?? "NULL"))")
        }
        var keyID: String? = nil
        if !row[6].isNull {
            guard let id = row[6].text else { throw corrupt("the key id is not text") }
            guard keyring != nil else {
                throw StoreError(
                    .corrupt, account: account,
                    message: "the row in \(schema).tokens is sealed with token key \(QuotedInput(id)), but this store has no keyring; give PostgresStores.tokenStore(keyring:) the keys; the row was left as it is")
            }
            keyID = id
        }
        func reveal(_ stored: [UInt8], _ field: PostgresTokenKeyring.Field) throws(StoreError) -> [UInt8] {
            guard let keyID, let keyring else { return stored }
            return try keyring.open(stored, keyID: keyID, field: field, account: account, table: "\(schema).tokens")
        }
        guard let accessStored = row[2].bytes else { throw corrupt("no access token") }
        guard let access = String(validating: try reveal(accessStored, .access), as: UTF8.self) else {
            throw corrupt("the access token is not UTF-8")
        }
        var refresh: Secret? = nil
        if !row[3].isNull {
            guard let stored = row[3].bytes else { throw corrupt("the refresh token is not bytes") }
            guard let text = String(validating: try reveal(stored, .refresh), as: UTF8.self) else {
                throw corrupt("the refresh token is not UTF-8")
            }
            refresh = Secret(text)
        }
        guard let issued = row[4].int64, let expires = row[5].int64 else { throw corrupt("a time is missing") }
        // What the file store refuses in a record, refused in a row alike.
        let instants = [("issued_at_ms", issued), ("expires_at_ms", expires)]
        if let problem = TokenRecordLimit.problem(version: UInt64(version), accessTokenIsEmpty: access.isEmpty, instants: instants) {
            throw corrupt(problem)
        }
        let token = AccessToken(
            value: Secret(access), refreshToken: refresh, flow: flow, account: account, issuedAt: Date(millisecondsSince1970: issued),
            expiresAt: Date(millisecondsSince1970: expires))
        return StoredToken(token: token, version: TokenVersion(UInt64(version)))
    }

    // MARK: Writing

    /// Writes a token if the stored version is still `expected` (``TokenStore/save(_:replacing:dueAt:)``).
    /// - Parameters:
    ///   - token: The token.
    ///   - expected: The version read, or nil when none should be stored.
    ///   - dueAt: When the token needs attention.
    /// - Returns: The new version.
    /// - Throws: ``StoreError`` of kind `too-large`, `conflict` (nothing was written) or `io`.
    package func save(_ token: AccessToken, replacing expected: TokenVersion?, dueAt: Date) async throws -> TokenVersion {
        try TokenRecordLimit.check(token, dueAt: dueAt)
        let account = token.account
        let access: [UInt8]
        var refresh: [UInt8]? = nil
        if let keyring {
            access = try keyring.seal(token.value, field: .access, account: account)
            if let refreshToken = token.refreshToken { refresh = try keyring.seal(refreshToken, field: .refresh, account: account) }
        } else {
            access = Array(token.value.reveal().utf8)
            refresh = token.refreshToken.map { Array($0.reveal().utf8) }
        }
        let values: [PostgresValue] = [
            .text(token.flow.rawValue), .bytes(access), refresh.map { .bytes($0) } ?? .null,
            .instant(token.issuedAt), .instant(token.expiresAt), .instant(dueAt), keyring.map { .text($0.currentKeyID) } ?? .null,
        ]
        let rows: PostgresRows
        do {
            if let expected {
                rows = try await pool.execute(statements.update, [.text(account.rawValue), .int64(Int64(clamping: expected.value))] + values)
            } else {
                rows = try await pool.execute(statements.insert, [.text(account.rawValue)] + values)
            }
        } catch {
            throw Self.failure(error, account: account, doing: "save the token", write: true, secrets: [token.value, token.refreshToken])
        }
        guard let version = rows.first?.first?.int64 else {
            throw await conflict(account, expected: expected)
        }
        guard version >= 1 else {
            throw StoreError(.corrupt, account: account, message: "the save answered version \(version), not a positive one; the row in \(schema).tokens is not one OneTap wrote")
        }
        return TokenVersion(UInt64(version))
    }

    /// Removes an account's token (``TokenStore/remove(_:replacing:)``).
    /// - Parameters:
    ///   - account: The account.
    ///   - expected: The version read, or nil to remove whatever is stored.
    /// - Returns: Whether a token was removed.
    /// - Throws: ``StoreError`` of kind `conflict` or `io`.
    @discardableResult
    package func remove(_ account: AccountID, replacing expected: TokenVersion?) async throws -> Bool {
        let rows: PostgresRows
        do {
            if let expected {
                rows = try await pool.execute(statements.removeVersion, [.text(account.rawValue), .int64(Int64(clamping: expected.value))])
            } else {
                rows = try await pool.execute(statements.remove, [.text(account.rawValue)])
            }
        } catch {
            throw Self.failure(error, account: account, doing: "remove the token", write: true)
        }
        if rows.first != nil { return true }
        guard expected == nil else { throw await conflict(account, expected: expected) }
        return false
    }

    /// The conflict error for a write that matched no row, naming the version stored now.
    private func conflict(_ account: AccountID, expected: TokenVersion?) async -> any Error {
        let found: String
        do {
            let rows = try await pool.execute(statements.version, [.text(account.rawValue)])
            found = rows.first?.first?.int64.map { $0 >= 1 ? TokenVersion(UInt64($0)).description : "a version that is not positive (\($0))" } ?? "no token"
        } catch {
            found = "a version it could not read"
        }
        return StoreError(.conflict, account: account, message: "expected \(expected.map(\.description) ?? "no token"), found \(found)")
    }

    /// Accounts due before an instant, soonest first (``TokenStore/accounts(dueBefore:limit:)``), from the
    /// `tokens_due` index.
    ///
    /// A row whose account is no account id (written by hand, or by another program) is passed over and takes no
    /// place: the listing reads on, a page of `limit` rows at a time, until it has `limit` accounts or no row is
    /// left, so bad rows at the head of the index never keep the accounts after them from their refresh.
    /// - Parameters:
    ///   - instant: The instant.
    ///   - limit: The most accounts to return.
    /// - Returns: The accounts.
    /// - Throws: ``StoreError`` of kind `io`.
    /// - Complexity: One round trip per page; one page unless rows are passed over.
    package func accounts(dueBefore instant: Date, limit: Int) async throws -> [AccountID] {
        guard limit > 0 else { return [] }
        var accounts: [AccountID] = []
        // Before every row: no due time is below Int64.min, no account text below the empty one.
        var after: (due: Int64, account: String) = (.min, "")
        while true {
            // A due time is whole milliseconds, so `due < instant` is `due < ceil(instant in milliseconds)`.
            let page = try await pool.execute(statements.due, [.bound(instant), .int64(Int64(limit)), .int64(after.due), .text(after.account)]) {
                Self.failure($0, account: nil, doing: "list the due accounts")
            }
            for row in page.rows {
                guard row.count == 2, let due = row[0].int64, let text = row[1].text else {
                    throw StoreError(.corrupt, account: nil, message: "the due index answered a row that is not (due_at_ms, account)")
                }
                after = (due, text)
                guard let account = try? AccountID(text) else { continue }  // not an account id: passed over
                accounts.append(account)
                if accounts.count == limit { return accounts }
            }
            if page.rows.count < limit { return accounts }
        }
    }

    // MARK: Helpers

    /// The store error for a database failure, never quoting a token: the stores' one rule
    /// (`PostgresStoreFailure.io`), a write whose outcome is unknown (a broken connection, the client's own
    /// deadline) said so, with the tokens the message might quote removed.
    static func failure(_ error: any Error, account: AccountID?, doing: String, write: Bool = false, secrets: [Secret?] = []) -> any Error {
        let failure = PostgresStoreFailure.io(
            error, subject: account.map(StoreError.Entry.account), doing: doing, write: write,
            unknownOutcome: ": the stored token is the previous one or this one, whole; read it again")
        guard let failure = failure as? StoreError else { return failure }
        return StoreError(failure.kind, subject: failure.entry, message: Secret.scrub(failure.message, of: secrets))
    }

    /// A duration in milliseconds, at most 584 years (the most ``Monotonic/nanoseconds(_:)`` holds).
    static func milliseconds(of duration: Duration) -> Int64 {
        Int64(clamping: Monotonic.nanoseconds(duration) / 1_000_000)
    }
}
