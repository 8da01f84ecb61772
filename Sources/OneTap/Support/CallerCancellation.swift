/// Whether a throw is the caller's cancellation: a `CancellationError`, or any throw in a task that is cancelled (a
/// store, a database driver or a gateway may report the cancellation as an error of its own). The one reading for
/// every place that must tell "the caller went away" from "the call failed": the token vault's store reads, the
/// exchange's and number verification's throws, the verification quota's store.
enum CallerCancellation {
    /// Whether `error` is the caller's cancellation.
    /// - Parameters:
    ///   - error: What the call threw.
    ///   - taskCancelled: Whether the task that made the call is cancelled: `Task.isCancelled` where the reader made
    ///     the call itself (the default), false where it reads another task's result.
    /// - Returns: True for a cancellation.
    static func reads(_ error: any Error, taskCancelled: Bool = Task.isCancelled) -> Bool {
        error is CancellationError || taskCancelled
    }
}
