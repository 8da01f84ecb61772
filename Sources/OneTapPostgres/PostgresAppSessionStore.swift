import OneTap

/// App sessions in PostgreSQL, shared by every server instance: what ``AppSessions`` keeps of each app's
/// session (refresh-token digests, the grace successor's nonce, revocations). Make one with
/// ``PostgresStores/appSessionStore()``.
///
/// - One row per session in `<schema>.app_sessions`: the id (`text COLLATE "C"`), the version, the
///   account it is logged in to (null for a guest's), when it was revoked (null while it is not), its
///   refresh token's expiry (`expires_at_ms`), every instant whole milliseconds since 1970, and the record
///   as its JSON (``AppSessionRecord/json()``, `onetap-app-session/1`, in a `text` column). The JSON holds
///   keyed digests of refresh tokens only, never a token. The account and revocation columns are copies
///   of the JSON's, kept for the index `app_sessions_account` (the live sessions of an account); the
///   expiry is indexed for cleanup (`app_sessions_expiry`).
/// - ``replace(_:expecting:)`` is one compare-and-swap statement (`UPDATE … WHERE id = $1 AND version =
///   $2`), so of many instances refreshing one token at once exactly one rotates; the others get
///   `conflict`, read the session again, and find their token the previous one.
/// - Every value is a bound parameter; only the validated, quoted schema name is part of the statement
///   text. Errors never quote a session's contents.
/// - A database that is down or unreachable fails the call with `io`, and nothing is written. When the
///   connection breaks while a write is on its way, the write may or may not have been committed, but the
///   stored session is always whole: the previous one or the new one.
package final class PostgresAppSessionStore: AppSessionStore, CustomStringConvertible {
    /// The schema holding the table.
    package var schema: String { pool.configuration.schema }

    private let pool: PostgresPool
    private let statements: Statements

    /// The statement texts, made once from the quoted schema name.
    private struct Statements: Sendable {
        let create, load, replace, version, sessions, removeExpired: String

        init(_ schema: String) {
            let table = "\(schema).app_sessions"
            create = """
                INSERT INTO \(table) (id, version, account, revoked_at_ms, expires_at_ms, record) VALUES ($1, $2, $3, $4, $5, $6) \
                ON CONFLICT (id) DO NOTHING RETURNING version
                """
            load = "SELECT version, record FROM \(table) WHERE id = $1"
            replace = """
                UPDATE \(table) SET version = $3, account = $4, revoked_at_ms = $5, expires_at_ms = $6, record = $7 \
                WHERE id = $1 AND version = $2 AND $3 > $2 RETURNING version
                """
            version = "SELECT version FROM \(table) WHERE id = $1"
            sessions = "SELECT id FROM \(table) WHERE account = $1 AND revoked_at_ms IS NULL"
            removeExpired = PostgresExpiredRows.delete(from: table, key: "id", before: "expires_at_ms")
        }
    }

    /// Creates a store over a pool whose schema is migrated.
    /// - Parameter pool: The pool.
    package init(pool: PostgresPool) {
        self.pool = pool
        statements = Statements(PostgresIdentifier.quoted(pool.configuration.schema))
    }

    /// `PostgresAppSessionStore(schema onetap, PostgresPool(…))`.
    package var description: String { "PostgresAppSessionStore(schema \(schema), \(pool))" }

    /// Stores a new session (``AppSessionStore/create(_:)``).
    /// - Parameter record: The session.
    /// - Throws: ``StoreError`` of kind `duplicate` when its id is taken (the stored session is left as it
    ///   is), or `io`.
    package func create(_ record: AppSessionRecord) async throws {
        let rows = try await pool.execute(
            statements.create, [.text(record.id.text), .int64(Int64(record.version))] + columns(record) + [.text(try encode(record))]
        ) { failure($0, record.id, doing: "create the app session", write: true) }
        guard rows.first != nil else {
            throw StoreError(.duplicate, subject: .appSession(record.id), message: "an app session with this id exists")
        }
    }

    /// Reads a session (``AppSessionStore/load(_:)``).
    /// - Parameter id: The id.
    /// - Returns: The session, or nil when none has the id.
    /// - Throws: ``StoreError`` of kind `io`, or `corrupt` when the row is not an app session OneTap wrote
    ///   (it is left as it is).
    package func load(_ id: AppSessionID) async throws -> AppSessionRecord? {
        let rows = try await pool.execute(statements.load, [.text(id.text)]) { failure($0, id, doing: "read the app session") }
        guard let row = rows.first else { return nil }
        return try decode(row, id: id)
    }

    /// Replaces a session if it is still at `version` (``AppSessionStore/replace(_:expecting:)``), in one
    /// statement.
    /// - Parameters:
    ///   - record: The session after a change (its version greater than `version`).
    ///   - version: The version the change was made from.
    /// - Throws: ``StoreError`` of kind `conflict` (another instance changed it first), `not-found`, or
    ///   `io`; nothing is written then.
    package func replace(_ record: AppSessionRecord, expecting version: Int) async throws {
        let rows = try await pool.execute(
            statements.replace,
            [.text(record.id.text), .int64(Int64(version)), .int64(Int64(record.version))] + columns(record) + [.text(try encode(record))]
        ) { failure($0, record.id, doing: "replace the app session", write: true) }
        guard rows.first == nil else { return }
        let found = try await pool.execute(statements.version, [.text(record.id.text)]) {
            failure($0, record.id, doing: "read the app session's version after a refused replace (nothing was written)")
        }.first?.first?.int64
        guard let found else {
            throw StoreError(.notFound, subject: .appSession(record.id), message: "no app session has this id")
        }
        throw StoreError(.conflict, subject: .appSession(record.id), message: "expected version \(version), found \(found)")
    }

    /// The ids of an account's sessions that are not revoked (``AppSessionStore/sessions(of:)``), from the
    /// index on the account.
    /// - Parameter account: The account.
    /// - Returns: The ids, in any order.
    /// - Throws: ``StoreError`` of kind `io`, or `corrupt` for a row whose id is no app session id.
    package func sessions(of account: AccountID) async throws -> [AppSessionID] {
        let rows = try await pool.execute(statements.sessions, [.text(account.rawValue)]) { error in
            failure(error, nil, doing: "list the account's app sessions")
        }
        var ids: [AppSessionID] = []
        for row in rows.rows {
            do {
                ids.append(try AppSessionID(row.first?.text ?? ""))
            } catch {
                throw StoreError(.corrupt, account: account, message: "a row in \(schema).app_sessions has no app session id (\(error.kind)); it was left as it is")
            }
        }
        return ids
    }

    /// Removes sessions whose refresh token expired before an instant (``AppSessionStore/removeExpired(before:limit:)``),
    /// revoked ones too, soonest expired first, skipping rows another transaction holds.
    /// - Parameters:
    ///   - instant: The instant; a session expiring at it is kept.
    ///   - limit: The most to remove.
    /// - Returns: How many were removed.
    /// - Throws: ``StoreError`` of kind `io`.
    package func removeExpired(before instant: Date, limit: Int) async throws -> Int {
        do {
            return try await removeExpiredRows(before: instant, limit: limit)
        } catch {
            throw failure(error, nil, doing: "remove expired app sessions")
        }
    }

    /// ``removeExpired(before:limit:)`` failing with the database's own error (for
    /// ``PostgresStores/removeExpiredRows(before:)``).
    func removeExpiredRows(before instant: Date, limit: Int) async throws -> Int {
        guard limit > 0 else { return 0 }
        return try await pool.execute(statements.removeExpired, [.bound(instant), .int64(Int64(limit))]).affected
    }

    // MARK: Helpers

    /// The columns copied from the record: account, revocation instant, expiry.
    private func columns(_ record: AppSessionRecord) -> [PostgresValue] {
        [record.account.map { .text($0.rawValue) } ?? .null, record.revoked.map { .instant($0.at) } ?? .null, .instant(record.expiresAt)]
    }

    private func encode(_ record: AppSessionRecord) throws(StoreError) -> String {
        do {
            return try record.json()
        } catch {
            throw StoreError(.io, subject: .appSession(record.id), message: "cannot write the app session as JSON; nothing was written")
        }
    }

    private func decode(_ row: [PostgresValue], id: AppSessionID) throws(StoreError) -> AppSessionRecord {
        func corrupt(_ reason: String) -> StoreError {
            PostgresStoreFailure.corrupt(.appSession(id), table: "\(schema).app_sessions", record: "a OneTap app session", reason: reason)
        }
        guard let (version, json) = PostgresStoreFailure.versionedJSON(row) else { throw corrupt("a column is missing") }
        let record = try PostgresStoreFailure.decoded(json, { (json) throws(DecodingError) in try AppSessionRecord(json: json) }) { path in
            corrupt("its JSON does not read as an app session at \(path)")
        }
        guard record.id == id else { throw corrupt("its JSON holds another session's id") }
        guard Int64(record.version) == version else { throw corrupt("its JSON is at version \(record.version), its row at version \(version)") }
        return record
    }

    /// The store error for a database failure.
    private func failure(_ error: any Error, _ id: AppSessionID?, doing: String, write: Bool = false) -> any Error {
        PostgresStoreFailure.io(
            error, subject: id.map(StoreError.Entry.appSession), doing: doing, write: write,
            unknownOutcome: ": the stored session is the previous one or this one, whole; load it again"
        )
    }
}
