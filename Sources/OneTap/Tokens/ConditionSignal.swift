/// A condition someone waits for, re-checked whenever ``check()`` is called (or the waiter is cancelled):
/// how ``TokenVault/run()`` waits for the refreshes under way to answer before it stops.
///
/// States: no waiter, or waiters parked until the next ``check()``. Every ``check()`` starts a new
/// generation and wakes them all; each re-evaluates its condition and parks again if it still does not
/// hold. A check that comes while a waiter is evaluating its condition bumps the generation, so the
/// waiter re-checks instead of parking: no wake-up is lost.
package final class ConditionSignal: Sendable {
    private struct State {
        var generation = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
        /// Those waiting for a waiter to park (``waitForAWaiter()``), by id.
        var watchers: [(id: Int, continuation: CheckedContinuation<Bool, Never>)] = []
        var lastWatcher = 0
    }

    private let state = LockedValue(State())

    /// Creates a signal with no waiter.
    package init() {}

    /// Waits until `condition` holds, re-checking it after every ``check()``; returns at once when the
    /// task is cancelled.
    /// - Parameter condition: What to wait for; evaluated at once, then after every ``check()``.
    package func wait(until condition: @Sendable () async -> Bool) async {
        while !Task.isCancelled {
            let seen = state.withLock { $0.generation }
            if await condition() { return }
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let (now, watchers) = state.withLock { state -> (Bool, [CheckedContinuation<Bool, Never>]) in
                        if state.generation != seen { return (true, []) }
                        state.waiters.append(continuation)
                        defer { state.watchers = [] }
                        return (false, state.watchers.map(\.continuation))
                    }
                    if now { continuation.resume() }
                    for watcher in watchers { watcher.resume(returning: true) }
                }
            } onCancel: {
                check()
            }
        }
    }

    /// Returns once a waiter is parked, its condition not holding (or when the task is cancelled): lets a test
    /// see that a wait has begun instead of guessing.
    package func waitForAWaiter() async {
        let id = state.withLock { state in
            state.lastWatcher += 1
            return state.lastWatcher
        }
        _ = await state.park { state, continuation in
            guard state.waiters.isEmpty else { return nil }
            state.watchers.append((id, continuation))
            return []
        } unpark: { state in
            guard let index = state.watchers.firstIndex(where: { $0.id == id }) else { return nil }
            return state.watchers.remove(at: index).continuation
        }
    }

    /// Wakes every waiter to re-check its condition.
    package func check() {
        let woken = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.generation &+= 1
            defer { state.waiters = [] }
            return state.waiters
        }
        for continuation in woken { continuation.resume() }
    }
}
