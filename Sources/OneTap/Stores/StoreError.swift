/// What a token store reports. New kinds may be added; match kinds with a `default` case.
public struct TokenStoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong.
    public struct Kind: ErrorKind {
        /// The stable identifier, e.g. `"conflict"`.
        public let id: String

        private init(_ id: String) { self.id = id }

        /// The stored version is not the one the write expected: someone else wrote first; re-read.
        public static let conflict = Kind("conflict")
        /// A stored record is corrupt or not a OneTap token record; it was moved aside.
        public static let corrupt = Kind("corrupt")
        /// A token file can be read or written by other users, or belongs to another user; it is not read.
        public static let insecure = Kind("insecure")
        /// A read or write failed (permissions, disk full, I/O error, a database that is down); nothing
        /// was changed.
        public static let io = Kind("io")
        /// The token's record would be larger than ``TokenRecordLimit/bytes`` (64 KiB); it was not stored.
        public static let tooLarge = Kind("too-large")
        /// Another process held the account's write lock for longer than the store's lock time-out;
        /// nothing was changed.
        public static let lockTimeout = Kind("lock-timeout")
    }

    /// What went wrong.
    public let kind: Kind
    /// The account, or nil when the failure concerns the store as a whole (opening it, listing it).
    public let account: AccountID?
    /// An explanation, naming the file for file stores; never a token.
    public let message: String

    /// Creates a store error (for store adapters outside OneTap).
    /// - Parameters:
    ///   - kind: What went wrong.
    ///   - account: The account, if the failure concerns one.
    ///   - message: An explanation, without secrets.
    public init(_ kind: Kind, account: AccountID?, message: String) {
        self.kind = kind
        self.account = account
        self.message = message
    }

    /// `conflict for account 42: …`, or `io: …` for the store as a whole.
    public var description: String {
        "\(kind)\(account.map { " for account \($0)" } ?? ""): \(message)"
    }
}
