/// How long an app session's credentials live, and how forgiving a refresh is.
public struct AppSessionPolicy: Hashable, Sendable {
    /// How long an access token is valid: 2 hours by default. A revoked session's access tokens stay
    /// valid until they expire unless a request checks the session (``AppSessionRules`` and
    /// `AppSessions.live(_:)`), so keep it short.
    package let accessLifetime: Duration
    /// How long a refresh token is valid from its issue: 30 days by default, sliding (each refresh issues
    /// a new one), as seed 002 keeps its session for a month and refreshes when the app opens.
    package let refreshLifetime: Duration
    /// How long the refresh token a rotation replaced is still answered, with the same successor: 30 s by
    /// default (an app that lost the answer, or sent two refreshes at once, is not logged out).
    package let grace: Duration
    /// How many older refresh tokens of a session are remembered by their digests, to recognise a stolen one
    /// of the earlier format `otr1`: 8. A token of format 2 is recognised from its family, however old.
    package let ancestors: Int

    /// Creates a policy.
    /// - Parameters:
    ///   - accessLifetime: 2 hours by default (at least 1 s).
    ///   - refreshLifetime: 30 days by default (at least the access lifetime).
    ///   - grace: 30 s by default (0 to 5 min).
    ///   - ancestors: 8 by default (0 to 64).
    /// - Throws: ``ParseError`` with subject `duration`, kind `out-of-range`, naming the value out of range.
    public init(
        accessLifetime: Duration = .seconds(7_200), refreshLifetime: Duration = .seconds(30 * 86_400), grace: Duration = .seconds(30), ancestors: Int = 8
    ) throws(ParseError) {
        guard accessLifetime >= .seconds(1) else {
            throw ParseError(.duration, .outOfRange, input: "\(accessLifetime)", reason: "an access token lives at least 1 s")
        }
        guard refreshLifetime >= accessLifetime, refreshLifetime <= .seconds(366 * 86_400) else {
            throw ParseError(.duration, .outOfRange, input: "\(refreshLifetime)", reason: "a refresh token lives from the access lifetime to a year")
        }
        guard grace >= .zero, grace <= .seconds(300) else {
            throw ParseError(.duration, .outOfRange, input: "\(grace)", reason: "the grace is 0 to 5 minutes")
        }
        guard (0...64).contains(ancestors) else {
            throw ParseError(.duration, .outOfRange, input: "\(ancestors)", reason: "0 to 64 older refresh tokens are remembered")
        }
        self.accessLifetime = accessLifetime
        self.refreshLifetime = refreshLifetime
        self.grace = grace
        self.ancestors = ancestors
    }

    private init(unchecked accessLifetime: Duration, _ refreshLifetime: Duration, _ grace: Duration, _ ancestors: Int) {
        self.accessLifetime = accessLifetime
        self.refreshLifetime = refreshLifetime
        self.grace = grace
        self.ancestors = ancestors
    }

    /// The defaults: 2 hours, 30 days, 30 s, 8.
    public static let standard = AppSessionPolicy(unchecked: .seconds(7_200), .seconds(30 * 86_400), .seconds(30), 8)
}
