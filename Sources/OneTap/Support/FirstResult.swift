/// Hands the first of several results to one waiter, whichever side produces it first (the work, a time limit,
/// a cancellation): the race `Deadline.run` and `RefreshDeadline.run` settle without a task group, so a side that
/// ignores its cancellation is left behind instead of awaited.
package final class FirstResult<T: Sendable>: Sendable {
    private enum State {
        case waiting
        case installed(CheckedContinuation<Result<T, any Error>, Never>)
        case finished(Result<T, any Error>)
        case done
    }

    private let state = LockedValue<State>(.waiting)

    /// Creates an empty race.
    package init() {}

    /// Waits for the first result (at once when it came already). Call once.
    /// - Returns: The first result handed over.
    package func wait() async -> Result<T, any Error> {
        await withCheckedContinuation { continuation in
            let early = state.withLock { state -> Result<T, any Error>? in
                switch state {
                case .waiting:
                    state = .installed(continuation)
                    return nil
                case .finished(let result):
                    state = .done
                    return result
                case .installed, .done:
                    return nil
                }
            }
            if let early { continuation.resume(returning: early) }
        }
    }

    /// Hands over a result if none was handed over yet.
    /// - Parameter result: The result.
    /// - Returns: Whether this result is the one the waiter gets.
    @discardableResult
    package func resume(_ result: Result<T, any Error>) -> Bool {
        let (waiting, taken) = state.withLock { state -> (CheckedContinuation<Result<T, any Error>, Never>?, Bool) in
            switch state {
            case .waiting:
                state = .finished(result)
                return (nil, true)
            case .installed(let continuation):
                state = .done
                return (continuation, true)
            case .finished, .done:
                return (nil, false)
            }
        }
        waiting?.resume(returning: result)
        return taken
    }
}
