import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing

/// `onetap replay` end to end: the committed sample replayed to the committed experiment policy.
@Suite struct ReplayCommandTests {
    static let sample = Package.path("Tests/Samples/login-events.ndjson")
    static let policy = Package.path("Tests/Samples/routing-policy-unicom.csv")

    static func objects(_ run: Run) throws -> [[String: Any]] {
        try run.lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
    }

    @Test func theExperimentPolicyOnTheSample() async throws {
        let run = try await Binary.run(["replay", "--policy", Self.policy, Self.sample, "--json", "--sms-price", "0.05", "--onetap-price", "0.03"])
        #expect(run.status == 0)
        #expect(run.stderr == "")
        let objects = try Self.objects(run)
        let unicom = try #require(objects.first { $0["carrier"] as? String == "unicom" })
        #expect(unicom["estimate"] as? Bool == true)
        // The Unicom SIMs planned tianyi → sms (81 in the sample; the stats rows say so) move to unicom → sms.
        #expect(unicom["changed"] as? Int == 81)
        let current = try #require(unicom["current"] as? [String: Any])
        let new = try #require(unicom["new"] as? [String: Any])
        #expect(current["firstFlows"] as? [String: Int] == ["tianyi": 81, "unicom": 20, "sms": 2])
        #expect(new["firstFlows"] as? [String: Int] == ["unicom": 101, "sms": 2])
        for scenario in [current, new] {
            for key in ["oneTapShare", "smsShare", "smsReach", "smsMessages", "smsCost", "oneTapSuccesses", "oneTapCost", "meanTimeToLoginMs"] {
                let estimate = try #require(scenario[key] as? [String: Any], "\(key)")
                let value = try #require(estimate["value"] as? Double), low = try #require(estimate["low"] as? Double), high = try #require(estimate["high"] as? Double)
                #expect(low <= value && value <= high, "\(key)")
            }
        }
        #expect((current["oneTapShare"] as? [String: Any])?["method"] as? String == "wilson")
        #expect((new["oneTapShare"] as? [String: Any])?["method"] as? String == "wilson-effective")
        // SMS cost is the messages at the price.
        let messages = try #require((new["smsMessages"] as? [String: Any])?["value"] as? Double)
        let cost = try #require((new["smsCost"] as? [String: Any])?["value"] as? Double)
        #expect(abs(cost - messages * 0.05) < 1e-4)
        // Carriers the policy leaves alone: new is current.
        let mobile = try #require(objects.first { $0["carrier"] as? String == "mobile" })
        #expect(mobile["changed"] as? Int == 0)
        #expect(NSDictionary(dictionary: mobile["new"] as? [String: Any] ?? [:]).isEqual(to: mobile["current"] as? [String: Any] ?? ["x": 1]))
        let total = try #require(objects.first { $0["total"] as? Bool == true })
        #expect(total["logins"] as? Int == 500)
        let summary = try #require(objects.last)
        #expect(summary["summary"] as? Bool == true)
        #expect(summary["estimate"] as? Bool == true)
        #expect((summary["intervals"] as? String)?.contains("Wilson") == true)
    }

    @Test func textSaysItIsAnEstimate() async throws {
        let run = try await Binary.run(["replay", "--policy", Self.policy, Self.sample])
        #expect(run.status == 0)
        #expect(run.lines[0] == "What-if replay of \(Self.policy) over 500 recorded logins in \(Self.sample)")
        #expect(run.lines[1].hasPrefix("This is an estimate: "))
        #expect(run.lines[2].hasPrefix("95% intervals: recorded shares Wilson score"))
        #expect(run.lines.contains("unicom: 103 logins, 81 planned differently (tried first: tianyi 81, unicom 20, sms 2 → unicom 101, sms 2)"))
        #expect(run.lines.contains("mobile: 294 logins, the new policy plans them all as before (tried first: mobile 287, sms 7)"))
        #expect(run.lines.contains { $0.hasPrefix("  one-tap share ") })
        #expect(!run.lines.contains { $0.hasPrefix("  SMS cost") }, "no price, no cost")
    }

    /// An attacker's read of the CLI: `--svg` naming the replacement policy read it and the events, then renamed the
    /// chart over the policy. Refused before anything is read (exit 64).
    @Test func aChartThatWouldReplaceThePolicyIsRefused() async throws {
        let directory = try Package.temporaryDirectory()
        defer { removeTemporary(directory) }
        let policy = directory.appendingPathComponent("policy.csv").path
        let original = try String(contentsOfFile: Self.policy, encoding: .utf8)
        try original.write(toFile: policy, atomically: true, encoding: .utf8)
        let run = try await Binary.run(["replay", "--policy", policy, Self.sample, "--svg", policy])
        #expect(run.status == 64 && run.stdout.isEmpty)
        #expect(run.stderr == "onetap: error: --svg '\(policy)' is '\(policy)', which this command reads: the output would replace it; nothing was read or written\n")
        #expect(try String(contentsOfFile: policy, encoding: .utf8) == original)
    }

    /// Routing Telecom SIMs to the Unicom flow: no Telecom login ever reached it, so it is unknown.
    @Test func aFlowNeverObservedIsUnknown() async throws {
        let directory = try Package.temporaryDirectory()
        defer { removeTemporary(directory) }
        let policy = directory.appendingPathComponent("telecom-unicom.csv").path
        let text = try String(contentsOfFile: Self.policy, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.hasPrefix("carrier:telecom,") ? "carrier:telecom,unicom sms,policy,test" : String($0) }.joined(separator: "\n")
        try text.write(toFile: policy, atomically: true, encoding: .utf8)
        let chart = directory.appendingPathComponent("replay.svg").path
        let run = try await Binary.run(["replay", "--policy", policy, Self.sample, "--json", "--svg", chart])
        #expect(run.status == 0)
        let telecom = try #require(try Self.objects(run).first { $0["carrier"] as? String == "telecom" })
        #expect(telecom["new"] is NSNull)
        #expect(telecom["unknown"] as? String == "no recorded telecom login in situation carrier:telecom ever reached the unicom flow")
        let total = try #require(try Self.objects(run).first { $0["total"] as? Bool == true })
        #expect(total["new"] is NSNull)
        let document = try XMLDocument(contentsOf: URL(fileURLWithPath: chart))
        #expect(try document.nodes(forXPath: "//*[local-name()='g'][@class='scenario new unknown']").count >= 1)
    }

    @Test func aBadPolicyIsSaidByFileAndLine() async throws {
        let directory = try Package.temporaryDirectory()
        defer { removeTemporary(directory) }
        let policy = directory.appendingPathComponent("bad.csv").path
        try "condition,flows,reason,source\ncarrier:mobile,mobile,policy,x\n".write(toFile: policy, atomically: true, encoding: .utf8)
        let bad = try await Binary.run(["replay", "--policy", policy, Self.sample])
        #expect(bad.status == 65)
        #expect(bad.stderr.hasPrefix("onetap: error: \(policy):2"))
        let missing = try await Binary.run(["replay", "--policy", "/nonexistent.csv", Self.sample])
        #expect(missing.status == 66)
        let usage = try await Binary.run(["replay", Self.sample])
        #expect(usage.status == 64)
        #expect(usage.stderr.contains("replay needs --policy FILE"))
    }
}
