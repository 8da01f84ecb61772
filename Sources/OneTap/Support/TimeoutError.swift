/// A call that did not finish within its time limit.
package struct TimeoutError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The limit that passed.
    package let limit: Duration

    /// Creates a timeout error.
    /// - Parameter limit: The limit that passed.
    package init(limit: Duration) { self.limit = limit }

    /// `timed out after 8.0 s`.
    package var description: String { "timed out after \(limit.seconds) s" }
}
