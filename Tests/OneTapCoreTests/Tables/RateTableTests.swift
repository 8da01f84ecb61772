import Foundation
import Testing
@testable import OneTapCore

/// What both tables of rate rules keep of a counter's events and how they count one, over a table whose
/// horizons are given.
@Suite struct RateTableTests {
    static let t = Date(timeIntervalSince1970: 1_796_083_200)

    static func at(_ seconds: Double) -> Date { t.addingTimeInterval(seconds) }

    /// A table keeping `sends` 60 s per key and everything else not at all.
    struct Table: RateTable {
        func horizon(of counter: SMSPolicy.Counter) -> Double { counter.counts == .sends ? 60 : 0 }
    }

    static let sends = SMSPolicy.Counter(counts: .sends, key: .number, value: "13800138000")
    static let wrong = SMSPolicy.Counter(counts: .failedVerifies, key: .number, value: "13800138000")

    @Test func keepsTheEventsInTheCountersHorizonOldestFirst() {
        let events = [Self.at(50), Self.t, Self.at(30)]
        #expect(Table().keep(Self.sends, events, at: Self.at(60)) == [Self.at(30), Self.at(50)])
        #expect(Table().keep(Self.sends, events, at: Self.at(59)) == [Self.t, Self.at(30), Self.at(50)])
        #expect(Table().keep(Self.wrong, events, at: Self.at(50)) == [])
    }

    @Test func countingAppendsTheEventAndDropsWhatLeftTheHorizon() {
        var events = [Self.t, Self.at(30)]
        Table().count(Self.at(70), in: &events, of: Self.sends)
        #expect(events == [Self.at(30), Self.at(70)])
        Table().count(Self.at(71), in: &events, of: Self.sends)
        #expect(events == [Self.at(30), Self.at(70), Self.at(71)])
        var none: [SMSPolicy.Counter: [Date]] = [:]
        Table().count(Self.t, in: &none[Self.sends, default: []], of: Self.sends)
        #expect(none == [Self.sends: [Self.t]])
    }
}
