/// Whether a token can be used now, and whether it should be refreshed.
@usableFromInline package enum TokenState: String, Hashable, Sendable, CaseIterable, Codable, CustomStringConvertible {
    /// Use it; no refresh needed.
    case fresh
    /// Use it, and refresh now.
    case stale
    /// Do not use it: refresh if a refresh token exists, else the user must log in again.
    case expired

    /// The id, e.g. `"stale"`.
    @usableFromInline package var description: String { rawValue }
}

/// When a token turns stale and when it counts as expired.
///
/// With lifetime *L* (expiry − issue):
/// - **stale** once its age ≥ min(``maxFreshAge``, *L*/2), or once the time left ≤ min(``staleWithin``, *L*/4);
/// - **expired** once the time left ≤ ``skewMargin``.
///
/// So a 30-day Tianyi token is refreshed on the first app open after a day, and a user who opens the app
/// at least monthly never logs in again; short-lived tokens scale down sensibly. Every boundary is exact:
/// at the boundary instant the later state holds. A token whose expiry is not after its issue time is
/// expired.
public struct TokenPolicy: Hashable, Sendable {
    /// The lifetime of a token whose provider gave none: 30 days.
    package var defaultLifetime: Duration
    /// The longest a token stays fresh: 24 hours (or half its lifetime, if that is shorter).
    package var maxFreshAge: Duration { didSet { freshAgeSeconds = maxFreshAge.seconds } }
    /// A token turns stale when this little time is left: 7 days (or a quarter of its lifetime).
    package var staleWithin: Duration { didSet { staleWithinSeconds = staleWithin.seconds } }
    /// A token counts as expired this long before its expiry, for clock skew: 60 seconds.
    package var skewMargin: Duration { didSet { skewSeconds = skewMargin.seconds } }

    // The durations in seconds, kept beside them so that ``state(of:at:)`` does no Duration arithmetic
    // (usable from inlinable code: the decisions below inline into their callers in other modules, where
    // an opaque call costs a copy of the token, its references retained and released, each time).
    @usableFromInline internal private(set) var freshAgeSeconds: Double
    @usableFromInline internal private(set) var staleWithinSeconds: Double
    @usableFromInline internal private(set) var skewSeconds: Double

    /// Creates a policy.
    /// - Parameters:
    ///   - defaultLifetime: The lifetime when the provider gives none; 30 days.
    ///   - maxFreshAge: The longest a token stays fresh; 24 hours.
    ///   - staleWithin: Stale when this little time is left; 7 days.
    ///   - skewMargin: Expired this long before expiry; 60 seconds.
    public init(
        defaultLifetime: Duration = .seconds(30 * 86_400), maxFreshAge: Duration = .seconds(86_400),
        staleWithin: Duration = .seconds(7 * 86_400), skewMargin: Duration = .seconds(60)
    ) {
        self.defaultLifetime = defaultLifetime
        self.maxFreshAge = maxFreshAge
        self.staleWithin = staleWithin
        self.skewMargin = skewMargin
        freshAgeSeconds = maxFreshAge.seconds
        staleWithinSeconds = staleWithin.seconds
        skewSeconds = skewMargin.seconds
    }

    /// How long a token lives whose provider gave `expiresIn`: that, else ``defaultLifetime`` (the one rule for a token
    /// received, a refresh's answer and `onetap token`).
    /// - Parameter expiresIn: The provider's lifetime (`expiresIn`, `atExpiresIn`), if it gave one.
    /// - Returns: The lifetime in seconds.
    package func lifetime(given expiresIn: ExpiresIn?) -> Double {
        expiresIn.map { Double($0.seconds) } ?? defaultLifetime.seconds
    }

    /// The instant a token turns stale.
    /// - Parameter token: The token.
    /// - Returns: min(issue + min(maxFreshAge, L/2), expiry − min(staleWithin, L/4)).
    @inlinable
    package func refreshFrom(_ token: AccessToken) -> Date {
        let lifetime = max(0, token.lifetime)
        let byAge = token.issuedAt.addingTimeInterval(min(freshAgeSeconds, lifetime / 2))
        let byRemaining = token.expiresAt.addingTimeInterval(-min(staleWithinSeconds, lifetime / 4))
        return min(byAge, byRemaining)
    }

    /// The instant a token counts as expired: its expiry minus the skew margin.
    /// - Parameter token: The token.
    /// - Returns: The instant.
    @inlinable
    package func expiredFrom(_ token: AccessToken) -> Date {
        token.expiresAt.addingTimeInterval(-skewSeconds)
    }

    /// The first instant a token needs attention (stale or expired), for a background refresher's index.
    /// - Parameter token: The token.
    /// - Returns: min(``refreshFrom(_:)``, ``expiredFrom(_:)``).
    @inlinable
    package func dueAt(_ token: AccessToken) -> Date {
        min(refreshFrom(token), expiredFrom(token))
    }

    /// A token's state at an instant.
    /// - Parameters:
    ///   - token: The token.
    ///   - now: The instant (the injected clock's now). A clock that went backwards before the issue
    ///     time sees a fresh token.
    /// - Returns: fresh, stale or expired.
    /// - Complexity: O(1); no allocation.
    @inlinable @inline(__always)
    package func state(of token: AccessToken, at now: Date) -> TokenState {
        if now >= expiredFrom(token) || token.expiresAt <= token.issuedAt { return .expired }
        if now >= refreshFrom(token) { return .stale }
        return .fresh
    }
}
