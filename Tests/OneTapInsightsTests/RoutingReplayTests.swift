import Foundation
import Testing
import OneTapCore
@testable import OneTapInsights
import OneTapSupport

/// The what-if replay on observations written by hand, its expectations worked out by hand from the
/// model's rules (written in each test).
@Suite struct RoutingReplayTests {
    typealias Outcome = LoginObservations.Outcome

    /// A stage with these counts and mean times (every time of a way the same, so no time variance).
    static func stage(_ carrier: Carrier, _ flow: LoginFlow, condition: RoutingPolicy.Condition? = nil, _ counts: [Outcome: (count: Int, milliseconds: Double)])
        -> LoginObservations.Stage
    {
        var stage = LoginObservations.Stage(carrier: carrier, condition: condition ?? .carrier(carrier), flow: flow)
        for (outcome, entry) in counts {
            stage.counts[outcome.rawValue] = entry.count
            for _ in 0..<entry.count { stage.times[outcome.rawValue].add(entry.milliseconds) }
        }
        return stage
    }

    static func plan(_ carrier: Carrier, _ flows: FlowSequence, condition: RoutingPolicy.Condition? = nil, logins: Int, oneTap: Int, sms: Int, reached: Int,
                     successTime: Double) -> LoginObservations.Plan {
        var plan = LoginObservations.Plan(carrier: carrier, condition: condition ?? .carrier(carrier), flows: flows)
        plan.logins = logins
        plan.oneTap = oneTap
        plan.sms = sms
        plan.cancelled = logins - oneTap - sms
        plan.reachedSMS = reached
        for _ in 0..<(oneTap + sms) { plan.successTimes.add(successTime) }
        return plan
    }

    /// China Mobile SIMs: 100 logins planned mobile → sms, 50 (an experiment) tianyi → sms.
    static let observations = LoginObservations(
        stages: [
            stage(.mobile, .mobile, [.success: (80, 2000), .cancelled: (5, 4000), .next: (15, 1000)]),
            stage(.mobile, .tianyi, [.success: (30, 3000), .next: (20, 2000)]),
            stage(.mobile, .sms, [.success: (27, 30000), .cancelled: (8, 10000)]),
        ],
        plans: [
            plan(.mobile, [.mobile, .sms], logins: 100, oneTap: 80, sms: 12, reached: 15, successTime: 6000),
            plan(.mobile, [.tianyi, .sms], logins: 50, oneTap: 30, sms: 15, reached: 20, successTime: 12000),
        ])

