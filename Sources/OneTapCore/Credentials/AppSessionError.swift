/// Why an app session's credential was refused. Every kind but `dormant-number` is a 401 to the app: it opens a new
/// guest session (or logs in again). `dormant-number` is 403: the server's account step went to
/// `AppSessions.loggedIn(_:as:flow:)` before the account's second factor passed. New kinds may be added; match kinds
/// with a `default` case.
public struct AppSessionError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong.
    package typealias Kind = ErrorKind<AppSessionError>

    /// What went wrong.
    public let kind: ErrorKind<AppSessionError>
    /// The app session the credential named, when it named one (not a secret, and not proof: a claim);
    /// the error's ``description`` carries it.
    package let session: AppSessionID?
    /// A human-readable explanation (never a token).
    public let message: String

    package init(_ kind: Kind, session: AppSessionID?, _ message: String) {
        self.kind = kind
        self.session = session
        self.message = message
    }

    /// `revoked (app session Ab…): the session was logged out`.
    public var description: String {
        "\(kind)\(session.map { " (app session \($0))" } ?? ""): \(message)"
    }
}

extension ErrorKind where Failure == AppSessionError {
    /// The access token is not valid: malformed, forged, signed by a key the server no longer has, or
    /// expired (the message says which; the app refreshes when it expired).
    public static let unauthenticated = Self("unauthenticated")
    /// The refresh token is not one this server issued for the session it names (or its key was retired).
    public static let invalid = Self("invalid")
    /// The refresh token expired (30 days without a refresh, by default).
    public static let expired = Self("expired")
    /// The session was revoked (logged out, logged out everywhere, or a token reused).
    public static let revoked = Self("revoked")
    /// A rotated refresh token was presented after its grace: the session is revoked now, for every
    /// instance (a stolen token, or an app that kept an old one).
    public static let reused = Self("reused")
    /// The request came from another app session than the one it concerns.
    public static let wrongSession = Self("wrong-session")
    /// The login's number lay dormant (二次号) and no second factor passed for its account: no credentials.
    public static let dormantNumber = Self("dormant-number")
}
