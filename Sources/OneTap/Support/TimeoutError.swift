/// A call that did not finish within its time limit.
public struct TimeoutError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The limit that passed.
    public let limit: Duration

    /// Creates a timeout error.
    /// - Parameter limit: The limit that passed.
    public init(limit: Duration) { self.limit = limit }

    /// `timed out after 8.0 s`.
    public var description: String { "timed out after \(limit.seconds) s" }
}
