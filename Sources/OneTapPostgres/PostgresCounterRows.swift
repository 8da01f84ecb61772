import OneTap

/// What the PostgreSQL SMS and login quota stores share about rate counters, said once: a counter is a
/// row (its id, its events as a `bigint[]` of milliseconds since 1970, its keep-until); an update is one
/// transaction under advisory locks, retried on a deadlock, a serialization failure or a prepared
/// statement gone stale, and worded the same way when it fails.
enum PostgresCounterRows {
    /// How far an update got, for its error message.
    enum Phase: Sendable {
        case queueing, connecting, reading, writing, committing
    }

    /// Takes an update's transaction-scoped advisory locks, all of them in one statement, in the order given.
    static let lock = "SELECT pg_catalog.pg_advisory_xact_lock(key) FROM pg_catalog.unnest($1::bigint[]) AS key"

    /// Runs one update's transaction on a connection of the pool, again (up to `attempts` runs in all)
    /// when the database reports a deadlock or a serialization failure, or refused a prepared statement
    /// gone stale (``PostgresPool/transaction(attempts:retrying:connected:committing:_:)``): first the advisory
    /// locks (``lock``), then `run`. Before it takes a connection it waits behind the pool's ``PostgresCounterGate``
    /// for this process's other updates of the same counters (at most the connect and statement timeouts together).
    /// - Parameters:
    ///   - pool: The pool.
    ///   - attempts: How many runs at most.
    ///   - locks: The update's lock keys (``lockKeys(_:)``).
    ///   - doing: What the update does, for the error message (`"update the login quota counters"`).
    ///   - run: The transaction's body, under the locks; it sets the phase to `writing` before it writes.
    /// - Returns: What the last run returned.
    /// - Throws: ``StoreError`` (``failure(_:phase:doing:)``), or cancellation.
    static func update<Result: Sendable>(
        _ pool: PostgresPool, attempts: Int, locks: [Int64], doing: String,
        _ run: (PostgresConnection, LockedValue<Phase>) async throws -> Result
    ) async throws -> Result {
        let phase = LockedValue(Phase.queueing)
        let limit = gateLimit(pool)
        do {
            return try await pool.counterGate.withKeys(locks, waitingUpTo: limit, on: pool.clock, timeout: {
                PostgresError(.timeout, message: "other updates of this process held the same counters for \(limit.seconds) s")
            }, unsettling: { error in
                // The answer to its COMMIT lost: the transaction may still be committing, holding the locks.
                phase.withLock { $0 } == .committing && (error as? PostgresError)?.leavesTheOutcomeUnknown == true
            }) {
                phase.withLock { $0 = .connecting }
                return try await pool.transaction(
                    attempts: attempts, retrying: { phase.withLock { $0 = .connecting } }, connected: { phase.withLock { $0 = .reading } },
                    committing: { phase.withLock { $0 = .committing } }
                ) { connection in
                    try await connection.execute(lock, [.int64Array(locks)])
                    return try await run(connection, phase)
                }
            }
        } catch {
            throw failure(error, phase: phase.withLock { $0 }, doing: doing)
        }
    }

    /// The gate's wait limit: its line stands for the waits it spares, for a connection, then for the locks.
    /// - Parameter pool: The pool.
    /// - Returns: The connect and statement timeouts together.
    static func gateLimit(_ pool: PostgresPool) -> Duration {
        pool.configuration.connectTimeout + pool.configuration.statementTimeout
    }

    /// Whether an update of `locks` may answer a decision that writes nothing from one unlocked read
    /// (``PostgresCounterGate/answersWithoutLocks(_:on:within:)``).
    /// - Parameters:
    ///   - pool: The pool.
    ///   - locks: The update's lock keys.
    /// - Returns: True when another update of this process holds or waits for one of them and none is unsettled.
    static func answersWithoutLocks(_ pool: PostgresPool, _ locks: [Int64]) -> Bool {
        pool.counterGate.answersWithoutLocks(locks, on: pool.clock, within: gateLimit(pool))
    }

