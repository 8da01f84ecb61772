import Foundation
import Testing
@testable import OneTapCore

/// A session's JSON: what a store keeps between requests. It must come back equal, whatever the
/// session went through, and a stored object that is no session must be refused.
@Suite struct LoginSessionTests {
    static let machine = GatedMachine(gate: RecordingGate([.tianyi: .rejected]))

    /// A session after these reports, each a second after the one before.
    static func session(_ start: LoginTransition, _ reports: [LoginReport]) -> LoginSession {
        var session = start.session
        for (index, report) in reports.enumerated() {
            session = try! machine.advance(session, report, at: start.session.createdAt.addingTimeInterval(Double(index) + 0.25)).session
        }
        return session
    }

    static func mobile(_ reports: [LoginReport], at start: Date = Fixture.now) -> LoginSession {
        session(machine.start(Fixture.mobileSIM, at: start, id: Fixture.id), reports)
    }

    static func four(_ reports: [LoginReport]) -> LoginSession {
        session(machine.start(plan: Fixture.fourFlows, at: Fixture.now, id: Fixture.id), reports)
    }

    /// Sessions in every stage, with every kind of step, alert, unknown exchange and verified login.
    static let sessions: [(String, LoginSession)] = [
        ("just started", mobile([])),
        ("retrying", mobile([.result(.mobile, code: "200023")])),
        ("exchanging", mobile([Fixture.success(.mobile, "T1")])),
        ("exchanging, started at a fractional instant", mobile([Fixture.success(.mobile, "T1")], at: Date(timeIntervalSince1970: 1_796_083_200.123_456))),
        ("at SMS after a misconfigured code", mobile([.result(.mobile, code: "103101")])),
        ("success after the exchange, with an account",
         mobile([Fixture.success(.mobile, "T1"), .exchanged(.answered("103000", phoneNumber: Fixture.number, account: "acct-1"))])),
        ("SMS success after an unknown exchange",
         mobile([Fixture.success(.mobile, "T1"), .exchanged(.timeout), Fixture.verdict()])),
        ("failed after a provider fault and an SMS timeout", mobile([.fault(.mobile, "SDK \"crashed\"\n"), .timeout(.sms)])),
        ("cancelled: no phone number", mobile([.result(.mobile, code: "103000"), .cancel(.sms, reason: .noPhoneNumber)])),
        ("cancelled by the caller", mobile([.cancel(.mobile, reason: .caller)])),
        ("the user backed out", mobile([.cancel(.mobile)])),
        ("a circuit open, no provider, a switch", four([.unavailable(.mobile), .switchToSMS(.unicom)])),
        ("every exchange step", four([
            Fixture.success(.mobile, "T1"), .exchanged(.tokenExpired), Fixture.success(.mobile, "T2"), .exchanged(.fault("reset")),
        ])),
        ("replayed and quota", session(machine.start(plan: Fixture.plan([.unicom, .sms]), at: Fixture.now, id: Fixture.id), [
            Fixture.success(.unicom, "U1"), .exchanged(.replayed),
        ])),
        ("an exchange alert", four([Fixture.success(.mobile, "T1"), Fixture.exchange("105312")])),
        ("exchange success without the number", four([Fixture.success(.mobile, "T1"), .exchanged(.answered("103000"))])),
        ("an app on HarmonyOS", session(machine.start(DeviceSnapshot(sim: .present, plmn: try! PLMN("46000"), platform: .harmonyOS), at: Fixture.now, id: Fixture.id),
                                        [.result(.mobile, code: "200023")])),
        ("ended before any flow", LoginSession(
            id: Fixture.otherID, plan: Fixture.fourFlows, stage: .ended(.failed, flow: nil), createdAt: Fixture.now, expiresAt: Fixture.now.addingTimeInterval(1))),
    ]

