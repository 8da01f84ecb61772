import OneTap

/// A door tasks wait at until a test opens it; once open, it stays open. A waiter whose task is cancelled
/// leaves at once, so a test that fails before it opens the gate still finishes.
package final class Gate: Sendable {
    private struct State {
        var isOpen = false
        var waiters: [Int: CheckedContinuation<Bool, Never>] = [:]
        var nextWaiter = 0
    }

    private let state = LockedValue(State())

    /// A closed gate.
    package init() {}

    /// Waits until the gate is open, or until the task is cancelled.
    package func wait() async { _ = await passes() }

    /// Waits as ``wait()`` does, and says how it ended.
    /// - Returns: True when the gate opened (or was open), false when the task was cancelled first.
    package func passes() async -> Bool {
        let id = state.withLock { state -> Int in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        return await state.park { state, continuation in
            guard !state.isOpen else { return nil }
            state.waiters[id] = continuation
            return []
        } unpark: { state in
            state.waiters.removeValue(forKey: id)
        }
    }

    /// Opens the gate: every waiter, and every later one, goes on.
    package func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            state.isOpen = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: true) }
    }
}
