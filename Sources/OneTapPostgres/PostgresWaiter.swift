import OneTap

/// A caller waiting in a line of this process (the pool's for a connection, the counter gate's for its counters):
/// resolved once, by the line's owner (what it waited for), its time limit or its cancellation, whichever comes
/// first. Kept under a lock, so that a cancelled caller leaves from its cancellation handler without a task of its
/// own.
final class PostgresWaiter<Value: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Result<Value, any Error>, Never>? = nil
        var result: Result<Value, any Error>? = nil
    }

    private let state = LockedValue(State())

    /// Resolves the waiter, once.
    /// - Parameter result: What the caller gets.
    /// - Returns: Whether this result is the one the caller gets.
    func resolve(_ result: Result<Value, any Error>) -> Bool {
        let (continuation, won) = state.withLock { state -> (CheckedContinuation<Result<Value, any Error>, Never>?, Bool) in
            guard state.result == nil else { return (nil, false) }
            state.result = result
            defer { state.continuation = nil }
            return (state.continuation, true)
        }
        continuation?.resume(returning: result)
        return won
    }

    /// Waits for the resolution, at most `limit` on `clock`: past it the waiter is resolved with `timeout()`'s error.
    /// The caller's cancellation resolves it with `CancellationError`. The limit's sleep is a child task of the caller's,
    /// ended when the wait ends.
    /// - Parameters:
    ///   - limit: The longest wait.
    ///   - clock: The clock the limit is measured on.
    ///   - timeout: The error of a wait past its limit.
    /// - Returns: What the waiter was resolved with.
    func value(waitingUpTo limit: Duration, on clock: any WallClock, timeout: @escaping @Sendable () -> any Error) async -> Result<Value, any Error> {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                do { try await clock.sleep(for: limit) } catch { return }
                _ = self.resolve(.failure(timeout()))
            }
            let result = await value()
            group.cancelAll()
            return result
        }
    }

    /// Waits for the resolution; cancelling the caller resolves it with `CancellationError`.
    private func value() async -> Result<Value, any Error> {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<Value, any Error>, Never>) in
                let ready = state.withLock { state -> Result<Value, any Error>? in
                    if let result = state.result { return result }
                    state.continuation = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            _ = resolve(.failure(CancellationError()))
        }
    }
}
