#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Why no usable token could be handed out. New kinds may be added; switch with a `default` case.
public struct TokenError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        /// A stable identifier.
        public let id: String
        /// Creates a kind.
        /// - Parameter id: A stable identifier.
        public init(_ id: String) { self.id = id }
        /// A readable form, for messages and logs.
        public var description: String { id }

        /// The store holds no token for the account: log in.
        public static let notLoggedIn = Kind("not-logged-in")
        /// The token expired and cannot be refreshed (no refresh token, or the carrier refused it): log in again.
        public static let reloginRequired = Kind("relogin-required")
        /// The token expired and the refresh failed for a reason that may pass; try again later.
        public static let refreshFailed = Kind("refresh-failed")
        /// The token expired and refreshing is backing off after failures until ``TokenError/retryAt``.
        public static let backingOff = Kind("backing-off")
        /// The account logged out while a refresh was running; the refresh's result was discarded.
        public static let loggedOut = Kind("logged-out")
        /// The token store failed (read or write); the stored token is unchanged.
        public static let storeFailed = Kind("store-failed")
    }

    /// What went wrong.
    public let kind: Kind
    /// The account.
    public let account: AccountID
    /// A human-readable explanation (never a token).
    public let message: String
    /// When a refresh will be tried again, for `backing-off`.
    public let retryAt: Date?

    /// Creates a token error.
    /// - Parameters:
    ///   - kind: What went wrong.
    ///   - account: The account.
    ///   - message: An explanation.
    ///   - retryAt: When refreshing resumes, if backing off.
    public init(_ kind: Kind, account: AccountID, message: String, retryAt: Date? = nil) {
        self.kind = kind
        self.account = account
        self.message = message
        self.retryAt = retryAt
    }

    /// `relogin-required for account 42: the carrier refused the refresh token`.
    public var description: String { "\(kind) for account \(account): \(message)" }
}

/// What a token store reports. New kinds may be added; switch with a `default` case.
public struct TokenStoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        /// A stable identifier.
        public let id: String
        /// Creates a kind.
        /// - Parameter id: A stable identifier.
        public init(_ id: String) { self.id = id }
        /// A readable form, for messages and logs.
        public var description: String { id }

        /// The stored version is not the one the write expected: someone else wrote first; re-read.
        public static let conflict = Kind("conflict")
        /// A stored record is corrupt or not a OneTap token record; it was moved aside.
        public static let corrupt = Kind("corrupt")
        /// A token file can be written by other users; it is not read.
        public static let insecure = Kind("insecure")
        /// A read or write failed (permissions, disk full, I/O error); nothing was changed.
        public static let io = Kind("io")
    }

    /// What went wrong.
    public let kind: Kind
    /// The account.
    public let account: AccountID
    /// An explanation, naming the file for file stores.
    public let message: String

    /// Creates a store error.
    /// - Parameters:
    ///   - kind: What went wrong.
    ///   - account: The account.
    ///   - message: An explanation.
    public init(_ kind: Kind, account: AccountID, message: String) {
        self.kind = kind
        self.account = account
        self.message = message
    }

    /// `conflict for account 42: …`.
    public var description: String { "\(kind) for account \(account): \(message)" }
}
