import OneTap

/// Login quota counters in PostgreSQL, shared by every server instance, so a deployment of many
/// instances counts logins started and paid exchanges against one quota, not one per instance. Make one
/// with ``PostgresStores/loginQuotaStore(attempts:)`` and give it to ``LoginQuotas``.
///
/// - A counter is a row of `<schema>.login_quota_counters` (migration 13): its id
///   (`starts:ip:203.0.113.7`, `text COLLATE "C"`), its events as a `bigint[]` of milliseconds since
///   1970 and its keep-until (`keep_until_ms`), as the SMS counters are kept (``PostgresSMSStore``).
/// - ``update(counters:at:_:)`` is one transaction: it takes a transaction-scoped advisory lock for each
///   counter it reads (a 64-bit hash of the schema and the counter's id, all of them in one statement, in
///   ascending order, so two updates never deadlock, and a counter that has no row yet is locked as
///   surely as one that does), reads the rows, runs `body`, writes what changed in one statement
///   (upserts, and deletes of counters left empty; nothing when nothing changed), and commits. So an
///   update is atomic against every other update that touches any of its counters, on any instance.
/// - A deadlock or serialization failure (SQLSTATE `40P01`, `40001`; only a foreign transaction on the
///   same rows can cause one), or a prepared statement the server refused before it ran (dropped by
///   `DISCARD ALL`, or a table changed under it), is retried, up to ``attempts`` runs in all: `body` may
///   then run more than once, and only the last run is written.
/// - What is kept only until before the update's `now` reads as absent, as in
///   ``InMemoryLoginQuotaStore``, and ``removeExpired(before:limit:)`` (or
///   ``PostgresStores/removeExpiredRows(before:)``) deletes it.
/// - A database that is down fails the update with ``StoreError`` kind `io`, and one held past the
///   statement timeout with `timeout`: ``LoginQuotas`` then admits nothing (fail closed). The
///   transaction is rolled back, so nothing is half-written; only when the connection breaks during the
///   `COMMIT` itself may the update have been committed (whole), which the message says.
package final class PostgresLoginQuotaStore: LoginQuotaStore, CustomStringConvertible {
    /// How many times an update runs at most when the database reports a deadlock or a serialization
    /// failure.
    package let attempts: Int
    /// The schema holding the table.
    package var schema: String { pool.configuration.schema }

    private let pool: PostgresPool
    private let statements: Statements

    /// The statement texts, made once from the quoted schema name.
    private struct Statements: Sendable {
        let table, read, write, removeExpired: String

        init(_ schema: String) {
            table = "\(schema).login_quota_counters"
            read = "SELECT counter, events_ms, keep_until_ms FROM \(table) WHERE counter = ANY($1::text[])"
            // $1 the counters left empty, $2 every written counter's events in one array, $3 the counters
            // to write, $4 and $5 each one's slice of $2, $6 the keep-until.
            write = "WITH emptied AS (DELETE FROM \(table) WHERE counter = ANY($1::text[])) "
                + PostgresCounterRows.Write.upsert(into: table, events: "$2", counters: "$3", first: "$4", last: "$5", keepUntil: "$6")
            removeExpired = PostgresExpiredRows.delete(from: table, key: "counter", before: "keep_until_ms")
        }
    }

    /// Creates a store over a pool whose schema is migrated.
    /// - Parameters:
    ///   - pool: The pool.
    ///   - attempts: How many runs an update gets when the database reports a deadlock, a
    ///     serialization failure or a prepared statement gone stale, at least 1.
    package init(pool: PostgresPool, attempts: Int) {
        self.pool = pool
        self.attempts = max(1, attempts)
        statements = Statements(PostgresIdentifier.quoted(pool.configuration.schema))
    }

    /// `PostgresLoginQuotaStore(schema onetap, 4 attempts, PostgresPool(…))`.
    package var description: String { "PostgresLoginQuotaStore(schema \(schema), \(attempts) attempts, \(pool))" }

    // MARK: The update

    /// Reads the counters, runs `body`, and writes back what changed, in one transaction
    /// (``LoginQuotaStore/update(counters:at:_:)``).
    /// - Parameters:
    ///   - counters: The counters to read (missing ones read as empty).
    ///   - now: The time: rows kept only until before it read as absent.
    ///   - body: The change; the state's `keepUntil` becomes the keep-until of every row written.
    /// - Returns: What the last run of `body` returned.
    /// - Throws: ``StoreError`` of kind `io` (the database failed; nothing was written), `timeout` (the
    ///   rows stayed locked past the statement timeout; nothing was written) or `corrupt` (a stored row is
    ///   not one OneTap wrote; it is left as it is).
    package func update<Result: Sendable>(
        counters: [LoginQuotaPolicy.Counter], at now: Date, _ body: @Sendable (inout LoginQuotaState) -> Result
    ) async throws -> Result {
        let read = PostgresCounterRows.Read(counters)
        let locks = Self.lockKeys(schema: schema, counters: read.ids)
        return try await PostgresCounterRows.update(pool, attempts: attempts, locks: locks, doing: "update the login quota counters") { connection, phase in
            let rows = try await connection.execute(statements.read, [.textArray(read.ids)])
            let stored = try self.read(rows, into: read, at: now)

            var state = LoginQuotaState(events: stored.events, keepUntil: stored.keepUntil)
            let result = body(&state)

            // A row is written only when its events changed: a counter the update only read (a start reads the
            // exchange counters of the captcha rules on exchanges) keeps its row, whose keep-until covers its events.
            if let write = stored.changes(to: state.events, keepUntil: state.keepUntil, eventsOnly: Set(read.ids)) {
                phase.withLock { $0 = .writing }
                try await connection.execute(
                    statements.write,
                    [
                        .textArray(write.deleteCounters), .instants(write.events), .textArray(write.putCounters),
                        .int64Array(write.bounds.map(\.first)), .int64Array(write.bounds.map(\.last)), .instant(state.keepUntil),
                    ])
            }
            return result
        }
    }

    private func read(
        _ rows: PostgresRows, into read: PostgresCounterRows.Read<LoginQuotaPolicy.Counter>, at now: Date
    ) throws(StoreError) -> PostgresCounterRows.Read<LoginQuotaPolicy.Counter> {
        var read = read
        for row in rows.rows {
            guard row.count == 3, let counter = row[0].text, let events = row[1].instants, let keepUntil = row[2].instant else {
                throw StoreError(.corrupt, message: "a row of \(schema).login_quota_counters is not one OneTap wrote; it was left as it is")
            }
            read.add(counter, events: events, keepUntil: keepUntil, at: now)
        }
        return read
    }

    /// The advisory-lock keys of an update's counters (``PostgresCounterRows/lockKeys(_:)``), each named by the
    /// schema and the counter's id. Their own prefix keeps them apart from the SMS store's.
    static func lockKeys(schema: String, counters: [String]) -> [Int64] {
        PostgresCounterRows.lockKeys(counters.map { "onetap.login-quotas\u{0}\(schema)\u{0}counter\u{0}\($0)" })
    }

    // MARK: Cleaning up

    /// Removes counters kept only until before an instant (``LoginQuotaStore/removeExpired(before:limit:)``),
    /// skipping rows an update holds.
    /// - Parameters:
    ///   - instant: The instant; a row kept until it stays.
    ///   - limit: The most rows to remove.
    /// - Returns: How many were removed.
    /// - Throws: ``StoreError`` of kind `io` (or `timeout`).
    package func removeExpired(before instant: Date, limit: Int) async throws -> Int {
        do {
            return try await removeExpiredRows(before: instant, limit: limit)
        } catch {
            throw PostgresCounterRows.failure(error, phase: nil, doing: "remove expired login quota counters")
        }
    }

    /// ``removeExpired(before:limit:)`` failing with the database's own error (for
    /// ``PostgresStores/removeExpiredRows(before:)``).
    func removeExpiredRows(before instant: Date, limit: Int) async throws -> Int {
        try await PostgresExpiredRows.remove(statements.removeExpired, before: instant, limit: limit, on: pool)
    }

}
