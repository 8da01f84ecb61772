import Foundation
import Testing
@testable import OneTapCore

/// The counter both tables of rate rules count in: its id and its identity, and each table's counter
/// type over it.
@Suite struct RateCounterTests {
    @Test func idIsCountsKeyAndValue() {
        let counter = RateCounter(counts: SMSPolicy.Counts.failedVerifies, key: SMSPolicy.Key.numberSession, value: "13800138000/s1")
        #expect(counter.description == "failed-verifies:number-session:13800138000/s1")
        let quota = RateCounter(counts: LoginQuotaPolicy.Counts.exchanges, key: LoginQuotaPolicy.Key.ip48, value: "2409:8900:1::/48")
        #expect(quota.description == "exchanges:ip48:2409:8900:1::/48")
    }

    @Test func countersAreTheSameWhenCountsKeyAndValueAre() {
        let counter = RateCounter(counts: SMSPolicy.Counts.sends, key: SMSPolicy.Key.ip, value: "203.0.113.7")
        #expect(counter == RateCounter(counts: .sends, key: .ip, value: "203.0.113.7"))
        #expect(counter != RateCounter(counts: .sends, key: .ip56, value: "203.0.113.7"))
        #expect(counter != RateCounter(counts: .failedVerifies, key: .ip, value: "203.0.113.7"))
        #expect(counter != RateCounter(counts: .sends, key: .ip, value: "203.0.113.8"))
        let set: Set = [counter, RateCounter(counts: .sends, key: .ip, value: "203.0.113.7"), RateCounter(counts: .sends, key: .device, value: "d")]
        #expect(set.count == 2)
    }

    @Test func eachTableCounterReadsAsItsRateCounter() {
        let sms = SMSPolicy.Counter(counts: .sends, key: .number, value: "13800138000")
        #expect(sms.counts == .sends)
        #expect(sms.key == .number)
        #expect(sms.value == "13800138000")
        #expect(sms.description == "sends:number:13800138000")
        #expect(sms == SMSPolicy.Counter(RateCounter(counts: .sends, key: .number, value: "13800138000")))
        let login = LoginQuotaPolicy.Counter(counts: .starts, key: .global, value: "all")
        #expect(login.counts == .starts)
        #expect(login.key == .global)
        #expect(login.value == "all")
        #expect(login.description == "starts:global:all")
        #expect(login != LoginQuotaPolicy.Counter(counts: .exchanges, key: .global, value: "all"))
    }
}
