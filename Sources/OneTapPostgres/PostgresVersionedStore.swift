import OneTap

/// A record a PostgreSQL store keeps as one row of a table of its own: the id (`text COLLATE "C"`), the
/// version, columns copied from the record (its expiry, `expires_at_ms`, among them) and the record as its
/// JSON in a `text` column. ``PostgresLoginSessionStore`` and ``PostgresAppSessionStore`` are
/// ``PostgresVersionedStore``s of their records.
package protocol PostgresVersionedRecord: VersionedRecord, JSONRecord {
    /// The store's name in its description: `PostgresLoginSessionStore`.
    static var storeName: String { get }
    /// The table in the schema: `login_sessions`.
    static var table: String { get }
    /// The column holding the JSON: `session`.
    static var jsonColumn: String { get }
    /// The columns copied from the record, in the order of ``copiedValues``, `expires_at_ms` among them.
    static var copiedColumns: [String] { get }
    /// The copied columns' values.
    var copiedValues: [PostgresValue] { get }
    /// An id as its `id` column holds it.
    /// - Parameter id: The id.
    /// - Returns: Its text.
    static func key(_ id: ID) -> String
}

/// Records in PostgreSQL, one row each, shared by every server instance: the create, the read, the
/// compare-and-swap replace and the removal of expired rows that the login-session and app-session stores
/// share.
///
/// - ``replace(_:expecting:)`` is one compare-and-swap statement (`UPDATE … WHERE id = $1 AND version =
///   $2`), so of many instances racing one change exactly one wins; the others get `conflict`.
/// - Every value is a bound parameter; only the validated, quoted schema name is part of the statement
///   text. Errors never quote a record's contents.
/// - A database that is down or unreachable, or a statement that outlives the statement timeout (a row
///   held by a stuck transaction), fails the call with `io`, and nothing is written. When the connection
///   breaks while a write is on its way, the write may or may not have been committed, but the stored
///   record is always whole: the previous one or the new one.
package final class PostgresVersionedStore<Record: PostgresVersionedRecord>: CustomStringConvertible, Sendable {
    /// The schema holding the table.
    package var schema: String { pool.configuration.schema }

    let pool: PostgresPool
    private let statements: Statements

    /// The statement texts, made once from the quoted schema name.
    private struct Statements: Sendable {
        let table, create, load, replace, version, removeExpired: String

        init(_ schema: String) {
            table = "\(schema).\(Record.table)"
            let columns = Record.copiedColumns + [Record.jsonColumn]
            let values = columns.indices.map { "$\($0 + 3)" }
            create = "INSERT INTO \(table) (id, version, \(columns.joined(separator: ", "))) VALUES ($1, $2, \(values.joined(separator: ", "))) "
                + "ON CONFLICT (id) DO NOTHING RETURNING version"
            load = "SELECT version, \(Record.jsonColumn) FROM \(table) WHERE id = $1"
            let assignments = zip(["version"] + columns, ["$3"] + columns.indices.map { "$\($0 + 4)" }).map { "\($0) = \($1)" }
            replace = "UPDATE \(table) SET \(assignments.joined(separator: ", ")) WHERE id = $1 AND version = $2 AND $3 > $2 RETURNING version"
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
    package var description: String { "\(Record.storeName)(schema \(schema), \(pool))" }

    /// The schema-qualified table, quoted.
    var table: String { statements.table }

    /// Stores a new record.
    /// - Parameter record: The record.
    /// - Throws: ``StoreError`` of kind `duplicate` when its id is taken (the stored record is left as it
    ///   is), or `io`.
    @inline(never)
    package func create(_ record: Record) async throws {
        let json = try encode(record)
        let rows = try await pool.execute(
            statements.create, [.text(Record.key(record.id)), .int64(Int64(record.version))] + record.copiedValues + [.text(json)]
        ) { failure($0, record.id, doing: "create the \(Record.named)", write: true) }
        guard rows.first != nil else {
            throw StoreError(.duplicate, subject: Record.subject(record.id), message: "\(Record.article) \(Record.named) with this id exists")
        }
    }

    /// Reads a record.
    /// - Parameter id: The id.
    /// - Returns: The record, or nil when none has the id.
    /// - Throws: ``StoreError`` of kind `io`, or `corrupt` when the row is not a record OneTap wrote (it
    ///   is left as it is).
    @inline(never)
    package func load(_ id: Record.ID) async throws -> Record? {
        let rows = try await pool.execute(statements.load, [.text(Record.key(id))]) { failure($0, id, doing: "read the \(Record.named)") }
        guard let row = rows.first else { return nil }
        return try decode(row, id: id)
    }

    /// Replaces a record if it is still at `version`, in one statement.
    /// - Parameters:
    ///   - record: The record after a change (its version greater than `version`).
    ///   - version: The version the change was made from.
    /// - Throws: ``StoreError`` of kind `conflict` (another instance changed it first), `not-found`, or
    ///   `io`; nothing is written then.
    @inline(never)
    package func replace(_ record: Record, expecting version: Int) async throws {
        let json = try encode(record)
        let rows = try await pool.execute(
            statements.replace,
            [.text(Record.key(record.id)), .int64(Int64(version)), .int64(Int64(record.version))] + record.copiedValues + [.text(json)]
        ) { failure($0, record.id, doing: "replace the \(Record.named)", write: true) }
        guard rows.first == nil else { return }
        throw refused(record.id, expecting: version, found: try await storedVersion(record.id))
    }

    /// The record's version as stored now, read after a refused write (nothing was written); nil when none has the id.
    private func storedVersion(_ id: Record.ID) async throws -> Int64? {
        try await pool.execute(statements.version, [.text(Record.key(id))]) {
            failure($0, id, doing: "read the \(Record.named)'s version after a refused write (nothing was written)")
        }.first?.first?.int64
    }

    /// Why a replace was refused: `not-found` when no record has the id, else `conflict`.
    private func refused(_ id: Record.ID, expecting version: Int, found: Int64?) -> StoreError {
        guard let found else { return StoreError(.notFound, subject: Record.subject(id), message: "no \(Record.named) has this id") }
        return StoreError(.conflict, subject: Record.subject(id), message: "expected version \(version), found \(found)")
    }

    // MARK: A replace with another write

    /// How many values ``replace(_:expecting:)`` binds: another write in the same statement
    /// (``replaceStatement(alongside:selecting:)``) numbers its own from the next.
    var replaceParameterCount: Int { Record.copiedColumns.count + 4 }

    /// A statement that replaces a record as ``replace(_:expecting:)`` does and runs another data-modifying
    /// statement only when the replace wrote: both or neither, one trip to the server.
    /// - Parameters:
    ///   - alongside: The other write, with `$n` from ``replaceParameterCount`` + 1 on, and `gate` where it
    ///     takes a condition (`EXISTS (SELECT 1 FROM replaced)`); it is the `WITH` query `alongside`.
    ///   - selecting: More of the answer after its first two columns (whether the record was replaced, and its
    ///     version as it stood when the statement began), with a `FROM` of its own if it needs one; nil for none.
    /// - Returns: The statement, for ``replace(_:expecting:statement:alongside:)``.
    func replaceStatement(alongside: (_ gate: String) -> String, selecting: String?) -> String {
        "WITH replaced AS (\(statements.replace)), alongside AS (\(alongside("EXISTS (SELECT 1 FROM replaced)"))) "
            + "SELECT EXISTS (SELECT 1 FROM replaced), (SELECT version FROM \(statements.table) WHERE id = $1)" + (selecting.map { ", " + $0 } ?? "")
    }

    /// Replaces a record if it is still at `version` with a statement of ``replaceStatement(alongside:selecting:)``.
    /// - Parameters:
    ///   - record: The record after a change.
    ///   - version: The version the change was made from.
    ///   - statement: The statement.
    ///   - parameters: The other write's values.
    ///   - doing: What the statement does, for its error (`replace the login session and claim the token`).
    /// - Returns: The answer's columns after its first two.
    /// - Throws: ``StoreError`` of kind `conflict` or `not-found` (nothing was written), or `io`.
    func replace(_ record: Record, expecting version: Int, statement: String, alongside parameters: [PostgresValue], doing: String) async throws -> [PostgresValue] {
        let json = try encode(record)
        let rows = try await pool.execute(
            statement,
            [.text(Record.key(record.id)), .int64(Int64(version)), .int64(Int64(record.version))] + record.copiedValues + [.text(json)] + parameters
        ) { failure($0, record.id, doing: doing, write: true) }
        guard let row = rows.first, row.count >= 2 else {
            throw StoreError(.io, subject: Record.subject(record.id), message: "PostgreSQL: cannot \(doing): the statement answered no row")
        }
        guard row[0].bool == true else {
            // The version as the statement's snapshot saw it, before its update waited for another writer's lock: at the
            // expected version, the row changed or went while it waited, and is read again (removed, it is `not-found`).
            let seen = row[1].int64
            throw refused(record.id, expecting: version, found: seen == Int64(version) ? try await storedVersion(record.id) : seen)
        }
        return Array(row.dropFirst(2))
    }

    /// Removes records that expired before an instant, soonest expired first, skipping rows another
    /// transaction holds.
    /// - Parameters:
    ///   - instant: The instant; a record expiring at it is kept.
    ///   - limit: The most to remove.
    /// - Returns: How many were removed.
    /// - Throws: ``StoreError`` of kind `io`.
    @inline(never)
    package func removeExpired(before instant: Date, limit: Int) async throws -> Int {
        do {
            return try await removeExpiredRows(before: instant, limit: limit)
        } catch {
            throw failure(error, nil, doing: "remove expired \(Record.named)s")
        }
    }

    /// ``removeExpired(before:limit:)`` failing with the database's own error (for
    /// ``PostgresStores/removeExpiredRows(before:)``).
    @inline(never)
    func removeExpiredRows(before instant: Date, limit: Int) async throws -> Int {
        try await PostgresExpiredRows.remove(statements.removeExpired, before: instant, limit: limit, on: pool)
    }

    // MARK: Helpers

    private func encode(_ record: Record) throws(StoreError) -> String {
        do {
            return try record.json()
        } catch {
            throw StoreError(.io, subject: Record.subject(record.id), message: "cannot write the \(Record.named) as JSON; nothing was written")
        }
    }

    private func decode(_ row: [PostgresValue], id: Record.ID) throws(StoreError) -> Record {
        func corrupt(_ reason: String) -> StoreError {
            PostgresStoreFailure.corrupt(Record.subject(id), table: "\(schema).\(Record.table)", record: "a OneTap \(Record.named)", reason: reason)
        }
        guard let (version, json) = PostgresStoreFailure.versionedJSON(row) else { throw corrupt("a column is missing") }
        let record = try PostgresStoreFailure.decoded(json, { (json) throws(DecodingError) in try Record(json: json) }) { path in
            corrupt("its JSON does not read as \(Record.article) \(Record.named) at \(path)")
        }
        guard record.id == id else { throw corrupt("its JSON holds another session's id") }
        guard Int64(record.version) == version else { throw corrupt("its JSON is at version \(record.version), its row at version \(version)") }
        return record
    }

    /// The store error for a database failure.
    func failure(_ error: any Error, _ id: Record.ID?, doing: String, write: Bool = false) -> any Error {
        PostgresStoreFailure.io(
            error, subject: id.map(Record.subject), doing: doing, write: write,
            unknownOutcome: ": the stored session is the previous one or this one, whole; load it again"
        )
    }
}
