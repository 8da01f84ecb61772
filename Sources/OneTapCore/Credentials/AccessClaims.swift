/// What an access token says, once its signature checked out: which app session, who acts in it, and
/// from when until when. Handed out by `AppSessions.authenticate(_:)` and `AppSessions.live(_:)` in
/// `OneTap`, which read it from a token the key ring signed.
public struct AccessClaims: Hashable, Sendable, CustomStringConvertible {
    /// The key that signed the token.
    package let keyID: KeyID
    /// The app session the token belongs to.
    public let session: AppSessionID
    /// Who acts: the session's guest, or the account it logged in to.
    public let identity: Identity
    /// When the token was issued (whole seconds).
    public let issuedAt: Date
    /// When it stops being valid (whole seconds).
    public let expiresAt: Date
    /// The session's login epoch when the token was issued (format 2): its last login's
    /// ``AppSessionRecord/identitySince`` in whole seconds since 1970, 0 before any login. A login moves it
    /// on, so a token stands only in the epoch it was issued in, whatever the clocks of the instances that
    /// issued it and logged the session in. Nil for a token of format 1 (issued before format 2), judged by
    /// its issue time instead.
    package let epoch: Int64?

    /// Refuses claims whose token expired: claims are proof only while their token is valid (an expired
    /// token's claims are for telling the app to refresh, never for acting).
    /// - Parameter now: The time.
    /// - Throws: ``AppSessionError`` of kind `unauthenticated` once ``expiresAt`` has passed.
    package func checkCurrent(at now: Date) throws(AppSessionError) {
        guard now < expiresAt else {
            throw AppSessionError(.unauthenticated, session: session, "the access token expired at \(Timestamp.format(expiresAt)); refresh")
        }
    }

    /// `app session Ab…, account 42, key 2026-12, issued 2026-12-02T10:00:00Z, expires 2026-12-02T12:00:00Z`.
    public var description: String {
        "app session \(session), \(identity), key \(keyID), issued \(Timestamp.format(issuedAt)), expires \(Timestamp.format(expiresAt))"
    }
}

/// What checking an access token found.
package enum AccessTokenVerdict: Hashable, Sendable, CustomStringConvertible {
    /// Signed by a key of the ring and not expired: act as ``AccessClaims/identity``.
    case valid(AccessClaims)
    /// Signed by a key of the ring, but past its expiry: the app refreshes.
    case expired(AccessClaims)
    /// The signature does not match: forged, altered, or signed with a key of the same id that is not ours.
    case badSignature
    /// Signed by a key the ring does not have (retired, or never ours).
    case unknownKey(KeyID)
    /// Not an access token at all; the text says what is wrong (never the token).
    case malformed(String)

    /// `valid`, `expired`, `bad-signature`, `unknown-key`, `malformed`: stable ids.
    package var name: String {
        switch self {
        case .valid: "valid"
        case .expired: "expired"
        case .badSignature: "bad-signature"
        case .unknownKey: "unknown-key"
        case .malformed: "malformed"
        }
    }

    /// The claims of a valid token, else nil.
    package var validClaims: AccessClaims? {
        if case .valid(let claims) = self { return claims }
        return nil
    }

    /// `valid: app session …`, `unknown-key 2025-01`, `malformed: …`.
    package var description: String {
        switch self {
        case .valid(let claims), .expired(let claims): "\(name): \(claims)"
        case .badSignature: name
        case .unknownKey(let id): "\(name) \(id)"
        case .malformed(let reason): "\(name): \(reason)"
        }
    }
}
