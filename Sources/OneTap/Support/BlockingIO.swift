import Dispatch

/// Runs blocking system calls (`open`, `read`, `fsync`, `rename`, `flock`) on dispatch threads of their
/// own, never on Swift's cooperative pool, so a slow disk delays only the caller that waits on it.
///
/// Each call runs on a serial queue of its own: libdispatch gives a serial queue an overcommitting thread (a new one
/// when every thread is busy), where a concurrent queue shares the pool of about one thread per core that Swift's
/// tasks of low priority run on too (on Linux), so a few calls blocked on a slow disk held up every other call and
/// those tasks until libdispatch added a thread, one a second.
package struct BlockingIO: Sendable {
    private let label: String
    private static let key = DispatchSpecificKey<String>()

    /// Creates a runner.
    /// - Parameter label: The dispatch queues' label, for debuggers.
    package init(label: String) {
        self.label = label
    }

    /// The label of the runner whose thread the caller is on, or nil on any other thread (tests check
    /// that blocking calls never run on Swift's cooperative pool).
    package static var currentLabel: String? { DispatchQueue.getSpecific(key: key) }

    /// Runs `body` on the runner's threads and waits for it without blocking the caller's thread.
    /// - Parameter body: The blocking work.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    package func run<T: Sendable, Failure: Error>(_ body: @escaping @Sendable () throws(Failure) -> T) async throws(Failure) -> T {
        let result: Result<T, Failure> = await withCheckedContinuation { continuation in
            submit { continuation.resume(returning: Result { () throws(Failure) -> T in try body() }) }
        }
        return try result.get()
    }

    /// Starts `work` on a serial queue of its own, labelled with the runner's label, and returns at once.
    /// - Parameter work: The blocking work.
    package func submit(_ work: @escaping @Sendable () -> Void) {
        let queue = DispatchQueue(label: label, qos: .utility)
        queue.setSpecific(key: Self.key, value: label)
        queue.async(execute: work)
    }
}
