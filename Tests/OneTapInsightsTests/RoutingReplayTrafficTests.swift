import Foundation
import OneTapTesting
import Testing
import OneTap
import OneTapInsights

/// The replay against the truth: traffic recorded under the built-in policy (with 15 % of Unicom SIMs
/// in the experiment) replayed to the experiment policy, beside other traffic from the same generator
/// with every Unicom SIM under that policy. The estimate must agree with what that traffic did, within
/// the intervals.
@Suite struct RoutingReplayTrafficTests {
    static func stats(seed: UInt64, experiment: Double, logins: Int) throws -> LoginStats {
        var stats = LoginStats()
        for event in LoginTrafficGenerator(seed: seed, unicomExperimentShare: experiment).events(logins: logins) {
            try stats.add(String(StandardErrorEventSink.line(event).dropLast()))
        }
        stats.finish()
        return stats
    }

    @Test func theEstimateForUnicomSIMsMatchesTrafficThatRanTheNewPolicy() throws {
        let recorded = try Self.stats(seed: 101, experiment: 0.15, logins: 4000)
        let truth = try Self.stats(seed: 202, experiment: 1, logins: 4000)
        let replay = RoutingReplay(recorded.observations, policy: LoginTrafficGenerator.experimentPolicy)
        let unicom = try #require(replay.carriers.first { $0.carrier == .unicom })
        let estimate = try #require(unicom.proposed)
        #expect(unicom.changed > 0)
        let actual = try #require(truth.funnel(by: [.carrier]).rows.first { $0.carrier == .unicom })
        let actualSMS = Estimate.wilson(actual.sms, of: actual.logins)
        // The two intervals overlap: the estimate is no further from the truth than both samples allow.
        #expect(estimate.oneTapShare.low <= actual.oneTapShare.high && actual.oneTapShare.low <= estimate.oneTapShare.high,
                "one-tap: estimated \(estimate.oneTapShare), ran \(actual.oneTapShare)")
        #expect(estimate.smsShare.low <= actualSMS.high && actualSMS.low <= estimate.smsShare.high, "SMS: estimated \(estimate.smsShare), ran \(actualSMS)")
        // And the change is the one the generator was built with: Unicom's own flow does better than Tianyi on Unicom SIMs.
        #expect(estimate.oneTapShare.value > unicom.current.oneTapShare.value + 0.05)
        // Carriers the policy leaves alone stay exactly as recorded.
        let mobile = try #require(replay.carriers.first { $0.carrier == .mobile })
        #expect(mobile.changed == 0)
        #expect(mobile.proposed == mobile.current)
    }
}
