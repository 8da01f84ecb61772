/// Why no usable token could be handed out, or why a refresh failed. New kinds may be added; match kinds
/// with a `default` case.
///
/// A ``TokenRefresher`` throws one of kind `relogin-required` when the carrier refused the refresh token;
/// any other error it throws (of another kind, or of another type) is a failure that may pass.
public struct TokenError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong.
    package typealias Kind = ErrorKind<TokenError>

    /// What went wrong.
    public let kind: ErrorKind<TokenError>
    /// The account, or nil when the failure concerns no single account (listing the due accounts).
    public let account: AccountID?
    /// A human-readable explanation (never a token).
    public let message: String
    /// When a refresh will be tried again, for `backing-off` and `refresh-failed`.
    public let retryAt: Date?

    /// Creates a token error (a ``TokenRefresher`` makes one of kind `relogin-required` when the carrier
    /// refused the refresh token).
    /// - Parameters:
    ///   - kind: What went wrong.
    ///   - account: The account, if the failure concerns one.
    ///   - message: An explanation, without a token (the carrier's code and message, for a refresher).
    ///   - retryAt: When refreshing resumes, if backing off.
    public init(_ kind: ErrorKind<TokenError>, account: AccountID? = nil, message: String, retryAt: Date? = nil) {
        self.kind = kind
        self.account = account
        self.message = message
        self.retryAt = retryAt
    }

    /// `relogin-required for account 42: the carrier refused the refresh token`.
    public var description: String {
        "\(kind)\(account.map { " for account \($0)" } ?? ""): \(message)"
    }
}

extension ErrorKind where Failure == TokenError {
    /// The store holds no token for the account: log in.
    public static let notLoggedIn = Self("not-logged-in")
    /// The token expired and cannot be refreshed (no refresh token, or the carrier refused it): log in again.
    /// What a ``TokenRefresher`` throws when the carrier refused the refresh token.
    public static let reloginRequired = Self("relogin-required")
    /// The token expired and the refresh failed for a reason that may pass; try again later.
    public static let refreshFailed = Self("refresh-failed")
    /// The token expired and refreshing is backing off after failures until ``TokenError/retryAt``.
    public static let backingOff = Self("backing-off")
    /// The account logged out while a refresh was running; the refresh's result was discarded.
    public static let loggedOut = Self("logged-out")
    /// The token store failed (read or write); the stored token is unchanged.
    public static let storeFailed = Self("store-failed")
    /// The token expired and must be refreshed, but the vault is not running (call ``TokenVault/run()``)
    /// or is shutting down, so no refresh can happen now.
    public static let notRunning = Self("not-running")
    /// ``TokenVault/run()`` was called on a vault that is running or has run: a vault runs once.
    public static let alreadyRunning = Self("already-running")
}
