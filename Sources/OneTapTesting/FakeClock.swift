import OneTap

/// A clock that moves only when told to: deterministic tests of timeouts, back-off, cool-downs and token
/// ages.
///
/// Sleepers wake in deadline order when ``advance(by:)`` passes their deadline. Wall time
/// (``now()``) follows the same advances, and can also be set on its own, backwards too, to test a
/// device clock that jumps; that never wakes or delays sleepers.
public final class FakeClock: WallClock {
    private struct Sleeper {
        let id: Int
        let deadline: Duration
        let continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var elapsed: Duration = .zero
        var wall: Date
        var sleepers: [Sleeper] = []
        var nextID = 0
        var watchers: [(id: Int, count: Int, continuation: CheckedContinuation<Bool, Never>)] = []
        var totalSleeps = 0
        /// Run by every sleep as it starts, before it parks (``whenASleepStarts(_:)``).
        var sleepStarts: (@Sendable () -> Void)?
    }

    private let state: LockedValue<State>

    /// 2026-12-01T00:00:00Z, the default starting time.
    public static let epoch = Date(timeIntervalSince1970: 1_796_083_200)

    /// Creates a clock.
    /// - Parameter now: The starting wall time.
    public init(now: Date = FakeClock.epoch) {
        state = LockedValue(State(wall: now))
    }

    /// The current wall time.
    /// - Returns: The time the clock was set or advanced to.
    public func now() -> Date {
        state.withLock { $0.wall }
    }

    /// How much time ``advance(by:)`` has moved in total.
    package var elapsed: Duration { state.withLock { $0.elapsed } }

    /// How many tasks are sleeping on the clock now.
    package var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// How many sleeps have started, ever (finished ones included).
    package var totalSleeps: Int { state.withLock { $0.totalSleeps } }

    /// Suspends until the clock is advanced past `duration` from now.
    /// - Parameter duration: How long to wait; zero or negative returns at once.
    /// - Throws: `CancellationError` when the task is cancelled while waiting.
    public func sleep(for duration: Duration) async throws {
        try Task.checkCancellation()
        guard duration > .zero else { return }
        let (id, starts) = state.withLock { state -> (Int, (@Sendable () -> Void)?) in
            state.nextID += 1
            return (state.nextID, state.sleepStarts)
        }
        starts?()
        // Parked, it wakes those waiting for this many sleepers.
        let woken = await state.park { state, continuation in
            state.sleepers.append(Sleeper(id: id, deadline: state.elapsed + duration, continuation: continuation))
            state.totalSleeps += 1
            let count = state.sleepers.count
            defer { state.watchers.removeAll { $0.count <= count } }
            return state.watchers.filter { $0.count <= count }.map(\.continuation)
        } unpark: { state in
            guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
            return state.sleepers.remove(at: index).continuation
        }
        guard woken else { throw CancellationError() }
    }

    /// Runs `body` in every sleep as it starts, after its first check for cancellation and before it parks: a
    /// test cancels the sleeping task there, the moment a cancellation used to be lost.
    /// - Parameter body: What to run (in the sleeping task); nil to stop.
    package func whenASleepStarts(_ body: (@Sendable () -> Void)?) {
        state.withLock { $0.sleepStarts = body }
    }

    /// Moves time forward, waking every sleeper whose deadline passed, soonest first.
    /// - Parameter duration: How far; negative is treated as zero.
    public func advance(by duration: Duration) {
        let woken = state.withLock { state -> [Sleeper] in
            let step = max(duration, .zero)
            state.elapsed += step
            state.wall = state.wall.addingTimeInterval(Double(step.components.seconds) + Double(step.components.attoseconds) / 1e18)
            let due = state.sleepers.filter { $0.deadline <= state.elapsed }.sorted { $0.deadline < $1.deadline || ($0.deadline == $1.deadline && $0.id < $1.id) }
            state.sleepers.removeAll { $0.deadline <= state.elapsed }
            return due
        }
        for sleeper in woken { sleeper.continuation.resume(returning: true) }
    }

    /// Sets the wall time without moving sleepers: a device clock that jumps, forwards or backwards.
    /// - Parameter date: The new wall time.
    package func setWallTime(_ date: Date) {
        state.withLock { $0.wall = date }
    }

    /// Moves the clock on by `step`, letting a little real time pass each time, until `task` ends: for a task
    /// that polls on the clock in a loop of its own beside other sleepers (a time limit) whose time must pass too. No
    /// real-time bound of its own (a suite's time limit bounds it).
    /// - Parameters:
    ///   - step: How far to move the clock each time (the task's poll interval).
    ///   - task: The task.
    /// - Returns: How the task ended.
    package func advance<T: Sendable>(by step: Duration, until task: Task<T, any Error>) async -> Result<T, any Error> {
        await moving(by: step, until: task) { true }
    }

    /// Moves the clock on by `step` only while a task sleeps on it, until `task` ends: for a task that is the clock's
    /// only sleeper, so the time it reads is what its own sleeps made pass, however late it runs on a loaded machine.
    /// No real-time bound of its own (a suite's time limit bounds it).
    /// - Parameters:
    ///   - step: How far to move the clock each time.
    ///   - task: The task.
    /// - Returns: How the task ended.
    package func step<T: Sendable>(by step: Duration, until task: Task<T, any Error>) async -> Result<T, any Error> {
        await moving(by: step, until: task) { self.sleeperCount > 0 }
    }

    private func moving<T: Sendable>(by step: Duration, until task: Task<T, any Error>, when: @escaping @Sendable () -> Bool) async -> Result<T, any Error> {
        let finished = LockedValue(false)
        let watcher = Task {
            let result = await task.result
            finished.withLock { $0 = true }
            return result
        }
        while !finished.withLock({ $0 }) {
            if when() { advance(by: step) }
            do {
                try await Task.sleep(for: .milliseconds(2))
            } catch {
                task.cancel()   // the caller went away: so does the task it watched
                break
            }
        }
        return await watcher.value
    }

    /// Waits until at least `count` tasks sleep on the clock, or `task` has ended (a task that answered without
    /// waiting, as a bug under test may): no real-time bound of its own (a suite's time limit bounds it).
    /// - Parameters:
    ///   - count: How many sleepers to wait for.
    ///   - task: The task whose end also ends the wait.
    package func waitForSleepers<T: Sendable>(_ count: Int, orEndOf task: Task<T, any Error>) async {
        let finished = LockedValue(false)
        let watcher = Task {
            _ = await task.result
            finished.withLock { $0 = true }
        }
        defer { watcher.cancel() }
        while sleeperCount < count, !finished.withLock({ $0 }) {
            do { try await Task.sleep(for: .milliseconds(1)) } catch { return }
        }
    }

    /// Waits until at least `count` tasks are sleeping on the clock: call it before ``advance(by:)`` so
    /// the advance does not race the code under test. Returns at once when the task is cancelled.
    /// - Parameter count: How many sleepers to wait for.
    public func waitForSleepers(_ count: Int = 1) async {
        let id = state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        _ = await state.park { state, continuation in
            guard state.sleepers.count < count else { return nil }
            state.watchers.append((id, count, continuation))
            return []
        } unpark: { state in
            guard let index = state.watchers.firstIndex(where: { $0.id == id }) else { return nil }
            return state.watchers.remove(at: index).continuation
        }
    }
}
