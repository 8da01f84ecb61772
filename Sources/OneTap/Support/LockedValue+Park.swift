extension LockedValue {
    /// Suspends the calling task until its owner resumes the continuation `park` stored (with true), or until the
    /// task is cancelled (false): the one way a wait of the package's counters and test doubles parks a task.
    ///
    /// No cancellation is lost: `park` runs under the lock only while the task is not cancelled, and `unpark` runs
    /// under the same lock when it is. A cancellation that comes before `park` finds nothing to take back, and
    /// `park` then sees it; one that comes after finds the continuation, unless the owner took it first.
    /// - Parameters:
    ///   - park: Under the lock: stores the continuation and returns the other waiters its parking wakes (resumed
    ///     with true once the lock is released; usually none), or returns nil when the wait is over already
    ///     (resumed with true at once). Never called for a cancelled task.
    ///   - unpark: Under the lock, on cancellation: takes the stored continuation back out, or nil when `park` did
    ///     not store it or the owner took it.
    /// - Returns: True when the wait ended (the owner resumed it, or it was over already), false when the task was
    ///   cancelled first.
    package func park(
        _ park: (inout Value, CheckedContinuation<Bool, Never>) -> [CheckedContinuation<Bool, Never>]?,
        unpark: @escaping @Sendable (inout Value) -> CheckedContinuation<Bool, Never>?
    ) async -> Bool {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let parked = withLock { value -> [CheckedContinuation<Bool, Never>]?? in Task.isCancelled ? nil : .some(park(&value, continuation)) }
                switch parked {
                case nil: continuation.resume(returning: false)
                case .some(nil): continuation.resume(returning: true)
                case .some(let woken?): for other in woken { other.resume(returning: true) }
                }
            }
        } onCancel: {
            withLock(unpark)?.resume(returning: false)
        }
    }
}
