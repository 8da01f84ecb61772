/// A count that tasks can wait for: how many callers joined a refresh flight, how many calls a mock
/// took. It lives inside its owner's ``LockedValue``; ``LockedValue/wait(until:on:)`` parks a task until
/// the count reaches a number, and the owner resumes what ``increment()`` hands back after leaving the
/// lock. Lets a test line callers up instead of guessing with `Task.yield()`.
package struct CountWatch: Sendable {
    /// The count so far.
    package private(set) var count = 0
    private var watchers: [(target: Int, continuation: CheckedContinuation<Void, Never>)] = []

    /// A count of zero with no one waiting.
    package init() {}

    /// Counts one more.
    /// - Returns: The waiters whose number the count reached: resume them once the lock is released.
    package mutating func increment() -> [CheckedContinuation<Void, Never>] {
        count += 1
        guard !watchers.isEmpty else { return [] }
        let reached = count
        defer { watchers.removeAll { $0.target <= reached } }
        return watchers.filter { $0.target <= reached }.map(\.continuation)
    }

    /// Parks a waiter until the count reaches `target`, unless it has.
    /// - Parameters:
    ///   - target: The count to wait for.
    ///   - continuation: The waiter.
    /// - Returns: False when the count has reached `target` already: resume the waiter at once.
    mutating func park(until target: Int, _ continuation: CheckedContinuation<Void, Never>) -> Bool {
        guard count < target else { return false }
        watchers.append((target, continuation))
        return true
    }
}

extension LockedValue {
    /// Waits until a count in the value reaches a number.
    /// - Parameters:
    ///   - target: The number.
    ///   - count: Where the value keeps the count.
    package func wait(until target: Int, on count: WritableKeyPath<Value, CountWatch>) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let parked = withLock { $0[keyPath: count].park(until: target, continuation) }
            if !parked { continuation.resume() }
        }
    }
}
