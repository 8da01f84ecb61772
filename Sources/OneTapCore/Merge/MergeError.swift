/// A guest's or an account's data that does not have the shape its kind's rule reads.
public struct MergeError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Whose data.
    public enum Side: String, Hashable, Sendable, CustomStringConvertible {
        /// The guest's.
        case guest
        /// The account's.
        case account

        /// `guest` or `account`.
        public var description: String { rawValue }
    }

    /// The kind.
    public let kind: String
    /// Whose data.
    public let side: Side
    /// What is wrong.
    public let message: String

    init(kind: String, side: Side, _ message: String) {
        self.kind = kind
        self.side = side
        self.message = message
    }

    /// `the guest's history: entry 2 is not …`.
    public var description: String { "the \(side)'s \(kind): \(message)" }
}
