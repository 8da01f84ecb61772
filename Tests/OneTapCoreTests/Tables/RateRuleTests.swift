import Foundation
import Testing
@testable import OneTapCore

/// The columns both rate tables' rules share, read once and named alike in both.
@Suite struct RateRuleTests {
    @Test func aLoginQuotaRuleIsItsSharedColumns() throws {
        let policy = try LoginQuotaPolicy(csv: "rule,key,counts,window_seconds,limit,source\nip-hour,ip56,exchanges,3600,25,why\n", file: "q.csv")
        let rule = try #require(policy.rules.first)
        #expect(rule.id == "ip-hour")
        #expect(rule.key == .ip56)
        #expect(rule.counts == .exchanges)
        #expect(rule.window == .seconds(3600))
        #expect(rule.limit == 25)
        #expect(rule.source == "why")
        #expect(rule.line == 2)
        #expect(rule.description == "ip-hour: 25 exchanges per ip56 in 3600 s, then limit")
    }

    @Test func anSMSRuleIsItsSharedColumnsAndWhatHappensPastItsLimit() throws {
        let csv = "rule,key,counts,window_seconds,limit,over,lock_seconds,source\n"
            + "n-min,number,sends,60,1,limit,,a\nguess,number-session,failed-verifies,900,3,delay,300,b\n"
        let policy = try SMSPolicy(csv: csv, file: "s.csv")
        #expect(policy.rules.map(\.id) == ["n-min", "guess"])
        #expect(policy.rules.map(\.key) == [.number, .numberSession])
        #expect(policy.rules.map(\.counts) == [.sends, .failedVerifies])
        #expect(policy.rules.map(\.window) == [.seconds(60), .seconds(900)])
        #expect(policy.rules.map(\.limit) == [1, 3])
        #expect(policy.rules.map(\.windowSeconds) == [60, 900])
        #expect(policy.rules.map(\.description) == [
            "n-min: 1 sends per number in 60 s, then limit", "guess: 3 failed-verifies per number-session in 900 s, then delay up to 300 s",
        ])
    }
}
