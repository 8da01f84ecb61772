/// What a store reports: every store OneTap ships (tokens, login sessions, the exchange ledger, SMS,
/// guest data, app sessions, accounts, in memory, on disk or on PostgreSQL) throws this one error, and so should
/// an adapter for another database. New kinds may be added; match kinds with a `default` case.
public struct StoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong.
    package typealias Kind = ErrorKind<StoreError>

    /// What a failure concerns, as its description names it: `account 42`, `session q3Vn…`.
    package struct Entry: Hashable, Sendable, CustomStringConvertible {
        /// The subject as the error's description names it.
        package let description: String

        /// Names a subject.
        /// - Parameter description: What the failure concerns, e.g. `"device 7"`; never a secret.
        package init(_ description: String) { self.description = description }

        /// An account's token.
        /// - Parameter account: The account.
        /// - Returns: `account 42`.
        package static func account(_ account: AccountID) -> Entry { Entry("account \(account)") }

        /// A login session.
        /// - Parameter id: The session's id.
        /// - Returns: `session q3Vn…`.
        package static func session(_ id: LoginSessionID) -> Entry { Entry("session \(id)") }

        /// An app session.
        /// - Parameter id: The app session's id.
        /// - Returns: `app session q3Vn…`.
        package static func appSession(_ id: AppSessionID) -> Entry { Entry("app session \(id)") }

        /// A phone number in the account directory, masked: the whole number is never in an error.
        /// - Parameter number: The number.
        /// - Returns: `number 138****8000`.
        package static func number(_ number: PhoneNumber) -> Entry { Entry("number \(number.masked)") }
    }

    /// What went wrong.
    public let kind: ErrorKind<StoreError>
    /// What the failure concerns, or nil when it concerns the store as a whole (opening it, listing it)
    /// or the message names it.
    package let entry: Entry?
    /// An explanation, naming the file or the table where one is involved; never a token, a code or a
    /// digest of one.
    public let message: String

    /// Creates a store error (for store adapters outside OneTap).
    /// - Parameters:
    ///   - kind: What went wrong.
    ///   - subject: What the failure concerns, if one thing, as the description names it (`"account 42"`,
    ///     `"device 7"`); never a secret.
    ///   - message: An explanation, without secrets.
    public init(_ kind: ErrorKind<StoreError>, subject: String? = nil, message: String) {
        self.init(kind, subject: subject.map(Entry.init), message: message)
    }

    /// Creates a store error about one of OneTap's records (``Entry/account(_:)`` and the like).
    package init(_ kind: Kind, subject: Entry?, message: String) {
        self.kind = kind
        entry = subject
        self.message = message
    }

    /// What the failure concerns, as the description names it (`account 42`, `session q3Vn…`,
    /// `number 138****8000`), or nil when it concerns the store as a whole (opening it, listing it) or the
    /// message names it.
    public var subject: String? { entry?.description }

    /// Creates a store error about an account's token, or the store as a whole.
    package init(_ kind: Kind, account: AccountID?, message: String) {
        self.init(kind, subject: account.map(Entry.account), message: message)
    }

    /// Creates a store error about a login session, or the store as a whole.
    package init(_ kind: Kind, session: LoginSessionID?, message: String) {
        self.init(kind, subject: session.map(Entry.session), message: message)
    }

    /// `conflict for account 42: …`, or `io: …` for the store as a whole.
    public var description: String {
        "\(kind)\(entry.map { " for \($0)" } ?? ""): \(message)"
    }
}

extension ErrorKind where Failure == StoreError {
    /// A compare-and-swap write found another version than it expected: someone else wrote first;
    /// nothing was written. Read again.
    public static let conflict = Self("conflict")
    /// A record with the key exists already; nothing was written.
    public static let duplicate = Self("duplicate")
    /// No record has the key; nothing was written.
    public static let notFound = Self("not-found")
    /// A stored record cannot be read back (damaged, or not one OneTap wrote); it was left as it is or
    /// moved aside, never overwritten.
    public static let corrupt = Self("corrupt")
    /// A read or write failed (permissions, a full disk, a database that is down); nothing was
    /// changed, unless the message says the outcome of a write is unknown.
    public static let io = Self("io")
    /// The store did not answer in time (a lock or a row another writer held for too long, a
    /// statement past its time limit); nothing was changed.
    public static let timeout = Self("timeout")
    /// A stored file can be read or written by other users, or belongs to another user; it is not read.
    public static let insecure = Self("insecure")
    /// The record would be larger than the store keeps (a token's record over 64 KiB, or a token dated outside
    /// 1970 … 9999, or with an empty access token: ``TokenRecordLimit``; a guest-data value nested deeper than 512 levels, or holding a number JSON
    /// has no text for: ``StoreError/check(dataValue:kind:)``); it was not stored.
    public static let tooLarge = Self("too-large")
    /// A guest-data kind that is no data kind (``StoreError/check(dataKind:)``); nothing was written.
    public static let invalidKind = Self("invalid-kind")
    /// The store's configuration (a database URL, a schema name, a pool size, a time limit, a key) is not
    /// valid; nothing was tried.
    public static let invalidConfiguration = Self("invalid-configuration")
    /// The database holds a schema a newer version of OneTap migrated; nothing was changed (it is never
    /// rolled back): run the newer version.
    public static let incompatibleSchema = Self("incompatible-schema")
}

extension StoreError {
    /// Whether a write that failed so may still have gone in: an `io` failure whose outcome is unknown (a connection
    /// lost after the commit), or a database's `timeout` past its deadline with the statement sent. A caller that must
    /// know reads the record back.
    package var writeMayHaveGoneIn: Bool { kind == .io || kind == .timeout }
}
