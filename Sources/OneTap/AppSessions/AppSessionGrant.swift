/// The credentials a server hands the app: an access token to send with each request, and a refresh
/// token to get the next one. Both are secrets: the description shows neither.
public struct AppSessionGrant: Sendable, CustomStringConvertible {
    /// The app session.
    public let session: AppSessionID
    /// Who acts in it.
    public let identity: Identity
    /// The access token (`Authorization: Bearer …`), valid until ``accessExpiresAt``.
    public let accessToken: Secret
    /// When the access token expires (2 hours after issue by default).
    public let accessExpiresAt: Date
    /// The refresh token: returned once, kept by the app, sent only to refresh.
    public let refreshToken: Secret
    /// When the refresh token expires (30 days after issue by default, sliding at each refresh).
    public let refreshExpiresAt: Date
    /// After a login: the session's guest before it, whose data moves to the account (``AppSessions``
    /// given a ``GuestMerger`` merges it, and retries a merge that failed; otherwise hand it to
    /// `GuestMerger.merge(_:into:)`); nil otherwise.
    public let formerGuest: GuestID?
    /// How the app of this session last logged in, for the login page ("last time: one-tap, 138****8000"):
    /// the number masked. Set by a login, carried to the fresh guest session of a logout, nil at a first
    /// open. Only this session's own credentials read it: it is never looked up by a device id.
    public let lastLogin: LastLoginHint?

    /// `app session Ab… account 42, access until …, refresh until …` (never a token).
    public var description: String {
        "app session \(session) \(identity), access until \(Timestamp.format(accessExpiresAt)), refresh until \(Timestamp.format(refreshExpiresAt))"
    }
}
