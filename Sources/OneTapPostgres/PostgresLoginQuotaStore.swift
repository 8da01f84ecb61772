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
///   same rows can cause one) is retried, up to ``attempts`` runs in all: `body` may then run more than
///   once, and only the last run is written.
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
        let table, lock, read, write, removeExpired: String

        init(_ schema: String) {
            table = "\(schema).login_quota_counters"
            lock = "SELECT pg_advisory_xact_lock(key) FROM unnest($1::bigint[]) AS key"
            read = "SELECT counter, events_ms, keep_until_ms FROM \(table) WHERE counter = ANY($1::text[])"
            // $1 the counters left empty, $2 every written counter's events in one array, $3 the counters
            // to write, $4 and $5 each one's slice of $2, $6 the keep-until.
            write = """
                WITH emptied AS (DELETE FROM \(table) WHERE counter = ANY($1::text[])) \
                INSERT INTO \(table) (counter, events_ms, keep_until_ms) \
                SELECT put.counter, ($2::bigint[])[put.first + 1 : put.last], $6 \
                FROM unnest($3::text[], $4::bigint[], $5::bigint[]) AS put(counter, first, last) \
                ON CONFLICT (counter) DO UPDATE SET events_ms = EXCLUDED.events_ms, keep_until_ms = EXCLUDED.keep_until_ms
                """
            removeExpired = PostgresExpiredRows.delete(from: table, key: "counter", before: "keep_until_ms")
        }
    }

    /// Creates a store over a pool whose schema is migrated.
    /// - Parameters:
    ///   - pool: The pool.
    ///   - attempts: How many runs an update gets when the database reports a deadlock or a
    ///     serialization failure, at least 1.
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
        var seen = Set<String>()
        let keys = counters.map(\.description).filter { seen.insert($0).inserted }
        let locks = Self.lockKeys(schema: schema, counters: keys)
        var attempt = 1
        while true {
            let phase = LockedValue(Phase.connecting)
            do {
                return try await pool.withConnection { connection in
                    try await self.run(on: connection, counters: counters, keys: keys, locks: locks, at: now, phase: phase, body)
                }
            } catch let error as PostgresError where attempt < attempts && error.asksForARetry {
                attempt += 1
            } catch {
                throw failure(error, phase: phase.withLock { $0 }, updating: true)
            }
        }
    }

    /// How far an update got, for its error message.
    private enum Phase: Sendable {
        case connecting, reading, writing, committing
    }

    /// One run of the transaction on one connection.
    private func run<Result: Sendable>(
        on connection: PostgresConnection, counters: [LoginQuotaPolicy.Counter], keys: [String], locks: [Int64], at now: Date,
        phase: LockedValue<Phase>, _ body: @Sendable (inout LoginQuotaState) -> Result
    ) async throws -> Result {
        phase.withLock { $0 = .reading }
        return try await connection.transaction(committing: { phase.withLock { $0 = .committing } }) { connection in
            try await connection.execute(statements.lock, [.int64Array(locks)])
            let rows = try await connection.execute(statements.read, [.textArray(keys)])
            let stored = try read(rows, counters: counters, at: now)

            var state = LoginQuotaState(events: stored.events, keepUntil: stored.keepUntil)
            let result = body(&state)

            if let write = changes(from: stored, to: state, counters: counters) {
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

    /// The rows as they are stored (whether or not they are still kept), and the state they read as.
    private struct Stored {
        /// Every stored counter asked for: its events and keep-until.
        var counters: [String: (events: [Date], keepUntil: Date)] = [:]
        /// What the update reads: every counter asked for, the kept ones with their events.
        var events: [LoginQuotaPolicy.Counter: [Date]] = [:]
        /// The latest keep-until of what is read; the distant past when nothing is.
        var keepUntil = Date.distantPast
    }

    private func read(_ rows: PostgresRows, counters: [LoginQuotaPolicy.Counter], at now: Date) throws(StoreError) -> Stored {
        var stored = Stored()
        for counter in counters { stored.events[counter] = [] }
        let asked = Dictionary(counters.map { ($0.description, $0) }, uniquingKeysWith: { first, _ in first })
        for row in rows.rows {
            guard row.count == 3, let counter = row[0].text, let events = row[1].instants, let keepUntil = row[2].instant else {
                throw StoreError(.corrupt, message: "a row of \(schema).login_quota_counters is not one OneTap wrote; it was left as it is")
            }
            stored.counters[counter] = (events, keepUntil)
            if keepUntil >= now, let asked = asked[counter] {
                stored.events[asked] = events
                stored.keepUntil = max(stored.keepUntil, keepUntil)
            }
        }
        return stored
    }

    /// What to write: nil when nothing changed.
    private struct Write {
        var deleteCounters: [String] = []
        var putCounters: [String] = []
        /// Every written counter's events, one after another; `bounds` says where each one's are.
        var events: [Date] = []
        var bounds: [(first: Int64, last: Int64)] = []
    }

    private func changes(from stored: Stored, to state: LoginQuotaState, counters: [LoginQuotaPolicy.Counter]) -> Write? {
        var write = Write()
        var changed = false
        var written = Set<String>()
        for counter in counters {
            let key = counter.description
            guard written.insert(key).inserted else { continue }
            let list = state.events[counter] ?? []
            let old = stored.counters[key]
            if list.isEmpty {
                if old != nil {
                    write.deleteCounters.append(key)
                    changed = true
                }
            } else if old.map({ $0.events != list || $0.keepUntil != state.keepUntil }) ?? true {
                let first = Int64(write.events.count)
                write.events += list
                write.putCounters.append(key)
                write.bounds.append((first, Int64(write.events.count)))
                changed = true
            }
        }
        return changed ? write : nil
    }

    /// The advisory-lock keys of an update's counters: the first 8 bytes of SHA-256(schema, counter id),
    /// sorted and without repeats, so every update takes its locks in one order. Their own prefix keeps
    /// them apart from the SMS store's.
    static func lockKeys(schema: String, counters: [String]) -> [Int64] {
        func key(_ id: String) -> Int64 {
            let digest = SHA256.hash(Array("onetap.login-quotas\u{0}\(schema)\u{0}counter\u{0}\(id)".utf8))
            return Int64(bitPattern: digest.bytes.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
        }
        return Array(Set(counters.map(key))).sorted()
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
            throw failure(error, phase: nil, updating: false)
        }
    }

    /// ``removeExpired(before:limit:)`` failing with the database's own error (for
    /// ``PostgresStores/removeExpiredRows(before:)``).
    func removeExpiredRows(before instant: Date, limit: Int) async throws -> Int {
        guard limit > 0 else { return 0 }
        return try await pool.execute(statements.removeExpired, [.bound(instant), .int64(Int64(limit))]).affected
    }

    // MARK: Helpers

    /// The store error for a database failure; the phase says whether a write was on its way.
    private func failure(_ error: any Error, phase: Phase?, updating: Bool) -> any Error {
        if error is CancellationError || error is StoreError { return error }
        let doing = updating ? "update the login quota counters" : "remove expired login quota counters"
        var message = "PostgreSQL: cannot \(doing): \(error)"
        let lost = (error as? PostgresError)?.leavesTheOutcomeUnknown ?? false
        if phase == .committing && lost {
            message += "; the update may or may not have been committed (whole, if it was)"
        } else if phase != nil {
            message += "; nothing was written"
        }
        // A statement that ran out of time, not a connection that could not be had (the database is unreachable).
        let timedOut = (error as? PostgresError)?.kind == .timeout && phase != .connecting
        return StoreError(timedOut ? .timeout : .io, message: message)
    }
}
