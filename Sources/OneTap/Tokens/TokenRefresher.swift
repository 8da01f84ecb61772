/// Exchanges a refresh token for a new access token: the integrator's adapter over the carrier's
/// refresh API (Tianyi's `refreshToken.do`). OneTap ships no network code; `OneTapTesting` ships a
/// scriptable mock.
public protocol TokenRefresher: Sendable {
    /// Refreshes a token. Honour task cancellation, as every HTTP client does: a call still running past the
    /// vault's late-answer limit is cancelled and abandoned (the vault no longer waits for it, and can stop). A
    /// lock held in this process (the in-memory and file stores') stays with the abandoned call until it returns;
    /// PostgreSQL's refresh lease stops being renewed once the call is cancelled and lapses after its lease
    /// duration, so another refresh may then run: a call still running that long after its cancellation is
    /// taken for dead. Without a time limit (`refreshTimeout` nil) nothing is abandoned.
    /// - Parameter token: The current token (with its refresh token).
    /// - Returns: What the carrier answered.
    /// - Throws: ``TokenError`` of kind `relogin-required` when the carrier says the refresh token is
    ///   invalid, expired or revoked (an expired token is removed: the user logs in again; one that still has
    ///   time is served until it expires, then refreshed once more); anything else
    ///   (network, timeout, 5xx, rate limit, any other error or kind) is a failure that may pass (the token
    ///   is kept and the refresh backs off).
    func refresh(_ token: AccessToken) async throws -> RefreshResponse
}

/// A successful refresh: the new access token, a new refresh token if the carrier rotated it, and the
/// new lifetime.
public struct RefreshResponse: Sendable, CustomStringConvertible {
    /// The new access token; empty in an answer that cannot be served (``unusable``), which is never handed out.
    public let accessToken: Secret
    /// The new refresh token; nil or empty means "keep the old one".
    public let refreshToken: Secret?
    /// The new lifetime, if the carrier gave one.
    public let expiresIn: ExpiresIn?
    /// Why the answer cannot be served though the carrier said it succeeded (no access token, a lifetime that is
    /// none), when it still carries a rotated refresh token (``TianyiTokenRefresher``'s answers): the vault keeps that
    /// refresh token with the account's access token, and counts the refresh as failed; a caller of a refresher
    /// outside the vault must not serve ``accessToken`` then. Nil for every answer made with the public initializer.
    public let unusable: String?

    /// Creates a response.
    /// - Parameters:
    ///   - accessToken: The new access token.
    ///   - refreshToken: A new refresh token, or nil to keep the old one.
    ///   - expiresIn: The lifetime, if given.
    public init(accessToken: Secret, refreshToken: Secret? = nil, expiresIn: ExpiresIn? = nil) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresIn = expiresIn
        unusable = nil
    }

    /// An answer that cannot be served but rotated the refresh token (``unusable``).
    /// - Parameters:
    ///   - refreshToken: The rotated refresh token.
    ///   - why: Why it cannot be served, quoting no token.
    package init(rotating refreshToken: Secret, unusable why: String) {
        accessToken = Secret("")
        self.refreshToken = refreshToken
        expiresIn = nil
        unusable = why
    }

    /// `RefreshResponse(accessToken <redacted>, refreshToken <redacted>, expiresIn 2592000s)`, and why it cannot be
    /// served when it cannot.
    public var description: String {
        "RefreshResponse(accessToken <redacted>, refreshToken \(refreshToken.map { $0.isEmpty ? "empty" : "<redacted>" } ?? "none"), expiresIn \(expiresIn.map(\.description) ?? "none")"
            + (unusable.map { ", unusable: \($0)" } ?? "") + ")"
    }
}
