/// What a guest-data store reports. New kinds may be added; match kinds with a `default` case.
public struct GuestDataStoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong.
    public struct Kind: ErrorKind {
        /// The stable identifier, e.g. `"io"`.
        public let id: String

        private init(_ id: String) { self.id = id }

        /// The store failed (a database that is down); nothing was written.
        public static let io = Kind("io")
        /// Stored data cannot be read back.
        public static let corrupt = Kind("corrupt")
    }

    /// What went wrong.
    public let kind: Kind
    /// An explanation.
    public let message: String

    /// Creates a store error (for store adapters outside OneTap).
    /// - Parameters:
    ///   - kind: What went wrong.
    ///   - message: An explanation.
    public init(_ kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    /// `io: …`.
    public var description: String { "\(kind): \(message)" }
}
