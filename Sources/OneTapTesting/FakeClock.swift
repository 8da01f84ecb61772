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
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var elapsed: Duration = .zero
        var wall: Date
        var sleepers: [Sleeper] = []
        var nextID = 0
        var watchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
        var totalSleeps = 0
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
        let id = state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // Parked only if not cancelled, under the lock the cancellation handler takes: a cancellation
                // that came before this point ran the handler already, and it found no sleeper to wake.
                let watchers = state.withLock { state -> [CheckedContinuation<Void, Never>]? in
                    if Task.isCancelled { return nil }
                    state.sleepers.append(Sleeper(id: id, deadline: state.elapsed + duration, continuation: continuation))
                    state.totalSleeps += 1
                    let count = state.sleepers.count
                    let ready = state.watchers.filter { $0.count <= count }.map(\.continuation)
                    state.watchers.removeAll { $0.count <= count }
                    return ready
                }
                guard let watchers else { return continuation.resume(throwing: CancellationError()) }
                for watcher in watchers { watcher.resume() }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
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
        for sleeper in woken { sleeper.continuation.resume() }
    }

    /// Sets the wall time without moving sleepers: a device clock that jumps, forwards or backwards.
    /// - Parameter date: The new wall time.
    package func setWallTime(_ date: Date) {
        state.withLock { $0.wall = date }
    }

    /// Waits until at least `count` tasks are sleeping on the clock: call it before ``advance(by:)`` so
    /// the advance does not race the code under test.
    /// - Parameter count: How many sleepers to wait for.
    public func waitForSleepers(_ count: Int = 1) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if state.sleepers.count >= count { return true }
                state.watchers.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }
}
