import OneTap

/// Login sessions in PostgreSQL, shared by every server instance: what ``LoginServer`` keeps between a
/// login's requests. Make one with ``PostgresStores/loginSessionStore()``.
///
/// - One row per session in `<schema>.login_sessions`: the id (`text COLLATE "C"`), the version, the
///   expiry (`expires_at_ms`, milliseconds since 1970, indexed) and the session as its JSON
///   (``LoginSession/json()``, `onetap-session/2`, in a `text` column: readable as `session::json`, and
///   never rejected for what a report's text holds, as `jsonb` would reject an escaped NUL; a row of an
///   earlier version, `onetap-session/1`, is read as it is).
///   The JSON holds token digests only, never a token.
/// - ``replace(_:expecting:)`` is one compare-and-swap statement (`UPDATE … WHERE id = $1 AND version =
///   $2`), so of many instances racing one report exactly one wins; the others get `conflict`.
/// - Every value is a bound parameter; only the validated, quoted schema name is part of the statement
///   text. Errors never quote a session's contents.
/// - A database that is down or unreachable, or a statement that outlives the statement timeout (a row
///   held by a stuck transaction), fails the call with `io`, and nothing is written. When the connection
///   breaks while a write is on its way, the write may or may not have been committed, but the stored
///   session is always whole: the previous one or the new one.
package final class PostgresLoginSessionStore: LoginSessionStore, CustomStringConvertible {
    /// The schema holding the table.
    package var schema: String { pool.configuration.schema }

    private let pool: PostgresPool
    private let statements: Statements

    /// The statement texts, made once from the quoted schema name.
    private struct Statements: Sendable {
        let create, load, replace, version, removeExpired: String

        init(_ schema: String) {
            let table = "\(schema).login_sessions"
            create = "INSERT INTO \(table) (id, version, expires_at_ms, session) VALUES ($1, $2, $3, $4) ON CONFLICT (id) DO NOTHING RETURNING version"
            load = "SELECT version, session FROM \(table) WHERE id = $1"
            replace = """
                UPDATE \(table) SET version = $3, expires_at_ms = $4, session = $5 WHERE id = $1 AND version = $2 AND $3 > $2 RETURNING version
                """
            version = "SELECT version FROM \(table) WHERE id = $1"
            removeExpired = PostgresExpiredRows.delete(from: table, key: "id", before: "expires_at_ms")
        }
    }

    /// Creates a store over a pool whose schema is migrated.
    /// - Parameter pool: The pool.
    package init(pool: PostgresPool) {
        self.pool = pool
        statements = Statements(PostgresIdentifier.quoted(pool.configuration.schema))
    }

    /// `PostgresLoginSessionStore(schema onetap, PostgresPool(…))`.
    package var description: String { "PostgresLoginSessionStore(schema \(schema), \(pool))" }

    /// Stores a new session (``LoginSessionStore/create(_:)``).
    /// - Parameter session: The session.
    /// - Throws: ``StoreError`` of kind `duplicate` when its id is taken (the stored session
    ///   is left as it is), or `io`.
    package func create(_ session: LoginSession) async throws {
        let json = try encode(session)
        let rows = try await pool.execute(
            statements.create, [.text(session.id.text), .int64(Int64(session.version)), .instant(session.expiresAt), .text(json)]
        ) { failure($0, session: session.id, doing: "create the session", write: true) }
        guard rows.first != nil else {
            throw StoreError(.duplicate, session: session.id, message: "a session with this id exists")
        }
    }

    /// Reads a session (``LoginSessionStore/load(_:)``).
    /// - Parameter id: The id.
    /// - Returns: The session, or nil when none has the id.
    /// - Throws: ``StoreError`` of kind `io`, or `corrupt` when the row is not a session OneTap
    ///   wrote (it is left as it is).
    package func load(_ id: LoginSessionID) async throws -> LoginSession? {
        let rows = try await pool.execute(statements.load, [.text(id.text)]) { failure($0, session: id, doing: "read the session") }
        guard let row = rows.first else { return nil }
        return try decode(row, id: id)
    }

    /// Replaces a session if it is still at `version` (``LoginSessionStore/replace(_:expecting:)``), in
    /// one statement.
    /// - Parameters:
    ///   - session: The session after a report (its version greater than `version`).
    ///   - version: The version the report was applied to.
    /// - Throws: ``StoreError`` of kind `conflict` (another report won), `notFound`, or `io`;
    ///   nothing is written then.
    package func replace(_ session: LoginSession, expecting version: Int) async throws {
        let json = try encode(session)
        let rows = try await pool.execute(
            statements.replace,
            [.text(session.id.text), .int64(Int64(version)), .int64(Int64(session.version)), .instant(session.expiresAt), .text(json)]
        ) { failure($0, session: session.id, doing: "replace the session", write: true) }
        guard rows.first == nil else { return }
        let found = try await pool.execute(statements.version, [.text(session.id.text)]) {
            failure($0, session: session.id, doing: "read the session's version after a refused replace (nothing was written)")
        }.first?.first?.int64
        guard let found else {
            throw StoreError(.notFound, session: session.id, message: "no session has this id")
        }
        throw StoreError(.conflict, session: session.id, message: "expected version \(version), found \(found)")
    }

    /// Removes sessions that expired before an instant (``LoginSessionStore/removeExpired(before:limit:)``),
    /// soonest expired first, skipping rows another transaction holds.
    /// - Parameters:
    ///   - instant: The instant; a session expiring at it is kept.
    ///   - limit: The most to remove.
    /// - Returns: How many were removed.
    /// - Throws: ``StoreError`` of kind `io`.
    package func removeExpired(before instant: Date, limit: Int) async throws -> Int {
        do {
            return try await removeExpiredRows(before: instant, limit: limit)
        } catch {
            throw failure(error, session: nil, doing: "remove expired sessions")
        }
    }

    /// ``removeExpired(before:limit:)`` failing with the database's own error (for
    /// ``PostgresStores/removeExpiredRows(before:)``).
    func removeExpiredRows(before instant: Date, limit: Int) async throws -> Int {
        guard limit > 0 else { return 0 }
        return try await pool.execute(statements.removeExpired, [.bound(instant), .int64(Int64(limit))]).affected
    }

    // MARK: Helpers

    private func encode(_ session: LoginSession) throws(StoreError) -> String {
        do {
            return try session.json()
        } catch {
            throw StoreError(.io, session: session.id, message: "cannot write the session as JSON; nothing was written")
        }
    }

    private func decode(_ row: [PostgresValue], id: LoginSessionID) throws(StoreError) -> LoginSession {
        func corrupt(_ reason: String) -> StoreError {
            PostgresStoreFailure.corrupt(.session(id), table: "\(schema).login_sessions", record: "a OneTap session", reason: reason)
        }
        guard let (version, json) = PostgresStoreFailure.versionedJSON(row) else { throw corrupt("a column is missing") }
        let session = try PostgresStoreFailure.decoded(json, { (json) throws(DecodingError) in try LoginSession(json: json) }) { path in
            corrupt("its JSON does not read as a session at \(path)")
        }
        guard session.id == id else { throw corrupt("its JSON holds another session's id") }
        guard Int64(session.version) == version else { throw corrupt("its JSON is at version \(session.version), its row at version \(version)") }
        return session
    }

    /// The store error for a database failure.
    private func failure(_ error: any Error, session: LoginSessionID?, doing: String, write: Bool = false) -> any Error {
        PostgresStoreFailure.io(
            error, subject: session.map(StoreError.Entry.session), doing: doing, write: write,
            unknownOutcome: ": the stored session is the previous one or this one, whole; load it again"
        )
    }
}
