import Dispatch

/// Runs blocking system calls (`open`, `read`, `fsync`, `rename`, `flock`) on dispatch threads of their
/// own, never on Swift's cooperative pool, so a slow disk delays only the caller that waits on it.
package struct BlockingIO: Sendable {
    private let queue: DispatchQueue
    private static let key = DispatchSpecificKey<String>()

    /// Creates a runner.
    /// - Parameter label: The dispatch queue's label, for debuggers.
    package init(label: String) {
        queue = DispatchQueue(label: label, qos: .utility, attributes: .concurrent)
        queue.setSpecific(key: Self.key, value: label)
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
            queue.async {
                continuation.resume(returning: Result { () throws(Failure) -> T in try body() })
            }
        }
        return try result.get()
    }
}