    static func policy(_ row: String, for condition: String = "carrier:mobile") -> RoutingPolicy {
        let text = EmbeddedTable.named("routing-policy.csv")!.text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasPrefix(condition + ",") ? "\(condition),\(row),policy,test" : String(line)
        }.joined(separator: "\n")
        return try! RoutingPolicy(csv: text, file: "test-policy.csv")
    }

    @Test func movingMobileSIMsToTianyiIsEstimatedFromTheTianyiFlowsRecord() throws {
        let replay = RoutingReplay(Self.observations, policy: Self.policy("tianyi sms"), smsPrice: 0.05, oneTapPrice: 0.03)
        let mobile = try #require(replay.carriers.first)
        #expect(mobile.carrier == .mobile)
        #expect(mobile.logins == 150)
        #expect(mobile.changed == 100)
        #expect(mobile.unknown == nil)
        let new = try #require(mobile.proposed)
        // Kept as recorded: the 50 tianyi → sms logins. Moved: 100 logins through tianyi (60 % succeed,
        // 40 % go on) then SMS (27 of 35 succeed).
        let oneTap = (30 + 100 * 0.6) / 150
        let sms = (15 + 100 * 0.4 * 27 / 35) / 150
        let reach = (20 + 100 * 0.4) / 150
        #expect(abs(new.oneTapShare.value - oneTap) < 1e-9)
        #expect(abs(new.smsShare.value - sms) < 1e-9)
        #expect(abs(new.smsReach.value - reach) < 1e-9)
        #expect(abs(new.smsMessages.value - reach * 150) < 1e-9)
        #expect(abs(new.smsCost!.value - reach * 150 * 0.05) < 1e-9)
        #expect(abs(new.oneTapSuccesses.value - 90) < 1e-9)
        #expect(abs(new.oneTapCost!.value - 90 * 0.03) < 1e-9)
        // Time: kept 45 successes of 12 s; moved: 60 at 3 s, and 30.857… through tianyi's 2 s and SMS's 30 s.
        let movedSMS = 100 * 0.4 * 27 / 35
        let meanTime = (45 * 12000 + 60 * 3000 + movedSMS * (2000 + 30000)) / (45 + 60 + movedSMS)
        #expect(abs(new.meanTimeToLogin!.value - meanTime) < 1e-6)
        #expect(new.firstFlows == [RoutingReplay.FirstFlow(flow: .tianyi, logins: 150)])
        // Current: as recorded.
        #expect(mobile.current.oneTapShare == Estimate.wilson(110, of: 150))
        #expect(mobile.current.smsShare == Estimate.wilson(27, of: 150))
        #expect(mobile.current.smsReach == Estimate.wilson(35, of: 150))
        #expect(abs(mobile.current.meanTimeToLogin!.value - (92 * 6000 + 45 * 12000) / 137) < 1e-6)
        #expect(mobile.current.firstFlows == [RoutingReplay.FirstFlow(flow: .mobile, logins: 100), RoutingReplay.FirstFlow(flow: .tianyi, logins: 50)])
    }

    @Test func theEstimatesIntervalsComeFromTheSampleSizes() throws {
        let replay = RoutingReplay(Self.observations, policy: Self.policy("tianyi sms"))
        let new = try #require(replay.carriers.first?.proposed)
        for estimate in [new.oneTapShare, new.smsShare, new.smsReach] {
            #expect(estimate.method == .wilsonEffective)
            #expect(estimate.low < estimate.value && estimate.value < estimate.high)
            #expect(estimate.low >= 0 && estimate.high <= 1)
        }
        #expect(new.meanTimeToLogin?.method == .normal)
        #expect(replay.smsPrice == nil)
        #expect(new.smsCost == nil)
        // A hundred times the data: the same estimate, an interval about a tenth as wide.
        func scaled(_ stage: LoginObservations.Stage) -> LoginObservations.Stage {
            var copy = stage
            copy.counts = stage.counts.map { $0 * 100 }
            for index in copy.times.indices {
                var times = LoginObservations.Times()
                for _ in 0..<copy.counts[index] { times.add(stage.times[index].mean) }
                copy.times[index] = times
            }
            return copy
        }
        let big = LoginObservations(stages: Self.observations.stages.map(scaled), plans: Self.observations.plans)
        let bigNew = try #require(RoutingReplay(big, policy: Self.policy("tianyi sms")).carriers.first?.proposed)
        #expect(abs(bigNew.oneTapShare.value - new.oneTapShare.value) < 1e-9)
        #expect(bigNew.oneTapShare.high - bigNew.oneTapShare.low < new.oneTapShare.high - new.oneTapShare.low)
    }

    @Test func theRecordedPolicyChangesNothing() throws {
        let replay = RoutingReplay(Self.observations, policy: .builtIn)
        let mobile = try #require(replay.carriers.first)
        // The built-in policy plans carrier:mobile mobile → sms: the tianyi experiment's 50 move to it.
        #expect(mobile.changed == 50)
        let unchanged = LoginObservations(stages: Self.observations.stages, plans: [Self.observations.plans[0]])
        let same = try #require(RoutingReplay(unchanged, policy: .builtIn).carriers.first)
        #expect(same.changed == 0)
        #expect(same.proposed == same.current)
    }

    @Test func aFlowNeverObservedForTheCarrierIsUnknownNotGuessed() throws {
        let replay = RoutingReplay(Self.observations, policy: Self.policy("unicom sms"))
        let mobile = try #require(replay.carriers.first)
        #expect(mobile.proposed == nil)
        #expect(mobile.unknown == "no recorded mobile login in situation carrier:mobile ever reached the unicom flow")
        #expect(mobile.current.oneTapShare == Estimate.wilson(110, of: 150))
        #expect(replay.total.proposed == nil)
        #expect(replay.total.unknown?.contains("unicom flow") == true)
    }

    @Test func anUnobservedFlowThatCannotBeReachedIsNoObstacle() throws {
        // Mobile always succeeds or is cancelled here: the unicom flow after it is never reached.
        let observations = LoginObservations(
            stages: [Self.stage(.mobile, .mobile, [.success: (9, 1000), .cancelled: (1, 1000)]), Self.stage(.mobile, .tianyi, [.success: (1, 1000)])],
            plans: [Self.plan(.mobile, [.tianyi, .sms], logins: 1, oneTap: 1, sms: 0, reached: 0, successTime: 1000)])
        let new = try #require(RoutingReplay(observations, policy: Self.policy("mobile unicom sms")).carriers.first?.proposed)
        #expect(abs(new.oneTapShare.value - 0.9) < 1e-9)
        #expect(new.smsShare.value == 0)
    }

    @Test func anSMSFlowNeverObservedIsUnknownWhenTheNewPlanCanReachIt() throws {
        let observations = LoginObservations(
            stages: [Self.stage(.mobile, .tianyi, [.success: (5, 1000), .next: (5, 1000)]), Self.stage(.mobile, .mobile, [.success: (1, 1000)])],
            plans: [Self.plan(.mobile, [.mobile, .sms], logins: 1, oneTap: 1, sms: 0, reached: 0, successTime: 1000)])
        let mobile = try #require(RoutingReplay(observations, policy: Self.policy("tianyi sms")).carriers.first)
        #expect(mobile.unknown == "no recorded mobile login in situation carrier:mobile ever reached the sms flow")
    }

    @Test func aSwitchGoesStraightToSMSPastTheFlowsBetween() throws {
        // Tianyi: half succeed, half switch to SMS; unicom after it is never reached by a switch.
        let observations = LoginObservations(
            stages: [Self.stage(.mobile, .tianyi, [.success: (5, 1000), .switched: (5, 500)]), Self.stage(.mobile, .sms, [.success: (4, 20000), .failed: (1, 5000)])],
            plans: [Self.plan(.mobile, [.mobile, .sms], logins: 10, oneTap: 10, sms: 0, reached: 0, successTime: 1000)])
        let new = try #require(RoutingReplay(observations, policy: Self.policy("tianyi unicom sms")).carriers.first?.proposed)
        #expect(abs(new.oneTapShare.value - 0.5) < 1e-9)
        #expect(abs(new.smsShare.value - 0.5 * 0.8) < 1e-9)
        #expect(abs(new.meanTimeToLogin!.value - (0.5 * 1000 + 0.4 * (500 + 20000)) / 0.9) < 1e-6)
    }

    @Test func situationsAreKeptApart() throws {
        // Mobile data off: the recorded logins went to SMS; nothing says how one-tap would fare there.
        let observations = LoginObservations(
            stages: [Self.stage(.mobile, .sms, condition: .mobileDataOff, [.success: (8, 20000), .cancelled: (2, 5000)]),
                     Self.stage(.mobile, .mobile, [.success: (90, 2000), .next: (10, 1000)])],
            plans: [Self.plan(.mobile, [.sms], condition: .mobileDataOff, logins: 10, oneTap: 0, sms: 8, reached: 10, successTime: 20000)])
        let mobile = try #require(RoutingReplay(observations, policy: Self.policy("mobile sms", for: "mobile-data-off")).carriers.first)
        #expect(mobile.unknown == "no recorded mobile login in situation mobile-data-off ever reached the mobile flow")
    }

    @Test func theTotalAddsTheCarriersUp() throws {
        let observations = LoginObservations(
            stages: Self.observations.stages + [Self.stage(.telecom, .tianyi, [.success: (7, 2000), .next: (3, 1000)]), Self.stage(.telecom, .sms, [.success: (3, 20000)])],
            plans: Self.observations.plans + [Self.plan(.telecom, [.tianyi, .sms], logins: 10, oneTap: 7, sms: 3, reached: 3, successTime: 5000)])
        let replay = RoutingReplay(observations, policy: Self.policy("tianyi sms"))
        #expect(replay.carriers.map(\.carrier) == [.mobile, .telecom])
        #expect(replay.carriers[1].changed == 0)
        #expect(replay.total.logins == 160)
        #expect(replay.total.changed == 100)
        let total = try #require(replay.total.proposed)
        #expect(abs(total.oneTapShare.value - (90 + 7) / 160.0) < 1e-9)
        #expect(replay.total.current.oneTapShare == Estimate.wilson(117, of: 160))
        #expect(total.firstFlows == [RoutingReplay.FirstFlow(flow: .tianyi, logins: 160)])
    }

    @Test func nothingObservedReplaysToNothing() {
        let replay = RoutingReplay(LoginObservations(stages: [], plans: []), policy: .builtIn)
        #expect(replay.carriers.isEmpty)
        #expect(replay.total.logins == 0)
        #expect(replay.total.current.oneTapShare.value == 0)
    }
}
