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
        /// A kind that is no data kind (1 to 64 lowercase ASCII letters, digits, hyphens and underscores,
        /// as the kinds of `Data/merge-rules.csv`); nothing was written.
        public static let invalidKind = Kind("invalid-kind")
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

    /// Refuses a text that is not a data kind: what every store's `write` and `remove` check first, so
    /// every store holds the same kinds (ASCII only, so no store can tell apart two kinds another takes
    /// for one, and every kind fits a database index).
    /// - Parameter kind: The kind.
    /// - Throws: ``GuestDataStoreError`` of kind `invalid-kind`, naming the kind (quoted and escaped) and the rule.
    public static func check(kind: String) throws(GuestDataStoreError) {
        if let problem = MergeRules.problem(kind) { throw GuestDataStoreError(.invalidKind, message: problem + "; nothing was written") }
    }
}
