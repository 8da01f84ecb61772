import Foundation
import OneTapTesting
import Testing
@testable import OneTap

/// The traffic generator behind the committed sample: reproducible, well-formed, and realistic enough
/// to be worth a funnel.
@Suite struct LoginTrafficGeneratorTests {
    /// How the committed sample is made: `LoginTrafficGenerator(seed: 15)`, 500 logins.
    static let sampleLogins = 500
    static let samplePath = Package.path("Tests/Samples/login-events.ndjson")
    static let policyPath = Package.path("Tests/Samples/routing-policy-unicom.csv")

    /// The committed sample is the generator's output; `ONETAP_WRITE_SAMPLES=1` rewrites it (after a
    /// change to the schema or the generator).
    @Test func theCommittedSampleIsTheGeneratorsOutput() throws {
        let text = LoginTrafficGenerator(seed: 15).ndjson(logins: Self.sampleLogins)
        let policy = LoginTrafficGenerator.experimentPolicyText
        if ProcessInfo.processInfo.environment["ONETAP_WRITE_SAMPLES"] == "1" {
            try text.write(toFile: Self.samplePath, atomically: true, encoding: .utf8)
            try policy.write(toFile: Self.policyPath, atomically: true, encoding: .utf8)
        }
        let committed = try String(contentsOfFile: Self.samplePath, encoding: .utf8)
        #expect(committed == text, "Tests/Samples/login-events.ndjson is not the generator's output: rerun with ONETAP_WRITE_SAMPLES=1")
        #expect(try String(contentsOfFile: Self.policyPath, encoding: .utf8) == policy)
    }

    @Test func theSameSeedMakesTheSameTrafficAndAnotherSeedOther() {
        #expect(LoginTrafficGenerator(seed: 7).ndjson(logins: 40) == LoginTrafficGenerator(seed: 7).ndjson(logins: 40))
        #expect(LoginTrafficGenerator(seed: 7).ndjson(logins: 40) != LoginTrafficGenerator(seed: 8).ndjson(logins: 40))
    }

    @Test func everyLineIsAVersion2LoginEventInTimeOrderAndEveryLoginStartsWithItsPlan() throws {
        let events = LoginTrafficGenerator(seed: 3).events(logins: 300)
        var started: Set<LoginSessionID> = []
        var ended: Set<LoginSessionID> = []
        var flowsByCarrier: [Carrier: Set<LoginFlow>] = [:]
        for (index, event) in events.enumerated() {
            if index > 0 { #expect(events[index - 1].at <= event.at, "event \(index) is out of time order") }
            guard case .login(let login, let context) = event.payload else {
                Issue.record("not a login event: \(event)")
                continue
            }
            if case .planned = login {
                #expect(started.insert(context.session).inserted, "a session planned twice")
            } else {
                #expect(started.contains(context.session), "an event before its login's plan")
            }
            if login.ending != nil { #expect(ended.insert(context.session).inserted, "a login ended twice") }
            if case .flowStarted(let flow, 1) = login { flowsByCarrier[context.carrier, default: []].insert(flow) }
            let line = StandardErrorEventSink.line(event)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(object["v"] as? Int == 2)
            #expect(!line.contains("\"T-"), "a token in an event: \(line)")
        }
        #expect(started.count == 300)
        #expect(ended.count >= 290, "most logins end; a few are left open")
        #expect(flowsByCarrier[.unicom]?.isSuperset(of: [.tianyi, .unicom, .sms]) == true, "the experiment observes the Unicom flow on Unicom SIMs")
        #expect(flowsByCarrier[.telecom]?.contains(.unicom) == false)
    }
}
