/// A count that tasks can wait for: how many callers joined a refresh flight, how many calls a mock
/// took. It lives inside its owner's ``LockedValue``; ``LockedValue/wait(until:on:)`` parks a task until
/// the count reaches a number, and the owner resumes what ``increment()`` hands back after leaving the
/// lock. Lets a test line callers up instead of guessing with `Task.yield()`.
package struct CountWatch: Sendable {
    /// The count so far.
    package private(set) var count = 0
    private var watchers: [(id: Int, target: Int, continuation: CheckedContinuation<Bool, Never>)] = []
    private var nextWatcher = 0

    /// A count of zero with no one waiting.
    package init() {}

    /// Counts one more.
    /// - Returns: The waiters whose number the count reached: resume them (with true) once the lock is released.
    package mutating func increment() -> [CheckedContinuation<Bool, Never>] {
        count += 1
        guard !watchers.isEmpty else { return [] }
        let reached = count
        defer { watchers.removeAll { $0.target <= reached } }
        return watchers.filter { $0.target <= reached }.map(\.continuation)
    }

    /// Parks a waiter until the count reaches `target`, unless it has.
    /// - Parameters:
    ///   - target: The count to wait for.
    ///   - id: The waiter's id (``newWatcher()``), to take it back out when it is cancelled.
    ///   - continuation: The waiter.
    /// - Returns: False when the count has reached `target` already: resume the waiter at once.
    mutating func park(until target: Int, id: Int, _ continuation: CheckedContinuation<Bool, Never>) -> Bool {
        guard count < target else { return false }
        watchers.append((id, target, continuation))
        return true
    }

    /// A new waiter's id.
    mutating func newWatcher() -> Int {
        nextWatcher += 1
        return nextWatcher
    }

    /// Takes a cancelled waiter back out.
    /// - Parameter id: Its id.
    /// - Returns: Its continuation, unless it was resumed or never parked.
    mutating func unpark(_ id: Int) -> CheckedContinuation<Bool, Never>? {
        guard let index = watchers.firstIndex(where: { $0.id == id }) else { return nil }
        return watchers.remove(at: index).continuation
    }
}

extension LockedValue {
    /// Waits until a count in the value reaches a number, or until the task is cancelled.
    /// - Parameters:
    ///   - target: The number.
    ///   - count: Where the value keeps the count.
    package func wait(until target: Int, on count: any WritableKeyPath<Value, CountWatch> & Sendable) async {
        let id = withLock { $0[keyPath: count].newWatcher() }
        _ = await park { value, continuation in value[keyPath: count].park(until: target, id: id, continuation) ? [] : nil } unpark: { value in
            value[keyPath: count].unpark(id)
        }
    }
}