    /// The store error for a database failure; the phase says whether a write was on its way.
    /// - Parameters:
    ///   - error: What the pool threw.
    ///   - phase: How far the update got; nil for a removal of expired rows.
    ///   - doing: What was being done.
    /// - Returns: The error to throw: cancellation and store errors as they are, else ``StoreError`` of
    ///   kind `timeout` (a statement ran out of time) or `io`.
    @inline(never)
    static func failure(_ error: any Error, phase: Phase?, doing: String) -> any Error {
        if error is CancellationError || error is StoreError { return error }
        var message = "PostgreSQL: cannot \(doing): \(error)"
        if let unreadable = PostgresStoreFailure.unreadableRow(error, message) { return StoreError(.corrupt, message: unreadable) }
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

    /// An update's advisory-lock keys: each the first 8 bytes of SHA-256 of a row's text (the store's prefix,
    /// the schema, the row's kind and id, NUL-separated), sorted and without repeats, so every update takes its
    /// locks in one order and two updates never deadlock.
    /// - Parameter texts: The texts of the rows the update reads.
    /// - Returns: The keys.
    static func lockKeys(_ texts: [String]) -> [Int64] {
        Array(Set(texts.map { text in
            let digest = SHA256.hash(Array(text.utf8))
            return Int64(bitPattern: digest.bytes.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
        })).sorted()
    }

    /// One update's counters as stored (whether or not still kept) and as the update reads them.
    struct Read<Counter: Hashable & CustomStringConvertible> {
        /// The ids of the counters asked for, each once, in order.
        var ids: [String] { order.map(\.id) }
        /// The counters asked for, each once, in order, with their ids.
        private let order: [(id: String, counter: Counter)]
        /// Each id's counter.
        private let asked: [String: Counter]
        /// Every stored counter asked for: its events and keep-until.
        private(set) var stored: [String: (events: [Date], keepUntil: Date)] = [:]
        /// What the update reads: every counter asked for, the kept ones with their events.
        private(set) var events: [Counter: [Date]] = [:]
        /// The latest keep-until of what is read; the distant past when nothing is.
        var keepUntil = Date.distantPast

        /// Nothing read yet.
        /// - Parameter counters: The counters asked for.
        init(_ counters: [Counter]) {
            var seen = Set<String>()
            order = counters.map { ($0.description, $0) }.filter { seen.insert($0.id).inserted }
            asked = Dictionary(order, uniquingKeysWith: { first, _ in first })
            for counter in counters { events[counter] = [] }
        }

        /// Takes one stored counter row.
        /// - Parameters:
        ///   - id: The row's counter id.
        ///   - events: Its events.
        ///   - keepUntil: Its keep-until.
        ///   - now: The update's time: a row kept only until before it reads as absent.
        mutating func add(_ id: String, events: [Date], keepUntil: Date, at now: Date) {
            stored[id] = (events, keepUntil)
            if keepUntil >= now, let counter = asked[id] {
                self.events[counter] = events
                self.keepUntil = max(self.keepUntil, keepUntil)
            }
        }

        /// What to write after the update: nil when no counter changed.
        /// - Parameters:
        ///   - events: Each counter's events after the update.
        ///   - keepUntil: The keep-until of every row written.
        ///   - eventsOnly: Counters rewritten only when their events changed, not for a later keep-until alone
        ///     (their own keep-until covers their events): the SMS store's shared ones, whose lock every write takes;
        ///     every login quota counter (a start only reads the exchange ones).
        /// - Returns: The counters to delete (left empty) and to upsert.
        func changes(to events: [Counter: [Date]], keepUntil: Date, eventsOnly: Set<String> = []) -> Write? {
            var write = Write()
            for (id, counter) in order {
                let list = events[counter] ?? []
                let old = stored[id]
                if list.isEmpty {
                    if old != nil { write.deleteCounters.append(id) }
                } else if old.map({ $0.events != list || ($0.keepUntil != keepUntil && !eventsOnly.contains(id)) }) ?? true {
                    let first = Int64(write.events.count)
                    write.events += list
                    write.putCounters.append(id)
                    write.bounds.append((first, Int64(write.events.count)))
                }
            }
            return write.deleteCounters.isEmpty && write.putCounters.isEmpty ? nil : write
        }
    }

    /// The counter rows an update writes.
    struct Write {
        /// The counters left empty: their rows are deleted.
        var deleteCounters: [String] = []
        /// The counters upserted.
        var putCounters: [String] = []
        /// Every upserted counter's events, one after another; `bounds` says where each one's are.
        var events: [Date] = []
        /// Each upserted counter's slice of `events` (`first` inclusive, `last` exclusive, from 0).
        var bounds: [(first: Int64, last: Int64)] = []

        /// The statement that upserts the counters (`first + 1 : last` of one array in SQL's 1-based slices).
        /// - Parameters:
        ///   - table: The counters' table, schema-qualified.
        ///   - events: The placeholder of ``events``.
        ///   - counters: The placeholder of ``putCounters``.
        ///   - first: The placeholder of the bounds' firsts.
        ///   - last: The placeholder of the bounds' lasts.
        ///   - keepUntil: The placeholder of the keep-until.
        /// - Returns: The SQL.
        static func upsert(into table: String, events: String, counters: String, first: String, last: String, keepUntil: String) -> String {
            """
            INSERT INTO \(table) (counter, events_ms, keep_until_ms) \
            SELECT put.counter, (\(events)::bigint[])[put.first + 1 : put.last], \(keepUntil) \
            FROM ROWS FROM (pg_catalog.unnest(\(counters)::text[]), pg_catalog.unnest(\(first)::bigint[]), pg_catalog.unnest(\(last)::bigint[])) AS put(counter, first, last) \
            ON CONFLICT (counter) DO UPDATE SET events_ms = EXCLUDED.events_ms, keep_until_ms = EXCLUDED.keep_until_ms
            """
        }
    }
}
