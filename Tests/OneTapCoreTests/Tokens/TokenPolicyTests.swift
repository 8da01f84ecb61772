import Foundation
import Testing
@testable import OneTapCore

@Suite struct TokenPolicyTests {
    let policy = TokenPolicy()
    let issued = Date(timeIntervalSince1970: 1_796_083_200)

    func token(lifetime: Double) -> AccessToken {
        AccessToken(value: Secret("v"), refreshToken: Secret("r"), flow: .tianyi, account: "a", issuedAt: issued, expiresAt: issued.addingTimeInterval(lifetime))
    }

    struct Boundary: Sendable, CustomTestStringConvertible {
        let lifetime: Double
        let staleAt: Double     // seconds after issue
        let expiredAt: Double
        var testDescription: String { "lifetime \(lifetime) s" }
    }

    /// stale at min(min(24 h, L/2), L − min(7 d, L/4)); expired at L − 60 s.
    static let boundaries: [Boundary] = [
        Boundary(lifetime: 30 * 86_400, staleAt: 86_400, expiredAt: 30 * 86_400 - 60),   // a month: stale after a day
        Boundary(lifetime: 7 * 86_400, staleAt: 86_400, expiredAt: 7 * 86_400 - 60),
        Boundary(lifetime: 2 * 86_400, staleAt: 86_400, expiredAt: 2 * 86_400 - 60),     // L/2 = 24 h = the cap
        Boundary(lifetime: 86_400, staleAt: 43_200, expiredAt: 86_400 - 60),             // L/2
        Boundary(lifetime: 7200, staleAt: 3600, expiredAt: 7140),
        Boundary(lifetime: 1000, staleAt: 500, expiredAt: 940),
        Boundary(lifetime: 100, staleAt: 50, expiredAt: 40),                               // expires before it would turn stale
        Boundary(lifetime: 40 * 86_400, staleAt: 86_400, expiredAt: 40 * 86_400 - 60),
    ]

    @Test(arguments: boundaries)
    func everyBoundaryBothSides(boundary: Boundary) {
        let token = token(lifetime: boundary.lifetime)
        let epsilon = 0.001
        func state(_ offset: Double) -> TokenState { policy.state(of: token, at: issued.addingTimeInterval(offset)) }
        if boundary.staleAt < boundary.expiredAt {
            #expect(policy.refreshFrom(token) == issued.addingTimeInterval(boundary.staleAt))
            #expect(state(boundary.staleAt - epsilon) == .fresh)
            #expect(state(boundary.staleAt) == .stale)          // at the boundary the later state holds
            #expect(state(boundary.expiredAt - epsilon) == .stale)
        } else {
            #expect(state(boundary.expiredAt - epsilon) == .fresh)
        }
        #expect(policy.expiredFrom(token) == issued.addingTimeInterval(boundary.expiredAt))
        #expect(state(boundary.expiredAt) == .expired)
        #expect(state(boundary.lifetime + 86_400) == .expired)
        #expect(policy.dueAt(token) == issued.addingTimeInterval(min(boundary.staleAt, boundary.expiredAt)))
    }

    /// The stale instant under other configurations, worked out by hand (seconds after issue):
    /// min(min(maxFreshAge, L/2), L − min(staleWithin, L/4)).
    static let configurations: [(name: String, policy: TokenPolicy, staleAt: [Double: Double])] = [
        ("default", TokenPolicy(), [30: 15, 600: 300, 3600: 1800, 86_400: 43_200, 259_200: 86_400, 2_592_000: 86_400, 7_776_000: 86_400]),
        ("fresh for a year", TokenPolicy(maxFreshAge: .seconds(365 * 86_400)),
         [30: 15, 600: 300, 3600: 1800, 86_400: 43_200, 259_200: 129_600, 2_592_000: 1_296_000, 7_776_000: 3_888_000]),
        ("ten seconds", TokenPolicy(maxFreshAge: .seconds(10), staleWithin: .seconds(86_400 * 100)),
         [30: 10, 600: 10, 3600: 10, 86_400: 10, 259_200: 10, 2_592_000: 10, 7_776_000: 10]),
        ("an hour, a minute", TokenPolicy(maxFreshAge: .seconds(3600), staleWithin: .seconds(60), skewMargin: .seconds(1)),
         [30: 15, 600: 300, 3600: 1800, 86_400: 3600, 259_200: 3600, 2_592_000: 3600, 7_776_000: 3600]),
    ]

    @Test(arguments: configurations.indices)
    func staleInstantUnderOtherConfigurations(index: Int) {
        let (name, policy, staleAt) = Self.configurations[index]
        for (lifetime, seconds) in staleAt.sorted(by: { $0.key < $1.key }) {
            let token = token(lifetime: lifetime)
            #expect(policy.refreshFrom(token) == issued.addingTimeInterval(seconds), "\(name), lifetime \(lifetime)")
            if seconds < lifetime - policy.skewMargin.seconds {
                #expect(policy.state(of: token, at: issued.addingTimeInterval(seconds - 0.001)) == .fresh)
                #expect(policy.state(of: token, at: issued.addingTimeInterval(seconds)) == .stale)
            }
        }
    }

    @Test func clockBeforeIssueIsFreshAndZeroLifetimeIsExpired() {
        #expect(policy.state(of: token(lifetime: 86_400), at: issued.addingTimeInterval(-3600)) == .fresh)
        #expect(policy.state(of: token(lifetime: 0), at: issued) == .expired)
        #expect(policy.state(of: token(lifetime: -10), at: issued.addingTimeInterval(-100)) == .expired)
    }

    @Test func configurable() {
        let custom = TokenPolicy(defaultLifetime: .seconds(60), maxFreshAge: .seconds(10), staleWithin: .seconds(5), skewMargin: .seconds(1))
        let token = token(lifetime: 100)
        #expect(custom.refreshFrom(token) == issued.addingTimeInterval(10))
        #expect(custom.expiredFrom(token) == issued.addingTimeInterval(99))
    }
}
