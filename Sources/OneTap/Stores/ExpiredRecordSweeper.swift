/// Removes the expired records of the stores it is given, on an interval, in batches: a long-running
/// service in the shape of swift-service-lifecycle's `Service` (as ``TokenVault/run()``).
///
/// The in-memory stores otherwise drop what expired only as they write (a quiet store keeps it), and a
/// database's rows stay until someone deletes them. Run one sweeper per process beside the server:
///
/// ```swift
/// let sweeper = ExpiredRecordSweeper(stores: stores.sweptStores())   // InMemoryStores or PostgresStores
/// try await withThrowingDiscardingTaskGroup { group in
///     group.addTask { await sweeper.run() }   // until the group is cancelled
///     group.addTask { try await vault.run() }
///     group.addTask { await sessions.run() }  // AppSessions: the guest merges no call of their own finished
///     …
/// }
/// ```
///
/// - Each store is swept on its own child task, every ``interval``: a slow or failing store never holds
///   the others back.
/// - A round removes what expired before the clock's now, ``batchSize`` records per call, until a call
///   removes fewer (nothing more has expired) or ``maxBatchesPerRound`` calls were made (the rest waits
///   for the next round, so one huge backlog does not hold a store's lock or connection for long). A round
///   that made all its calls, each full, is followed by the next after ``backlogPause`` (1 s) rather than
///   the interval: a table filled faster than a round a minute drains (100,000 rows by default; a database's,
///   which no write sweeps) is drained as fast as it fills, a second's rest between rounds.
/// - A round that removed records emits ``StoreEvent/swept(store:removed:)``; a store that fails emits
///   ``StoreEvent/sweepFailed(store:removed:reason:)`` and is tried again the next round.
/// - Cancelling the task that runs ``run()`` ends it promptly: between two batches, or in the sleep.
///
/// Time comes from the injected ``WallClock`` (what expired, and the waits between rounds).
public struct ExpiredRecordSweeper: Sendable {
    /// The stores it sweeps.
    package let stores: [SweptStore]
    /// The time between one round of a store and its next: 60 seconds by default.
    package let interval: Duration
    /// The most records one call removes: 1,000 by default.
    package let batchSize: Int
    /// The most calls of one store in one round: 100 by default.
    package let maxBatchesPerRound: Int
    private let clock: any WallClock
    private let events: any EventSink

    /// Creates a sweeper.
    /// - Parameters:
    ///   - stores: The stores to sweep (``SweptStore``).
    ///   - interval: The time between one round of a store and its next; 60 seconds. Less than a
    ///     millisecond counts as one millisecond.
    ///   - batchSize: The most records one call removes; 1,000. Less than 1 counts as 1.
    ///   - maxBatchesPerRound: The most calls of one store in one round; 100. Less than 1 counts as 1.
    ///   - clock: The time source: what expired, and the waits.
    ///   - events: Receives the store events (area `store`); standard error by default.
    public init(
        stores: [SweptStore], interval: Duration = .seconds(60), batchSize: Int = 1000, maxBatchesPerRound: Int = 100,
        clock: any WallClock = SystemClock(), events: any EventSink = StandardErrorEventSink.shared
    ) {
        self.stores = stores
        self.interval = max(interval, .milliseconds(1))
        self.batchSize = max(1, batchSize)
        self.maxBatchesPerRound = max(1, maxBatchesPerRound)
        self.clock = clock
        self.events = events
    }

    /// Sweeps every store at once, then again every ``interval``, until the calling task is cancelled;
    /// then returns (a store's error never ends it: it is an event). With no stores it waits for the
    /// cancellation.
    public func run() async {
        guard !stores.isEmpty else {
            while true {
                do { try await clock.sleep(for: interval) } catch { return }
            }
        }
        await withDiscardingTaskGroup { group in
            for store in stores {
                group.addTask { await self.sweepUntilCancelled(store) }
            }
        }
    }

    /// One round of every store, one after the other (tools and tests; ``run()`` sweeps each store on its own task).
    /// - Returns: How many records each store's round removed, by the store's name (a failed store: what it
    ///   removed before failing).
    package func sweepOnce() async -> [String: Int] {
        var removed: [String: Int] = [:]
        for store in stores { removed[store.name, default: 0] += await round(store).removed }
        return removed
    }

    /// The pause after a round that reached its limit (``maxBatchesPerRound`` full batches): 1 s, or the interval
    /// when that is shorter.
    package var backlogPause: Duration { min(interval, .seconds(1)) }

    private func sweepUntilCancelled(_ store: SweptStore) async {
        while !Task.isCancelled {
            let backlog = await round(store).reachedItsLimit
            do { try await clock.sleep(for: backlog ? backlogPause : interval) } catch { return }
        }
    }

    /// One round of one store: batches until one comes back short, the round's limit, cancellation or a failure.
    /// - Returns: How many records it removed, and whether it reached its limit (every call of the round full: a
    ///   backlog).
    private func round(_ store: SweptStore) async -> (removed: Int, reachedItsLimit: Bool) {
        let now = clock.now()
        var removed = 0
        var full = 0
        for _ in 0..<maxBatchesPerRound {
            guard !Task.isCancelled else { break }
            let batch: Int
            do {
                batch = try await store.removeExpired(now, batchSize)
            } catch {
                if Task.isCancelled, error is CancellationError { break }
                emit(.sweepFailed(store: store.name, removed: removed, reason: PhoneNumber.maskingNumbers(in: "\(error)", limit: 200)))
                return (removed, false)
            }
            removed += max(0, batch)
            if batch < batchSize { break }
            full += 1
            await Task.yield()
        }
        if removed > 0 { emit(.swept(store: store.name, removed: removed)) }
        return (removed, full == maxBatchesPerRound)
    }

    private func emit(_ event: StoreEvent) {
        events.receive(OneTapEvent(at: clock.now(), .store(event)))
    }
}
