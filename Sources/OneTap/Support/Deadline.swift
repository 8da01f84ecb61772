/// Runs an operation with a time limit on an injected clock.
///
/// Unlike a task group, this returns when the limit passes even if the operation ignores cancellation
/// (a carrier SDK that never calls back): the operation is cancelled and left to finish on its own. When
/// the calling task is cancelled, the operation is cancelled and `CancellationError` is thrown at once.
enum Deadline {
    /// Runs `operation`, giving up after `limit`.
    /// - Parameters:
    ///   - limit: The time limit; `nil` waits as long as it takes (cancellation still ends it).
    ///   - clock: The clock that measures it.
    ///   - late: Called with the operation's result when it finishes after the caller gave up on it (a
    ///     refresh whose answer came too late may still have rotated a token).
    ///   - lift: Once lifted (before the limit passes), the limit gives way to the lift's own, counted from the end
    ///     of the first (a one-tap SDK whose page is shown waits for the user), or to none.
    ///   - operation: The work.
    /// - Returns: What the operation returned.
    /// - Throws: ``TimeoutError`` when the limit passed, `CancellationError` when the caller was
    ///   cancelled (before the operation started: it never ran), or what the operation threw.
    static func run<T: Sendable>(
        limit: Duration?, clock: any WallClock, late: (@Sendable (Result<T, any Error>) -> Void)? = nil, lift: Lift? = nil,
        _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        // A caller already cancelled starts nothing (the work's task would not inherit the cancellation).
        try Task.checkCancellation()
        let once = FirstResult<T>()
        let work = Task {
            let result: Result<T, any Error>
            do {
                result = .success(try await operation())
            } catch {
                result = .failure(error)
            }
            if !once.resume(result) { late?(result) }
        }
        let timer: Task<Void, Never>? = limit.map { limit in
            Task {
                do {
                    try await clock.sleep(for: limit)
                    if let lift, lift.isLifted {
                        guard let more = lift.limit else { return }  // as long as it takes
                        try await clock.sleep(for: more)
                        once.resume(.failure(TimeoutError(limit: limit + more)))
                    } else {
                        once.resume(.failure(TimeoutError(limit: limit)))
                    }
                } catch {
                    // Cancelled: the work finished first.
                }
            }
        }
        defer {
            work.cancel()
            timer?.cancel()
        }
        return try await withTaskCancellationHandler {
            try await once.wait().get()
        } onCancel: {
            once.resume(.failure(CancellationError()))
            work.cancel()  // at once, so work not yet started sees it (a one-tap SDK is then not called)
        }
    }

    /// What gives a run's limit way to a longer one once lifted; lifting it after the limit passed changes nothing.
    final class Lift: Sendable {
        private let lifted = LockedValue(false)
        /// The limit that follows the run's own once lifted; nil for none.
        let limit: Duration?

        /// Creates a lift.
        /// - Parameter limit: The limit that follows the run's own once lifted; nil for none.
        init(then limit: Duration?) {
            self.limit = limit
        }

        /// Whether it was lifted.
        var isLifted: Bool { lifted.withLock { $0 } }

        /// Gives the run's limit way to ``limit``.
        func lift() {
            lifted.withLock { $0 = true }
        }
    }
}
