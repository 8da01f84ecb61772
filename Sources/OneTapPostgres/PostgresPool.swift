import OneTap

/// A fixed number of connections shared by every store of one ``PostgresStores``.
///
/// - At most ``PostgresConfiguration/poolSize`` connections are open; they open when first needed.
/// - A caller that finds every connection busy waits in line (first come, first served) for at most
///   ``PostgresConfiguration/connectTimeout``, measured on the injected clock; a cancelled caller leaves
///   the line at once.
/// - Reconnects by itself: a connection that broke during a call (the server stopped or restarted) is
///   closed when it comes back, and an idle connection is checked before it is lent (its socket must
///   have nothing to read: a server that went away closed it). The call that met the break fails with
///   `connection-lost`; the next call opens a new connection, and fails with `connection-failed` only
///   while the server is still down.
/// - No task of its own: waiting callers wait in their own tasks.
/// - Lending and taking back are a few instructions under a lock, never a hop to another executor: a
///   statement is sent from its caller's thread and waits for its answer on the process's one socket waiter
///   (``PostgresSocketWaiter``), nothing that blocks running on the cooperative pool. Closing connections happens
///   outside the lock.
package final class PostgresPool: Sendable, CustomStringConvertible {
    /// What the pool is connected to and its limits.
    package let configuration: PostgresConfiguration
    /// Measures the wait for a free connection, and paces what waits on the pool (a migration's next run).
    package let clock: any WallClock
    private let observer: (@Sendable (String) -> Void)?
    private let valuesObserver: (@Sendable (String, [PostgresValue]) -> Void)?

    /// The pool's bookkeeping, under one lock.
    private struct State: Sendable {
        var idle: [PostgresConnection] = []
        /// Connections open, lent out or being opened.
        var open = 0
        /// The line, oldest first; a waiter that left (past its time limit, cancelled) stays in it until it reaches
        /// the front or the line is compacted, and is no longer in ``queued``.
        var waiters = FIFOQueue<PostgresWaiter<PostgresPoolTicket>>()
        /// The waiters still in line: joining, leaving and being handed a connection are O(1), however long the
        /// line (a flood of callers on a saturated pool, each timing out).
        var queued: Set<ObjectIdentifier> = []
        var closed = false
        var opened = 0
        var peak = 0
    }

    private let state = LockedValue(State())

    /// Keeps this process's updates of one rate counter from waiting on its lock with a connection each.
    let counterGate = PostgresCounterGate()

    /// Creates a pool; it connects when first used.
    /// - Parameters:
    ///   - configuration: The server and the limits.
    ///   - clock: Measures the wait for a free connection.
    ///   - observer: Sees every statement's text before it is sent (tests); nil for none.
    ///   - valuesObserver: Sees every statement's text and values before it is sent, `bytea` values zero-filled
    ///     (benchmarks; see ``PostgresConnection/open(_:waiter:observer:valuesObserver:)``); nil for none.
    package init(
        configuration: PostgresConfiguration, clock: any WallClock = SystemClock(), observer: (@Sendable (String) -> Void)? = nil,
        valuesObserver: (@Sendable (String, [PostgresValue]) -> Void)? = nil
    ) {
        self.configuration = configuration
        self.clock = clock
        self.observer = observer
        self.valuesObserver = valuesObserver
    }

    /// `PostgresPool(PostgresConfiguration(…password=<redacted>…))`.
    package var description: String { "PostgresPool(\(configuration))" }

    /// How the pool stands, for tests and operators.
    package struct Statistics: Sendable, Hashable {
        /// Connections open now (lent, idle or opening).
        package let open: Int
        /// Idle connections.
        package let idle: Int
        /// Callers waiting for a connection.
        package let waiting: Int
        /// The entries the line holds: those waiting, and those that left and are not yet taken out (the line is
        /// compacted when a caller leaves it and more than half of it, and 64 more, has left; hand-offs drop those
        /// that left from its front).
        package let lineEntries: Int
        /// Connections opened since the pool was made.
        package let opened: Int
        /// The most connections open at once.
        package let peak: Int
    }

    /// How the pool stands now.
    package var statistics: Statistics {
        get async {
            state.withLock { Statistics(open: $0.open, idle: $0.idle.count, waiting: $0.queued.count, lineEntries: $0.waiters.count, opened: $0.opened, peak: $0.peak) }
        }
    }

    /// Lends a connection to `body` and takes it back when `body` returns or throws.
    /// - Parameter body: Runs statements on the connection; it must not keep it.
    /// - Returns: What `body` returns.
    /// - Throws: ``PostgresError`` of kind `timeout` (no connection within the connect timeout),
    ///   `connection-failed`, `closed`, or what `body` throws; `CancellationError` when the caller is
    ///   cancelled while waiting in line.
    package func withConnection<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        var connection: PostgresConnection
        while true {
            let (lent, fresh) = try await checkOut()
            let usable = fresh ? true : await lent.isAlive()
            if usable {
                connection = lent
                break
            }
            await discard(lent)  // the server closed it while it was idle
        }
        let result: Result<T, any Error>
        do {
            result = .success(try await body(connection))
        } catch {
            result = .failure(error)
        }
        await checkIn(connection)
        return try result.get()
    }

    /// Runs `body` in a transaction on a pooled connection, and again in a new one (up to `attempts` runs in
    /// all) while the server refuses a run in a way that asks for another (``PostgresError/asksForARetry``:
    /// a deadlock, a serialization failure, a prepared statement gone stale); nothing of a refused run was
    /// written.
    /// A cancelled caller gets no further run.
    /// - Parameters:
    ///   - attempts: How many runs at most.
    ///   - retrying: Called before each run after the first.
    ///   - connected: Called at each run once its connection is had, before its `BEGIN`.
    ///   - committing: Called just before a run's `COMMIT` is sent (``PostgresConnection/transaction(_:committing:_:)``).
    ///   - body: The transaction's statements; it may run more than once.
    /// - Returns: What the last run of `body` returned.
    /// - Throws: The last run's error: as ``withConnection(_:)``, or ``PostgresError`` from `BEGIN` and `COMMIT`;
    ///   `CancellationError` when the caller was cancelled before a further run.
    package func transaction<T: Sendable>(
        attempts: Int, retrying: () -> Void = {}, connected: () -> Void = {}, committing: () -> Void = {},
        _ body: (PostgresConnection) async throws -> T
    ) async throws -> T {
        var attempt = 1
        while true {
            do {
                return try await withConnection { connection in
                    connected()
                    return try await connection.transaction(committing: committing, body)
                }
            } catch let error as PostgresError where attempt < attempts && error.asksForARetry {
                try Task.checkCancellation()
                attempt += 1
                retrying()
            }
        }
    }

    /// Runs one statement on a pooled connection, as a store does: its failure becomes the store's error.
    /// - Parameters:
    ///   - sql: The statement, with `$1`, `$2`… for the values.
    ///   - parameters: The values.
    ///   - failure: What the store throws for an error of the statement (its ``StoreError``).
    /// - Returns: The rows.
    /// - Throws: What `failure` makes of an error ``execute(_:_:)`` throws.
    @discardableResult
    package func execute(
        _ sql: String, _ parameters: [PostgresValue], else failure: (any Error) -> any Error
    ) async throws -> PostgresRows {
        do {
            return try await execute(sql, parameters)
        } catch {
            throw failure(error)
        }
    }

    /// Runs one statement on a pooled connection.
    /// - Parameters:
    ///   - sql: The statement, with `$1`, `$2`… for the values.
    ///   - parameters: The values.
    /// - Returns: The rows.
    /// - Throws: As ``withConnection(_:)`` and ``PostgresConnection/execute(_:_:)``.
    @discardableResult
    package func execute(_ sql: String, _ parameters: [PostgresValue] = []) async throws -> PostgresRows {
        while true {
            let (connection, fresh) = try await checkOut()
            let rows: PostgresRows?
            do {
                // The idle check (a poll that does not wait), then the statement.
                rows = fresh ? try await connection.execute(sql, parameters) : try await connection.executeIfAlive(sql, parameters)
            } catch {
                await checkIn(connection)
                throw error
            }
            guard let rows else {
                await discard(connection)  // the server closed it while it was idle; nothing was sent
                continue
            }
            await checkIn(connection)
            return rows
        }
    }

    /// Closes every connection; calls waiting in line and later calls fail with `closed`. Connections
    /// lent out close when they come back.
    package func close() async {
        let (waiting, closing) = state.withLock { state -> ([PostgresWaiter<PostgresPoolTicket>], [PostgresConnection]) in
            state.closed = true
            var waiting: [PostgresWaiter<PostgresPoolTicket>] = []
            while let waiter = state.waiters.popFirst() {
                if state.queued.contains(ObjectIdentifier(waiter)) { waiting.append(waiter) }
            }
            defer {
                state.waiters = FIFOQueue()
                state.queued = []
                state.open -= state.idle.count
                state.idle = []
            }
            return (waiting, state.idle)
        }
        let error = PostgresError(.closed, message: "the PostgreSQL pool was closed")
        for waiter in waiting { _ = waiter.resolve(.failure(error)) }
        for connection in closing { await connection.close() }
    }

    // MARK: Lending

    private enum Taken {
        case ready(PostgresPoolTicket)
        case wait(PostgresWaiter<PostgresPoolTicket>)
        case failed(PostgresError)
    }

    /// Gets a connection: an idle one (to be checked by the caller) or a newly opened one (`fresh`).
    private func checkOut() async throws -> (PostgresConnection, fresh: Bool) {
        switch try await ticket() {
        case .connection(let connection):
            return (connection, false)
        case .open:
            let connection: PostgresConnection
            do {
                connection = try await PostgresConnection.open(configuration, observer: observer, valuesObserver: valuesObserver)
            } catch {
                await discard(nil)
                throw error
            }
            state.withLock { $0.opened += 1 }
            return (connection, true)
        }
    }

    private func ticket() async throws -> PostgresPoolTicket {
        switch take() {
        case .ready(let ticket):
            return ticket
        case .failed(let error):
            throw error
        case .wait(let waiter):
            let limit = configuration.connectTimeout
            let size = configuration.poolSize
            let result = await waiter.value(waitingUpTo: limit, on: clock) {
                PostgresError(.timeout, message: "no connection came free within the connect timeout of \(limit.seconds) s (all \(size) of the pool's connections were busy)")
            }
            if case .failure = result { forget(waiter) }
            return try result.get()
        }
    }

    private func take() -> Taken {
        state.withLock { state in
            guard !state.closed else { return .failed(PostgresError(.closed, message: "the PostgreSQL pool was closed")) }
            if let connection = state.idle.popLast() { return .ready(.connection(connection)) }
            if state.open < configuration.poolSize {
                state.open += 1
                state.peak = max(state.peak, state.open)
                return .ready(.open)
            }
            let waiter = PostgresWaiter<PostgresPoolTicket>()
            state.waiters.append(waiter)
            state.queued.insert(ObjectIdentifier(waiter))
            return .wait(waiter)
        }
    }

    /// Takes a connection back: to the first caller in line, else to the idle ones; a broken one is
    /// closed and its place given to the first caller in line.
    private func checkIn(_ connection: PostgresConnection) async {
        let kept = state.withLock { state -> Bool in
            guard !connection.isBroken, !state.closed else { return false }
            if !Self.handOff(.connection(connection), &state) { state.idle.append(connection) }
            return true
        }
        if !kept { await discard(connection) }
    }

    /// Gives up a connection's place (nil: one that never opened).
    private func discard(_ connection: PostgresConnection?) async {
        state.withLock { state in
            state.open -= 1
            if !state.closed, !state.queued.isEmpty {
                state.open += 1
                if !Self.handOff(.open, &state) { state.open -= 1 }
            }
        }
        if let connection { await connection.close() }
    }

    /// Hands a ticket to the first caller in line that is still waiting (under the lock: resolving a waiter
    /// only resumes its continuation, which runs the caller later on its own executor).
    /// - Returns: False when nobody waits.
    private static func handOff(_ ticket: PostgresPoolTicket, _ state: inout State) -> Bool {
        while let waiter = state.waiters.popFirst() {
            guard state.queued.remove(ObjectIdentifier(waiter)) != nil else { continue }  // it left the line
            if waiter.resolve(.success(ticket)) { return true }
        }
        return false
    }

    /// Takes a waiter that left (past its time limit, cancelled) out of the line: O(1), the line compacted once more
    /// than half of it left (amortized O(1) a waiter).
    private func forget(_ waiter: PostgresWaiter<PostgresPoolTicket>) {
        state.withLock { state in
            guard state.queued.remove(ObjectIdentifier(waiter)) != nil else { return }
            if state.waiters.count > 2 * state.queued.count + 64 {
                let queued = state.queued
                state.waiters.keep { queued.contains(ObjectIdentifier($0)) }
            }
        }
    }
}

/// What a caller in line gets: an idle connection, or leave to open one.
enum PostgresPoolTicket: Sendable {
    case connection(PostgresConnection)
    case open
}
