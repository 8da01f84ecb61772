import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
import OneTapCore
@testable import OneTapInsights
import OneTapSupport

/// The replay chart read back as XML: per carrier a current and a new bar, split by share.
@Suite struct RoutingReplayChartTests {
    static func document(_ policy: String, observations: LoginObservations = RoutingReplayTests.observations) throws -> XMLDocument {
        let replay = RoutingReplay(observations, policy: RoutingReplayTests.policy(policy), smsPrice: 0.05)
        return try XMLDocument(data: Data(RoutingReplayChart(replay, policy: "new <policy>.csv", source: "events.ndjson").svg.utf8))
    }

    static func segments(_ document: XMLDocument, _ scenario: String) throws -> [(name: String, width: Double, x: Double)] {
        try LoginFunnelChartTests.nodes(document, "//*[local-name()='g'][@data-carrier='mobile']/*[local-name()='g'][@class='scenario \(scenario)']/*[local-name()='rect']")
            .map { ($0.value("class") ?? "", Double($0.value("width") ?? "") ?? -1, Double($0.value("x") ?? "") ?? -1) }
    }

    /// Current: 110 one-tap and 27 SMS of 150. New: 90 one-tap, 15 + 100 × 0.4 × 27/35 SMS, of 150.
    static let newSMS: Double = (15 + 40 * 27.0 / 35) / 150
    static let expectedShares: [(String, [(String, Double)])] = [
        ("current", [("segment one-tap", 110.0 / 150), ("segment sms", 27.0 / 150), ("segment other", 13.0 / 150)]),
        ("new", [("segment one-tap", 0.6), ("segment sms", newSMS), ("segment other", 0.4 - newSMS)]),
    ]

    @Test(arguments: expectedShares)
    func barsAreSplitByTheirShares(scenario: String, expected: [(String, Double)]) throws {
        let document = try Self.document("tianyi sms")
        let segments = try Self.segments(document, scenario)
        #expect(segments.map(\.name) == expected.map(\.0))
        var x = 270.0
        for (segment, (_, share)) in zip(segments, expected) {
            #expect(abs(segment.width - 580 * share) <= 0.01, "\(segment.name): \(segment.width) for \(share)")
            #expect(abs(segment.x - x) <= 0.01)
            x += 580 * share
        }
    }

    @Test func theOneTapIntervalIsAWhiskerAroundTheShare() throws {
        let document = try Self.document("tianyi sms")
        for scenario in ["current", "new"] {
            let line = try #require(try LoginFunnelChartTests.nodes(document, "//*[local-name()='g'][@class='scenario \(scenario)']/*[local-name()='line'][@class='interval']").first)
            let share = try #require(try Self.segments(document, scenario).first)
            let low = Double(line.value("x1") ?? "") ?? -1, high = Double(line.value("x2") ?? "") ?? -1
            #expect(low < share.x + share.width && share.x + share.width < high, "\(scenario): \(low) < \(share.x + share.width) < \(high)")
        }
    }

    @Test func titledAsAnEstimateWithTheFigures() throws {
        let document = try Self.document("tianyi sms")
        let title = try LoginFunnelChartTests.nodes(document, "/*[local-name()='svg']/*[local-name()='title']").first?.stringValue
        #expect(title == "What-if replay of new <policy>.csv — an estimate")
        let figures = try LoginFunnelChartTests.nodes(document, "//*[local-name()='text'][@class='figures']").first?.stringValue
        #expect(figures?.hasPrefix("one-tap 73.3% → 60.0% · SMS 18.0% → 30.6% · mean time to login ") == true, "\(figures ?? "nil")")
        let costs = try LoginFunnelChartTests.nodes(document, "//*[local-name()='text'][@class='costs']").first?.stringValue
        #expect(costs == "SMS messages 35 → 60 · SMS cost 1.75 → 3.00")
        let carrier = try #require(try LoginFunnelChartTests.nodes(document, "//*[local-name()='g'][@class='carrier']").first)
        #expect(carrier.value("data-changed") == "100")
    }

    @Test func anUnknownNewPolicyIsAnEmptyBarSayingWhy() throws {
        let document = try Self.document("unicom sms")
        #expect(try Self.segments(document, "new").isEmpty)
        let unknown = try #require(try LoginFunnelChartTests.nodes(document, "//*[local-name()='g'][@class='scenario new unknown']").first)
        let texts = (unknown.children ?? []).compactMap { ($0 as? XMLElement)?.name == "text" ? $0.stringValue : nil }
        #expect(texts.contains("unknown: no recorded mobile login in situation carrier:mobile ever reached the unicom flow"))
        let frame = try #require((unknown.children ?? []).compactMap { $0 as? XMLElement }.first { $0.name == "rect" })
        #expect(frame.value("stroke-dasharray") == "6 4")
        #expect(try Self.segments(document, "current").count == 3)
    }

    @Test func severalCarriersGetATotalBlock() throws {
        let observations = LoginObservations(
            stages: RoutingReplayTests.observations.stages + [RoutingReplayTests.stage(.telecom, .tianyi, [.success: (1, 1000)])],
            plans: RoutingReplayTests.observations.plans + [RoutingReplayTests.plan(.telecom, [.tianyi, .sms], logins: 1, oneTap: 1, sms: 0, reached: 0, successTime: 1000)])
        let carriers = try LoginFunnelChartTests.nodes(try Self.document("tianyi sms", observations: observations), "//*[local-name()='g'][@class='carrier']")
        #expect(carriers.map { $0.value("data-carrier") } == ["mobile", "telecom", "all"])
    }
}