    @Test(arguments: sessions)
    func roundTrip(name: String, session: LoginSession) throws {
        let data = Data(try session.json().utf8)
        let decoded = try LoginSession(json: data)
        #expect(decoded == session)
        #expect(decoded.description == session.description)
        #expect(decoded.next == session.next)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["format"] as? String == "onetap-session/2")
        #expect(object["version"] as? Int == session.version)
        // No token in the clear: digests only.
        let text = String(decoding: data, as: UTF8.self)
        for token in ["T1", "T2", "U1"] { #expect(!text.contains("\"\(token)\"")) }
    }

    /// Instants as a server's clock gives them (any fraction of a second) come back exactly, so a stored
    /// session compares equal to the one written.
    @Test func aSessionStoredBeforePlatformsDecodesWithout() throws {
        var object = try #require(JSONSerialization.jsonObject(with: Data(Self.mobile([]).json().utf8)) as? [String: Any])
        #expect(object["platform"] == nil, "no platform key when the snapshot named none")
        object["platform"] = nil
        let decoded = try LoginSession(json: JSONSerialization.data(withJSONObject: object))
        #expect(decoded.platform == nil)
        #expect(decoded == Self.mobile([]))
    }

    @Test func theContextIsTheSessionsOwn() throws {
        let start = Self.machine.start(DeviceSnapshot(sim: .present, plmn: try PLMN("46011"), platform: .ios), at: Fixture.now, id: Fixture.id)
        #expect(start.context == LoginContext(session: Fixture.id, carrier: .telecom, evidence: .plmn, platform: .ios, startedAt: Fixture.now))
        #expect(start.context.elapsedMilliseconds(at: Fixture.now.addingTimeInterval(1.2345)) == 1235)
        #expect(start.context.elapsedMilliseconds(at: Fixture.now.addingTimeInterval(-5)) == 0, "a clock that stepped back counts as no time")
    }

    /// A session keeps its instants to the millisecond, as it stores them (whole milliseconds since
    /// 1970), so one read back equals the one written whatever fraction the clock gave.
    @Test func instantsComeBackExactly() throws {
        var random = SplitMix64(seed: 2026)
        for _ in 0..<2000 {
            let start = Date(timeIntervalSinceReferenceDate: 800_000_000 + Double(random.next() % 1_000_000_000_000) / 1_000_000)
            let session = Self.session(Self.machine.start(Fixture.mobileSIM, at: start, id: Fixture.id), [Fixture.success(.mobile, "T1"), .exchanged(.timeout)])
            let decoded = try LoginSession(json: session.json())
            #expect(decoded == session, "\(start.timeIntervalSinceReferenceDate)")
            #expect(abs(session.createdAt.timeIntervalSince(start)) <= 0.000_501 && abs(session.expiresAt.timeIntervalSince(start) - 600) <= 0.000_501)
            #expect(session.createdAt == Date(millisecondsSince1970: start.millisecondsSince1970))
            if decoded != session { break }
        }
    }

    @Test func theSessionsCoverEveryStageAndStep() throws {
        var stages = Set<String>()
        var codes = Set<String>()
        for (_, session) in Self.sessions {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(session.json().utf8)) as? [String: Any])
            stages.insert(try #require(object["stage"] as? String))
            for step in session.trace { codes.insert(step.result.code.hasPrefix("exchange-1") ? "exchange-code" : step.result.code) }
        }
        #expect(stages == ["flow", "exchange", "ended"])
        let every: Set<String> = [
            "200023", "103000", "103101", "timeout", "provider-error", "switch", "cancelled", "caller-cancelled", "no-phone-number", "circuit-open",
            "unavailable", "exchange-code", "exchange-timeout", "exchange-failed", "token-expired", "token-replayed", "0",
        ]
        #expect(every.subtracting(codes).isEmpty, "not covered: \(every.subtracting(codes))")
        #expect(Self.sessions.contains { !$0.1.unknownExchanges.isEmpty })
        #expect(Self.sessions.contains { $0.1.verified?.account != nil })
        #expect(Self.sessions.contains { !$0.1.alerts.isEmpty })
    }

    // MARK: Refusals

    /// A stored session's JSON object, changed.
    static func changed(_ session: LoginSession, _ change: (inout [String: Any]) -> Void) throws -> Data {
        var object = try #require(try JSONSerialization.jsonObject(with: Data(session.json().utf8)) as? [String: Any])
        change(&object)
        return try JSONSerialization.data(withJSONObject: object)
    }

    /// A key set to a wrong value (a number where the text reads as one), and the key the refusal names.
    @Test(arguments: [
        ("format", "onetap-session/3"), ("format", "session/1"), ("version", "0"), ("version", "-3"), ("stage", "paused"), ("stage", "Flow"),
        ("attempt", "0"), ("attempt", "-1"), ("id", "short"), ("id", "Session/ID+for-tests_0"),
    ])
    func refusesWhatIsNoSession(key: String, value: String) throws {
        let data = try Self.changed(Self.mobile([])) { $0[key] = Int(value).map { $0 as Any } ?? value }
        #expect {
            try LoginSession(json: data)
        } throws: { error in
            guard case DecodingError.dataCorrupted(let context) = error else { return false }
            return context.codingPath.last?.stringValue == key
        }
    }

    @Test func refusesAttemptZeroInTheExchangeStage() throws {
        let data = try Self.changed(Self.mobile([Fixture.success(.mobile, "T1")])) { $0["attempt"] = 0 }
        #expect(throws: DecodingError.self) { try LoginSession(json: data) }
    }

    @Test(arguments: ["format", "id", "version", "plan", "stage", "trace", "alerts", "createdAtMs", "expiresAtMs", "exchangedTokens", "unknownExchanges"])
    func refusesAMissingField(key: String) throws {
        let data = try Self.changed(Self.mobile([])) { $0[key] = nil }
        #expect {
            try LoginSession(json: data)
        } throws: { error in
            guard case DecodingError.keyNotFound(let missing, _) = error else { return false }
            return missing.stringValue == key
        }
    }

    @Test func refusesAnExchangeWithoutItsToken() throws {
        let data = try Self.changed(Self.mobile([Fixture.success(.mobile, "T1")])) { $0["token"] = "not hex" }
        #expect(throws: DecodingError.self) { try LoginSession(json: data) }
    }

    // MARK: What a client reads

    @Test(arguments: [
        ([LoginReport](), "run", LoginFlow.mobile as LoginFlow?, 1 as Int?),
        ([.result(.mobile, code: "200023")], "run", .mobile, 2),
        ([Fixture.success(.mobile, "T1")], "exchange", .mobile, 1),
        ([.result(.mobile, code: "102101")], "sms", .sms, 1),
        ([.cancel(.mobile)], "done", .mobile, nil),
    ])
    func whereTheLoginStands(reports: [LoginReport], next: String, flow: LoginFlow?, attempt: Int?) {
        let session = Self.mobile(reports)
        #expect(session.next == next)
        #expect(session.flow == flow)
        #expect(session.attempt == attempt)
        #expect(session.isOver == (next == "done"))
    }
}
