import Foundation
import Testing
@testable import OneTapCore

/// The login rules, written out: a device (or plan) and the reports that came in, against the trace,
/// instructions, versions, ending and alerts the rules call for. Expectations are written from the rules
/// in the machine's documentation and `Data/*.csv`, never read back from the machine.
@Suite struct LoginSessionMachineTests {
    let server = LoginSessionMachine()
    let device = LoginSessionMachine(exchanges: nil)

    // MARK: Scenarios

    struct Scenario: Sendable, CustomTestStringConvertible {
        enum Start: Sendable {
            case snapshot(DeviceSnapshot)
            case plan(LoginPlan)
        }

        let name: String
        var start: Start = .snapshot(Fixture.mobileSIM)
        var exchanges = true
        let reports: [LoginReport]
        /// The first instruction, before any report.
        var first = "run mobile 1"
        /// The whole trace at the end, `flow:code:action`.
        let trace: [String]
        /// The instruction after each report.
        let instructions: [String]
        /// The version after each report.
        let versions: [Int]
        /// How the login ended, or nil while it still runs.
        let ending: Decision.Ending?
        /// The alerts raised, `flow:code`.
        var alerts: [String] = []
        /// The tokens whose exchange has an unknown result.
        var unknown: [String] = []
        var testDescription: String { name }
    }

    static let F = Fixture.self

    static let scenarios: [Scenario] = [
        // Success, and what it needs.
        Scenario(name: "China Mobile success, then the exchange returns the number", reports: [F.success(.mobile, "T1"), F.exchange("103000")],
                 trace: ["mobile:103000:success", "mobile:exchange-103000:success"], instructions: ["exchange mobile", "done success mobile"],
                 versions: [2, 3], ending: .success),
        Scenario(name: "the authorisation page (200087) is progress, then success",
                 reports: [.result(.mobile, code: "200087"), F.success(.mobile, "T1"), F.exchange("103000")],
                 trace: ["mobile:103000:success", "mobile:exchange-103000:success"],
                 instructions: ["run mobile 1", "exchange mobile", "done success mobile"], versions: [1, 2, 3], ending: .success),
        Scenario(name: "seed 002's legacy 000 is success", reports: [.result(.mobile, code: "000", credential: F.credential(.mobile, "T1")), F.exchange("103000")],
                 trace: ["mobile:000:success", "mobile:exchange-103000:success"], instructions: ["exchange mobile", "done success mobile"],
                 versions: [2, 3], ending: .success),
        Scenario(name: "mobile 0 is not success: an unlisted code falls back",
                 reports: [.result(.mobile, code: "0", credential: F.credential(.mobile, "T1"))],
                 trace: ["mobile:0:fallback"], instructions: ["sms"], versions: [2], ending: nil),
        Scenario(name: "success without a token is a provider fault", reports: [.result(.mobile, code: "103000")],
                 trace: ["mobile:103000:fallback"], instructions: ["sms"], versions: [2], ending: nil),
        Scenario(name: "success with an empty token is a provider fault", reports: [.result(.mobile, code: "103000", credential: F.credential(.mobile, ""))],
                 trace: ["mobile:103000:fallback"], instructions: ["sms"], versions: [2], ending: nil),
        Scenario(name: "China Mobile success without a uniqueid is a provider fault",
                 reports: [.result(.mobile, code: "103000", credential: F.credential(.mobile, "T1", uniqueID: nil))],
                 trace: ["mobile:103000:fallback"], instructions: ["sms"], versions: [2], ending: nil),
        Scenario(name: "China Mobile success with an empty uniqueid is a provider fault",
                 reports: [.result(.mobile, code: "103000", credential: F.credential(.mobile, "T1", uniqueID: ""))],
                 trace: ["mobile:103000:fallback"], instructions: ["sms"], versions: [2], ending: nil),
        Scenario(name: "Tianyi success needs no uniqueid", start: .snapshot(F.telecomSIM), reports: [F.success(.tianyi, "A1"), F.exchange("0")],
                 first: "run tianyi 1", trace: ["tianyi:0:success", "tianyi:exchange-0:success"], instructions: ["exchange tianyi", "done success tianyi"],
                 versions: [2, 3], ending: .success),
        Scenario(name: "Tianyi success without its accessToken falls back", start: .snapshot(F.telecomSIM), reports: [.result(.tianyi, code: "0")],
                 first: "run tianyi 1", trace: ["tianyi:0:fallback"], instructions: ["sms"], versions: [2], ending: nil),
        Scenario(name: "Unicom success and exchange", start: .plan(F.plan([.unicom, .sms], carrier: .unicom)), reports: [F.success(.unicom, "U1"), F.exchange("0")],
                 first: "run unicom 1", trace: ["unicom:0:success", "unicom:exchange-0:success"], instructions: ["exchange unicom", "done success unicom"],
                 versions: [2, 3], ending: .success),

        // The result-code rules.
        Scenario(name: "retry once, then success", reports: [.result(.mobile, code: "200023"), F.success(.mobile, "T1"), F.exchange("103000")],
                 trace: ["mobile:200023:retry", "mobile:103000:success", "mobile:exchange-103000:success"],
                 instructions: ["run mobile 2", "exchange mobile", "done success mobile"], versions: [2, 3, 4], ending: .success),
        Scenario(name: "retry once, then the second retry code falls back",
                 reports: [.result(.mobile, code: "200023"), .result(.mobile, code: "102507")],
                 trace: ["mobile:200023:retry", "mobile:102507:fallback"], instructions: ["run mobile 2", "sms"], versions: [2, 3], ending: nil),
        Scenario(name: "Tianyi -8003 retried once then falls back", start: .snapshot(F.telecomSIM),
                 reports: [.result(.tianyi, code: "-8003"), .result(.tianyi, code: "-8003"), F.verdict()], first: "run tianyi 1",
                 trace: ["tianyi:-8003:retry", "tianyi:-8003:fallback", "sms:0:success"], instructions: ["run tianyi 2", "sms", "done success sms"],
                 versions: [2, 3, 4], ending: .success),
        Scenario(name: "fallback to SMS, which the SMS service verifies", reports: [.result(.mobile, code: "102101"), F.verdict()],
                 trace: ["mobile:102101:fallback", "sms:0:success"], instructions: ["sms", "done success sms"], versions: [2, 3], ending: .success),
        Scenario(name: "fallback walks the plan", start: .plan(F.fourFlows),
                 reports: [.result(.mobile, code: "102101"), .result(.tianyi, code: "-8994014"), .result(.unicom, code: "1")],
                 trace: ["mobile:102101:fallback", "tianyi:-8994014:fallback", "unicom:1:fallback"],
                 instructions: ["run tianyi 1", "run unicom 1", "sms"], versions: [2, 3, 4], ending: nil),
        Scenario(name: "misconfigured falls back to SMS and alerts", reports: [.result(.mobile, code: "103101")],
                 trace: ["mobile:103101:misconfigured"], instructions: ["sms"], versions: [2], ending: nil, alerts: ["mobile:103101"]),
        Scenario(name: "misconfigured goes to the plan's next flow, not straight to SMS", start: .plan(F.fourFlows),
                 reports: [.result(.mobile, code: "103511"), .result(.tianyi, code: "-64")],
                 trace: ["mobile:103511:misconfigured", "tianyi:-64:misconfigured"], instructions: ["run tianyi 1", "run unicom 1"], versions: [2, 3],
                 ending: nil, alerts: ["mobile:103511", "tianyi:-64"]),
        Scenario(name: "an unlisted China Mobile code falls back (seed 002)", reports: [.result(.mobile, code: "424242")],
                 trace: ["mobile:424242:fallback"], instructions: ["sms"], versions: [2], ending: nil),
        Scenario(name: "other login method (200060) switches to SMS past the rest of the plan", start: .plan(F.fourFlows),
                 reports: [.result(.mobile, code: "200060")], trace: ["mobile:200060:switch"], instructions: ["sms"], versions: [2], ending: nil),
        Scenario(name: "the user's own switch goes to SMS", start: .plan(F.fourFlows), reports: [.switchToSMS(.mobile)],
                 trace: ["mobile:switch:switch"], instructions: ["sms"], versions: [2], ending: nil),
        Scenario(name: "the user closes the page (200020): cancelled, no SMS", reports: [.result(.mobile, code: "200020")],
                 trace: ["mobile:200020:cancelled"], instructions: ["done cancelled mobile"], versions: [2], ending: .cancelled),
        Scenario(name: "the user backs out without a code", reports: [.cancel(.mobile)],
                 trace: ["mobile:cancelled:cancelled"], instructions: ["done cancelled mobile"], versions: [2], ending: .cancelled),
        Scenario(name: "the caller stops waiting", reports: [.cancel(.mobile, reason: .caller)],
                 trace: ["mobile:caller-cancelled:cancelled"], instructions: ["done cancelled mobile"], versions: [2], ending: .cancelled),
        Scenario(name: "no number on the SMS page", reports: [.timeout(.mobile), .cancel(.sms, reason: .noPhoneNumber)],
                 trace: ["mobile:timeout:fallback", "sms:no-phone-number:cancelled"], instructions: ["sms", "done cancelled sms"], versions: [2, 3],
                 ending: .cancelled),
        Scenario(name: "an unlisted Tianyi code fails the login, no SMS (seed 002)", start: .snapshot(F.telecomSIM),
                 reports: [.result(.tianyi, code: "-424242")], first: "run tianyi 1", trace: ["tianyi:-424242:failed"],
                 instructions: ["done failed tianyi"], versions: [2], ending: .failed),
        Scenario(name: "SMS that fails ends the login", reports: [.result(.mobile, code: "102101"), .result(.sms, code: "1")],
                 trace: ["mobile:102101:fallback", "sms:1:failed"], instructions: ["sms", "done failed sms"], versions: [2, 3], ending: .failed),
        Scenario(name: "SMS that times out has nothing to fall back to", reports: [.result(.mobile, code: "102101"), .timeout(.sms)],
                 trace: ["mobile:102101:fallback", "sms:timeout:fallback"], instructions: ["sms", "done failed sms"], versions: [2, 3], ending: .failed),
        Scenario(name: "no SIM: SMS at once", start: .snapshot(F.noSIM), reports: [F.verdict()], first: "sms", trace: ["sms:0:success"],
                 instructions: ["done success sms"], versions: [2], ending: .success),

        // No answer, a broken provider, no provider.
        Scenario(name: "a timeout falls back", start: .plan(F.fourFlows), reports: [.timeout(.mobile)], trace: ["mobile:timeout:fallback"],
                 instructions: ["run tianyi 1"], versions: [2], ending: nil),
        Scenario(name: "a provider fault falls back", reports: [.fault(.mobile, "SDK crashed")], trace: ["mobile:provider-error:fallback"],
                 instructions: ["sms"], versions: [2], ending: nil),
        Scenario(name: "a missing provider falls back", start: .plan(F.fourFlows), reports: [.unavailable(.mobile), .unavailable(.tianyi)],
                 trace: ["mobile:unavailable:fallback", "tianyi:unavailable:fallback"], instructions: ["run tianyi 1", "run unicom 1"], versions: [2, 3],
                 ending: nil),

        // Exchanges off: a one-tap success is the end.
        Scenario(name: "without exchanges a success ends the login at once", exchanges: false, reports: [F.success(.mobile, "T1")],
                 trace: ["mobile:103000:success"], instructions: ["done success mobile"], versions: [2], ending: .success),
        Scenario(name: "without exchanges a Tianyi success ends the login at once", start: .snapshot(F.telecomSIM), exchanges: false,
                 reports: [F.success(.tianyi, "A1")], first: "run tianyi 1", trace: ["tianyi:0:success"], instructions: ["done success tianyi"],
                 versions: [2], ending: .success),

        // The exchange's answers.
        Scenario(name: "exchange success without the number falls back", reports: [F.success(.mobile, "T1"), .exchanged(.answered("103000"))],
                 trace: ["mobile:103000:success", "mobile:exchange-failed:fallback"], instructions: ["exchange mobile", "sms"], versions: [2, 3],
                 ending: nil),
        Scenario(name: "exchange 104201 runs the flow once more for a new token",
                 reports: [F.success(.mobile, "T1"), F.exchange("104201"), F.success(.mobile, "T2"), F.exchange("103000")],
                 trace: ["mobile:103000:success", "mobile:exchange-104201:retry", "mobile:103000:success", "mobile:exchange-103000:success"],
                 instructions: ["exchange mobile", "run mobile 2", "exchange mobile", "done success mobile"], versions: [2, 3, 4, 5], ending: .success),
        Scenario(name: "exchange 104201 twice: the retry is used up, fall back",
                 reports: [F.success(.mobile, "T1"), F.exchange("104201"), F.success(.mobile, "T2"), F.exchange("104201")],
                 trace: ["mobile:103000:success", "mobile:exchange-104201:retry", "mobile:103000:success", "mobile:exchange-104201:fallback"],
                 instructions: ["exchange mobile", "run mobile 2", "exchange mobile", "sms"], versions: [2, 3, 4, 5], ending: nil),
        Scenario(name: "exchange 105312 (quota used up): SMS now, and alert", start: .plan(F.fourFlows), reports: [F.success(.mobile, "T1"), F.exchange("105312")],
                 trace: ["mobile:103000:success", "mobile:exchange-105312:switch"], instructions: ["exchange mobile", "sms"], versions: [2, 3],
                 ending: nil, alerts: ["mobile:exchange-105312"]),
        Scenario(name: "exchange 103101 (our signature): the next flow, and alert", start: .plan(F.fourFlows),
                 reports: [F.success(.mobile, "T1"), F.exchange("103101")],
                 trace: ["mobile:103000:success", "mobile:exchange-103101:misconfigured"], instructions: ["exchange mobile", "run tianyi 1"],
                 versions: [2, 3], ending: nil, alerts: ["mobile:exchange-103101"]),
        Scenario(name: "exchange 103511 (whitelist): SMS, and alert", reports: [F.success(.mobile, "T1"), F.exchange("103511")],
                 trace: ["mobile:103000:success", "mobile:exchange-103511:misconfigured"], instructions: ["exchange mobile", "sms"],
                 versions: [2, 3], ending: nil, alerts: ["mobile:exchange-103511"]),
        Scenario(name: "an unlisted exchange code takes the flow's default", start: .plan(F.fourFlows), reports: [F.success(.mobile, "T1"), F.exchange("999999")],
                 trace: ["mobile:103000:success", "mobile:exchange-999999:fallback"], instructions: ["exchange mobile", "run tianyi 1"],
                 versions: [2, 3], ending: nil),
        Scenario(name: "an exchange that timed out: SMS, and the token kept as unknown", start: .plan(F.fourFlows),
                 reports: [F.success(.mobile, "T1"), .exchanged(.timeout)],
                 trace: ["mobile:103000:success", "mobile:exchange-timeout:switch"], instructions: ["exchange mobile", "sms"], versions: [2, 3],
                 ending: nil, unknown: ["T1"]),
        Scenario(name: "an exchange fault falls back", start: .plan(F.fourFlows), reports: [F.success(.mobile, "T1"), .exchanged(.fault("connection reset"))],
                 trace: ["mobile:103000:success", "mobile:exchange-failed:fallback"], instructions: ["exchange mobile", "run tianyi 1"],
                 versions: [2, 3], ending: nil),
        Scenario(name: "a token too old to exchange runs the flow once more", reports: [F.success(.mobile, "T1"), .exchanged(.tokenExpired)],
                 trace: ["mobile:103000:success", "mobile:token-expired:retry"], instructions: ["exchange mobile", "run mobile 2"], versions: [2, 3],
                 ending: nil),
        Scenario(name: "a replayed token goes to SMS", start: .plan(F.fourFlows), reports: [F.success(.mobile, "T1"), .exchanged(.replayed)],
                 trace: ["mobile:103000:success", "mobile:token-replayed:switch"], instructions: ["exchange mobile", "sms"], versions: [2, 3],
                 ending: nil),
        Scenario(name: "Tianyi exchange 51005 retries; 51002 alerts", start: .plan(F.plan([.tianyi, .sms], carrier: .telecom)),
                 reports: [F.success(.tianyi, "A1"), F.exchange("51005"), F.success(.tianyi, "A2"), F.exchange("51002")], first: "run tianyi 1",
                 trace: ["tianyi:0:success", "tianyi:exchange-51005:retry", "tianyi:0:success", "tianyi:exchange-51002:misconfigured"],
                 instructions: ["exchange tianyi", "run tianyi 2", "exchange tianyi", "sms"], versions: [2, 3, 4, 5], ending: nil,
                 alerts: ["tianyi:exchange-51002"]),
    ]

    func transition(_ machine: LoginSessionMachine, _ start: Scenario.Start) -> LoginTransition {
        switch start {
        case .snapshot(let snapshot): machine.start(snapshot, at: Fixture.now, id: Fixture.id)
        case .plan(let plan): machine.start(plan: plan, at: Fixture.now, id: Fixture.id)
        }
    }

    /// A client's fault text reaches the trace, events and terminals only short and without control or format
    /// characters (an attacker's read: an escape sequence in it reached `onetap stats` as it came).
    @Test func aClientsFaultTextIsStoredWithoutControlOrFormatCharacters() throws {
        let start = device.start(DeviceSnapshot(plmn: try PLMN("46000")), at: Fixture.now, id: Fixture.id)
        let hostile = "crashed\u{1B}]0;owned\u{7}\u{9B}2J\u{202E}" + String(repeating: "x", count: 500)
        let report = LoginReport.fault(.mobile, hostile).bound(to: start.session)
        let after = try device.advance(start.session, report, version: start.session.version, at: Fixture.now.addingTimeInterval(1))
        let step = try #require(after.session.trace.first)
        let replaced = "crashed\u{FFFD}]0;owned\u{FFFD}\u{FFFD}2J\u{FFFD}"   // 21 scalars, then x up to 200
        let shown = replaced + String(repeating: "x", count: 200 - 21)
        #expect(step.result == .providerError(shown))
        #expect(step.meaning == "the provider failed (\(shown)): fall back")
        #expect(!step.meaning.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x9B || $0.value == 0x202E })
    }

    /// A number in a client's fault text is masked before the text is cut to 200 characters: a number the cut parts
    /// leaves none of its hidden digits (an attacker's read: cut first, `1380013` stayed in the trace as it came, and
    /// the event writer's masking found no whole number to hide).
    @Test func aNumberTheCutWouldPartIsMaskedFirst() throws {
        let start = device.start(DeviceSnapshot(plmn: try PLMN("46000")), at: Fixture.now, id: Fixture.id)
        let text = String(repeating: "x", count: 193) + "13800138000 and +86 139 0013 9000"
        let after = try device.advance(start.session, LoginReport.fault(.mobile, text).bound(to: start.session), version: 1, at: Fixture.now.addingTimeInterval(1))
        let step = try #require(after.session.trace.first)
        #expect(step.result == .providerError(String(repeating: "x", count: 193) + "138****"))
        // The report itself describes its text as the session keeps it.
        #expect(LoginReport.fault(.mobile, text).description == "fault mobile: " + String(repeating: "x", count: 193) + "138****")
    }

    @Test(arguments: scenarios)
    func scenario(_ scenario: Scenario) throws {
        let machine = scenario.exchanges ? server : device
        var transition = transition(machine, scenario.start)
        #expect(Fixture.summary(transition.instruction) == scenario.first)
        #expect(transition.session.version == 1)
        var instructions: [String] = []
        var versions: [Int] = []
        for (index, report) in scenario.reports.enumerated() {
            let session = transition.session
            transition = try machine.advance(session, report.bound(to: session), version: session.version, at: Fixture.now.addingTimeInterval(Double(index + 1)))
            instructions.append(Fixture.summary(transition.instruction))
            versions.append(transition.session.version)
        }
        let session = transition.session
        #expect(session.trace.map(Fixture.summary) == scenario.trace)
        #expect(instructions == scenario.instructions)
        #expect(versions == scenario.versions)
        #expect(session.ending == scenario.ending)
        #expect(session.isOver == (scenario.ending != nil))
        #expect(session.alerts.map { "\($0.flow):\($0.code)" } == scenario.alerts)
        #expect(session.unknownExchanges.map(\.token) == scenario.unknown.map(Fixture.digest))
        #expect(session.unknownExchanges.allSatisfy { $0.flow == session.plan.flows[0] })
        // Who logged in is known after the exchange or the SMS verdict; a device without exchanges does not know.
        let verifies = scenario.ending == .success && (scenario.exchanges || session.flow == .sms)
        #expect(session.verified == (verifies ? VerifiedLogin(phoneNumber: Fixture.number) : nil))
        if case .done(_, let flow, let verified) = transition.instruction {
            #expect(verified == session.verified && flow == session.flow)
        }
        // A token was kept only when it was sent for exchange, and never in the clear.
        let json = try session.json()
        for token in ["T1", "T2", "A1", "A2", "U1"] { #expect(!json.contains("\"\(token)\"")) }
    }

    // MARK: Progress

    @Test(arguments: ["200087", "200029", "200089"] as [ResultCode])
    func progressChangesNothing(code: ResultCode) throws {
        let start = server.start(Fixture.mobileSIM, at: Fixture.now, id: Fixture.id)
        let after = try server.advance(start.session, .result(.mobile, code: code), version: 1, at: Fixture.now.addingTimeInterval(1))
        #expect(after.session == start.session)
        #expect(after.session.version == 1)
        #expect(after.session.trace.isEmpty)
        #expect(Fixture.summary(after.instruction) == "run mobile 1")
        #expect(after.events == [.progress(flow: .mobile, code: code.text)])

        // Progress on a retry attempt keeps that attempt.
        let retried = try server.advance(start.session, .result(.mobile, code: "200023"), at: Fixture.now)
        let waiting = try server.advance(retried.session, .result(.mobile, code: code), version: 2, at: Fixture.now)
        #expect(waiting.session == retried.session)
        #expect(Fixture.summary(waiting.instruction) == "run mobile 2")
    }

    // MARK: The exchange

    @Test func successAsksForTheExchangeWithTheCredential() throws {
        let start = server.start(Fixture.mobileSIM, at: Fixture.now, id: Fixture.id)
        let received = Fixture.now.addingTimeInterval(7)
        let credential = CarrierCredential(flow: .mobile, token: Secret("abc"), uniqueID: "uid-9", maskedNumber: "138****8000")
        let after = try server.advance(start.session, .result(.mobile, code: "103000", credential: credential), version: 1, at: received)
        guard case .exchange(let asked) = after.instruction else {
            Issue.record("expected an exchange instruction, got \(after.instruction)")
            return
        }
        #expect(asked.flow == .mobile && asked.token.reveal() == "abc" && asked.uniqueID == "uid-9" && asked.maskedNumber == "138****8000")
        // SHA-256("abc") from FIPS 180-2, appendix B.1.
        let abc = try #require(SHA256Digest(hex: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"))
        #expect(after.session.stage == .exchange(.mobile, attempt: 1, token: abc, receivedAt: received))
        #expect(after.session.exchangedTokens == [abc])
        #expect(after.session.next == "exchange")
        #expect(after.session.version == 2)
    }

    /// An attacker's read of the session machine: a repeat of the success report recovered the exchange on its token
    /// alone, whatever its code and the rest of its credential, and a resend of an `unknown` exchange goes to the
    /// carrier with the repeat's credential: one without its uniqueid (or with a failure code) was sent, and billed.
    /// A repeat recovers the exchange only as a success report would start it: a success code and a whole credential.
    @Test func aRepeatedSuccessRecoversTheExchangeOnlyAsAWholeSuccessReport() throws {
        var transition = server.start(Fixture.mobileSIM, at: Fixture.now, id: Fixture.id)
        transition = try server.advance(transition.session, Fixture.success(.mobile, "T1"), at: Fixture.now)
        let whole = Fixture.success(.mobile, "T1")
        let noUniqueID = LoginReport.result(.mobile, code: "103000", credential: CarrierCredential(flow: .mobile, token: Secret("T1")))
        let failureCode = LoginReport.result(.mobile, code: "102101", credential: Fixture.credential(.mobile, "T1"))
        #expect(server.exchangeToRecover(transition.session, whole, version: 1, at: Fixture.now) != nil)
        #expect(server.exchangeToRecover(transition.session, noUniqueID, version: 1, at: Fixture.now) == nil)
        #expect(server.exchangeToRecover(transition.session, failureCode, version: 1, at: Fixture.now) == nil)
    }

    /// A repeat of a success report is one only with the credential of the login's flow: the same token marked as
    /// another carrier's (held to that carrier's lifetime, sent through its adapter) recovers no exchange and is
    /// told no success (an attacker's read).
    @Test func aRepeatedSuccessMustCarryTheCredentialOfTheLoginsFlow() throws {
        var transition = server.start(Fixture.mobileSIM, at: Fixture.now, id: Fixture.id)
        transition = try server.advance(transition.session, Fixture.success(.mobile, "T1"), at: Fixture.now)
        let honest = LoginReport.result(.mobile, code: "103000", credential: CarrierCredential(flow: .mobile, token: Secret("T1"), uniqueID: "uid-1"))
        let relabelled = LoginReport.result(.mobile, code: "103000", credential: CarrierCredential(flow: .tianyi, token: Secret("T1")))
        let recovered = (
            honest: server.exchangeToRecover(transition.session, honest, version: 1, at: Fixture.now),
            relabelled: server.exchangeToRecover(transition.session, relabelled, version: 1, at: Fixture.now))
        #expect(recovered.honest != nil && recovered.relabelled == nil)
        // Asked again only within the minute after the login's end (600 s) in which its answer is taken: later the
        // guard is not asked (it may resend an unknown exchange, billed again).
        #expect(server.exchangeToRecover(transition.session, honest, version: 1, at: Fixture.now.addingTimeInterval(659)) != nil)
        #expect(server.exchangeToRecover(transition.session, honest, version: 1, at: Fixture.now.addingTimeInterval(660)) == nil)
        transition = try server.advance(transition.session, LoginReport.exchanged(.answered("103000", phoneNumber: Fixture.number, account: "acct-7")).bound(to: transition.session), at: Fixture.now)
        let repeats = (honest: server.repeatsSuccess(transition.session, honest, version: 1), relabelled: server.repeatsSuccess(transition.session, relabelled, version: 1))
        #expect(repeats.honest && !repeats.relabelled)
    }

    @Test func exchangeSuccessRecordsTheVerifiedLogin() throws {
        var transition = server.start(Fixture.mobileSIM, at: Fixture.now, id: Fixture.id)
        transition = try server.advance(transition.session, Fixture.success(.mobile, "T1"), at: Fixture.now)
        transition = try server.advance(transition.session, LoginReport.exchanged(.answered("103000", phoneNumber: Fixture.number, account: "acct-7")).bound(to: transition.session), at: Fixture.now)
        let expected = VerifiedLogin(phoneNumber: Fixture.number, account: "acct-7")
        #expect(transition.session.verified == expected)
        guard case .done(.success, .mobile, let verified) = transition.instruction else {
            Issue.record("expected done success via mobile, got \(transition.instruction)")
            return
        }
        #expect(verified == expected)
    }

    @Test func smsSuccessRecordsTheVerifiedNumber() throws {
        var transition = server.start(Fixture.noSIM, at: Fixture.now, id: Fixture.id)
        transition = try server.advance(transition.session, Fixture.verdict(), version: 1, at: Fixture.now)
        #expect(transition.session.verified == VerifiedLogin(phoneNumber: Fixture.number))
        #expect(transition.session.ending == .success && transition.session.flow == .sms)
    }

    // MARK: Rejections

    struct Rejection: Sendable, CustomTestStringConvertible {
        let name: String
        var start: Scenario.Start = .snapshot(Fixture.mobileSIM)
        /// Accepted first.
        var before: [LoginReport] = []
        let report: LoginReport
        var version: Int? = nil
        /// Seconds after the start the report comes.
        var at: Double = 1
        let kind: LoginRejection.Kind
        var testDescription: String { name }
    }

    static let rejections: [Rejection] = [
        Rejection(name: "a stale version (a double submit)", before: [.result(.mobile, code: "200023")], report: .result(.mobile, code: "200023"),
                  version: 1, kind: .staleVersion),
        Rejection(name: "a version the session never had", report: .result(.mobile, code: "102101"), version: 2, kind: .unknownVersion),
        Rejection(name: "a far-future version", report: .result(.mobile, code: "102101"), version: 99, kind: .unknownVersion),
        Rejection(name: "a version 0", report: .result(.mobile, code: "102101"), version: 0, kind: .staleVersion),
        Rejection(name: "another flow's result", report: .result(.tianyi, code: "0", credential: Fixture.credential(.tianyi, "A1")), kind: .wrongFlow),
        Rejection(name: "an SMS result while a one-tap flow runs", report: .result(.sms, code: "1"), kind: .wrongFlow),
        Rejection(name: "an SMS verdict while a one-tap flow runs", report: Fixture.verdict(), kind: .wrongFlow),
        Rejection(name: "a timeout of another flow", report: .timeout(.tianyi), kind: .wrongFlow),
        Rejection(name: "a one-tap result once at SMS", before: [.result(.mobile, code: "102101")], report: Fixture.success(.mobile, "T1"), kind: .wrongFlow),
        Rejection(name: "an exchange answer while a flow runs", report: Fixture.exchange("103000"), kind: .unexpected),
        Rejection(name: "an exchange timeout while a flow runs", report: .exchanged(.timeout), kind: .unexpected),
        Rejection(name: "a flow result while the server exchanges", before: [Fixture.success(.mobile, "T1")], report: .result(.mobile, code: "102101"),
                  kind: .unexpected),
        Rejection(name: "a second success while the server exchanges", before: [Fixture.success(.mobile, "T1")], report: Fixture.success(.mobile, "T2"),
                  kind: .unexpected),
        Rejection(name: "a cancel while the server exchanges", before: [Fixture.success(.mobile, "T1")], report: .cancel(.mobile), kind: .unexpected),
        Rejection(name: "a report after a cancel", before: [.cancel(.mobile)], report: .result(.mobile, code: "102101"), kind: .ended),
        Rejection(name: "a verdict after the login failed", start: .snapshot(Fixture.telecomSIM), before: [.result(.tianyi, code: "-424242")],
                  report: Fixture.verdict(), kind: .ended),
        Rejection(name: "a report after success, with a stale version", before: [Fixture.success(.mobile, "T1"), Fixture.exchange("103000")],
                  report: .result(.mobile, code: "102101"), version: 1, kind: .ended),
        Rejection(name: "a report exactly at expiry", report: .result(.mobile, code: "102101"), at: 600, kind: .expired),
        Rejection(name: "a report after expiry", report: .result(.mobile, code: "102101"), at: 601, kind: .expired),
        Rejection(name: "progress after expiry", report: .result(.mobile, code: "200087"), at: 86_400, kind: .expired),
        // The answer of an exchange begun in time is taken up to a minute after the login's end (it was billed).
        Rejection(name: "an exchange answer a minute after expiry", before: [Fixture.success(.mobile, "T1")], report: Fixture.exchange("103000"), at: 660,
                  kind: .expired),
        Rejection(name: "another report in the minute after expiry", before: [Fixture.success(.mobile, "T1")], report: .result(.mobile, code: "102101"),
                  at: 630, kind: .expired),
        Rejection(name: "the same token reported twice", before: [Fixture.success(.mobile, "T1"), Fixture.exchange("104201")],
                  report: Fixture.success(.mobile, "T1"), kind: .alreadyExchanged),
        Rejection(name: "the same Tianyi code reported again after a token-expired retry", start: .snapshot(Fixture.telecomSIM),
                  before: [Fixture.success(.tianyi, "A1"), .exchanged(.tokenExpired)], report: Fixture.success(.tianyi, "A1"), kind: .alreadyExchanged),
        Rejection(name: "an SMS success code from the client", before: [.result(.mobile, code: "102101")], report: .result(.sms, code: "0"),
                  kind: .unverifiedSMS),
        Rejection(name: "an SMS success code from the client, with a credential", start: .snapshot(Fixture.noSIM),
                  report: .result(.sms, code: "0", credential: Fixture.credential(.sms, "S1")), kind: .unverifiedSMS),
        Rejection(name: "a mobile success carrying Tianyi's credential", report: .result(.mobile, code: "103000", credential: Fixture.credential(.tianyi, "T9")),
                  kind: .wrongFlow),
        Rejection(name: "an SMS verdict for another session", start: .snapshot(Fixture.noSIM), report: Fixture.verdict(for: Fixture.otherID),
                  kind: .unverifiedSMS),
    ]

    /// The answer of an exchange begun before the login's end (600 s) is taken up to a minute after it (the carrier
    /// billed it), and the login's success is told as long: at 630 s and at 659.999 s; at 660 s it is refused.
    @Test(arguments: [630.0, 659.999])
    func anExchangesAnswerWithinAMinuteOfTheEndIsTaken(_ at: Double) throws {
        let machine = LoginSessionMachine()
        let started = machine.start(Fixture.mobileSIM, at: Fixture.now, id: Fixture.id)
        let exchanging = try machine.advance(started.session, Fixture.success(.mobile, "T1"), at: Fixture.now.addingTimeInterval(599))
        let answered = try machine.advance(exchanging.session, Fixture.exchange("103000").bound(to: exchanging.session), at: Fixture.now.addingTimeInterval(at))
        guard case .done(.success, .mobile, _) = answered.instruction else {
            Issue.record("\(answered.instruction)")
            return
        }
        #expect(answered.session.ending == .success)
    }

    @Test(arguments: rejections)
    func rejection(_ given: Rejection) throws {
        let gate = RecordingGate()
        let machine = GatedMachine(gate: gate)
        var transition = switch given.start {
        case .snapshot(let snapshot): machine.start(snapshot, at: Fixture.now, id: Fixture.id)
        case .plan(let plan): machine.start(plan: plan, at: Fixture.now, id: Fixture.id)
        }
        for report in given.before {
            transition = try machine.advance(transition.session, report, at: Fixture.now)
        }
        let session = transition.session
        let encoded = try session.json()
        let reportsBefore = gate.reports
        do {
            let accepted = try machine.advance(session, given.report, version: given.version, at: Fixture.now.addingTimeInterval(given.at))
            Issue.record("accepted: \(accepted.session), \(accepted.instruction)")
        } catch {
            #expect(error.kind == given.kind, "\(error)")
            #expect(error.session == Fixture.id)
            #expect(!error.message.isEmpty)
        }
        // Nothing changed: the session is as stored, and the gate heard nothing.
        #expect(session == transition.session)
        #expect(try session.json() == encoded)
        #expect(gate.reports == reportsBefore)
    }

    @Test func oneInstantBeforeExpiryIsAccepted() throws {
        let start = server.start(Fixture.mobileSIM, at: Fixture.now, id: Fixture.id)
        #expect(start.session.expiresAt == Fixture.now.addingTimeInterval(600))
        let instant = start.session.expiresAt.addingTimeInterval(-0.001)
        let after = try server.advance(start.session, .result(.mobile, code: "102101"), version: 1, at: instant)
        #expect(after.session.version == 2)
        #expect(Fixture.summary(after.instruction) == "sms")
    }

    @Test func aShorterLifetimeExpiresSooner() throws {
        let machine = LoginSessionMachine(sessionLifetime: .seconds(30))
        let start = machine.start(Fixture.mobileSIM, at: Fixture.now, id: Fixture.id)
        #expect(start.session.expiresAt == Fixture.now.addingTimeInterval(30))
        #expect(throws: LoginRejection.self) { try machine.advance(start.session, .timeout(.mobile), at: Fixture.now.addingTimeInterval(30)) }
        #expect(try machine.advance(start.session, .timeout(.mobile), at: Fixture.now.addingTimeInterval(29)).session.version == 2)
    }

    @Test func aVerdictForACodeSentOutsideAnySessionCompletesNone() throws {
        // A code sent for no session proves the number, not this login: only a code sent for the session completes it.
        let start = server.start(Fixture.noSIM, at: Fixture.now, id: Fixture.id)
        let error = #expect(throws: LoginRejection.self) { try server.advance(start.session, Fixture.verdict(for: nil), at: Fixture.now) }
        #expect(error?.kind == .unverifiedSMS)
    }

    // MARK: The channel gate

    @Test func aRejectedFlowIsSkippedWithACircuitOpenStep() throws {
        let gate = RecordingGate([.mobile: .rejected])
        let machine = GatedMachine(gate: gate)
        let start = machine.start(Fixture.mobileSIM, at: Fixture.now, id: Fixture.id)
        #expect(Fixture.summary(start.instruction) == "sms")
        #expect(start.session.version == 1)
        #expect(start.session.trace.map(Fixture.summary) == ["mobile:circuit-open:fallback"])
        #expect(start.session.trace.first?.attempt == 0)
        #expect(start.session.trace.first?.next == .attempt(.sms))
        #expect(start.channelReports.isEmpty)   // a skipped flow was no attempt
        #expect(gate.reports.isEmpty)
        #expect(start.events.map(\.name) == ["planned", "result", "fallback", "flow-started"])
        #expect(start.events.contains { if case .result(let step) = $0 { step.flow == .mobile && step.result == .circuitOpen } else { false } })
    }

    @Test func aRejectedFlowLaterInThePlanIsSkippedWhenReached() throws {
        let gate = RecordingGate([.tianyi: .rejected, .unicom: .rejected])
        let machine = GatedMachine(gate: gate)
        let start = machine.start(plan: Fixture.fourFlows, at: Fixture.now, id: Fixture.id)
        #expect(Fixture.summary(start.instruction) == "run mobile 1")
        #expect(start.session.trace.isEmpty)
        let after = try machine.advance(start.session, .result(.mobile, code: "102101"), version: 1, at: Fixture.now)
        #expect(after.session.trace.map(Fixture.summary) == ["mobile:102101:fallback", "tianyi:circuit-open:fallback", "unicom:circuit-open:fallback"])
        #expect(Fixture.summary(after.instruction) == "sms")
        #expect(after.session.version == 2)
        #expect(after.channelReports.map(\.description) == ["mobile/mobile: fallback (client)"])   // only the attempt that ran; SMS has no circuit
    }

    @Test(arguments: [ChannelAdmission.allowed, .probe])
    func anAdmittedFlowRuns(admission: ChannelAdmission) {
        let gate = RecordingGate([.mobile: admission])
        let start = GatedMachine(gate: gate).start(Fixture.mobileSIM, at: Fixture.now, id: Fixture.id)
        #expect(Fixture.summary(start.instruction) == "run mobile 1")
        #expect(start.session.trace.isEmpty)
        // Entering a half-open circuit's flow makes the attempt its probe, for the caller to reserve.
        #expect(start.channelReports.map(\.description) == (admission == .probe ? ["probing mobile/mobile"] : []))
    }

    @Test func aRetryIsNoNewProbe() throws {
        let gate = RecordingGate([.mobile: .probe])
        let machine = GatedMachine(gate: gate)
        let start = machine.start(Fixture.mobileSIM, at: Fixture.now, id: Fixture.id)
        let retry = try machine.advance(start.session, .result(.mobile, code: "200023"), at: Fixture.now)
        #expect(Fixture.summary(retry.instruction) == "run mobile 2")
        #expect(gate.probed == [.mobile])
        // A retry tells the breaker nothing: the retry's own answer does (the probe's slot stays with the login).
        #expect(retry.channelReports.isEmpty)
    }

    /// What the gate hears after each kind of report on a China Mobile SIM's first attempt.
    @Test(arguments: [
        (LoginReport.result(.mobile, code: "102101"), [OutcomeAction.fallback]),
        (.result(.mobile, code: "200023"), []),   // a retry: its own attempt's end is heard
        (.result(.mobile, code: "103101"), [.misconfigured]),
        (.result(.mobile, code: "200020"), [.cancelled]),
        (.result(.mobile, code: "200060"), [.switch]),
        (.result(.mobile, code: "424242"), [.fallback]),
        (.result(.mobile, code: "103000"), [.fallback]),   // a success without its token: the provider failed
        (Fixture.success(.mobile, "T1"), []),   // a success counts once its exchange succeeded, not when reported
        (.cancel(.mobile, reason: .user), [.cancelled]),
        (.cancel(.mobile, reason: .caller), [.cancelled]),   // counted by no breaker, as the user's: it frees a probe the login held
        (.switchToSMS(.mobile), [.switch]),
        (.timeout(.mobile), [.fallback]),
        (.fault(.mobile, "crashed"), [.fallback]),
        (.unavailable(.mobile), [.cancelled]),   // nothing was attempted: counted by no breaker, as a cancel; it frees a probe the login held
        (.result(.mobile, code: "200087"), []),   // progress is never recorded
    ] as [(LoginReport, [OutcomeAction])])
    func theGateHearsHowAnAttemptEnded(report: LoginReport, actions: [OutcomeAction]) throws {
        let gate = RecordingGate()
        let machine = GatedMachine(gate: gate)
        let start = machine.start(Fixture.mobileSIM, at: Fixture.now, id: Fixture.id)
        _ = try machine.advance(start.session, report, version: 1, at: Fixture.now)
        #expect(gate.actions == actions)
        #expect(gate.records.allSatisfy { $0.flow == .mobile && $0.carrier == .mobile })
    }

    /// Nothing of SMS; the exchange's failure answer to the client's token as the client's word; the
    /// client's own reports as its word.
    @Test func theGateHearsNothingOfSMSAndTheExchangeAsTheClientsWord() throws {
        let gate = RecordingGate()
        let machine = GatedMachine(gate: gate)
        var transition = machine.start(plan: Fixture.fourFlows, at: Fixture.now, id: Fixture.id)
        for report: LoginReport in [Fixture.success(.mobile, "T1"), Fixture.exchange("103101"), .timeout(.tianyi), .result(.unicom, code: "1"), .result(.sms, code: "1")] {
            transition = try machine.advance(transition.session, report, at: Fixture.now)
        }
        #expect(transition.session.ending == .failed)
        #expect(gate.records.map(\.description) == ["mobile/mobile: failed", "mobile/tianyi: fallback", "mobile/unicom: fallback"])
        #expect(gate.records.map(\.source) == [.client, .client, .client])
    }

    /// What the breaker hears of each exchange answer, and who saw it (issue 21): the server's own
    /// time-out and the carrier's success with the number are the server's (so is a call that never
    /// reached the carrier: `LoginServerBreakerTests`); a failure code, or a fault the adapter threw on the
    /// carrier's answer, is the carrier's verdict on the client's token, so the client's word; a spent or stale token
    /// (`retry`), a token too old to send and a replay say nothing of the channel.
    @Test(arguments: [
        (ExchangeAnswer.answered("103000", phoneNumber: Fixture.number), ["success server"]),
        (.answered("103000"), ["failed client"]),   // success without the number
        (.answered("103211"), ["failed client"]),   // fallback: other error
        (.answered("103101"), ["failed client"]),   // misconfigured
        (.answered("104201"), []),                  // retry: the token expired or was used
        (.timeout, ["failed server"]),
        (.fault("the body was not JSON"), ["failed client"]),   // not an unreached carrier
        (.tokenExpired, []),
        (.replayed, []),
    ] as [(ExchangeAnswer, [String])])
    func theGateHearsTheExchangesAnswerBySource(answer: ExchangeAnswer, heard: [String]) throws {
        let gate = RecordingGate()
        let machine = GatedMachine(gate: gate)
        let start = machine.start(Fixture.mobileSIM, at: Fixture.now, id: Fixture.id)
        let exchanging = try machine.advance(start.session, Fixture.success(.mobile, "T1"), version: 1, at: Fixture.now)
        #expect(gate.records.isEmpty, "a success is not counted before its exchange")
        _ = try machine.advance(exchanging.session, .exchanged(answer), at: Fixture.now)
        #expect(gate.records.map { "\($0.action) \($0.source)" } == heard)
    }

    /// The review of the cancel fix: an exchange that ends because its caller went away counts nothing and frees a
    /// probe, whether it was a time-out or a fault (the guard answers a caller gone before the send with a fault):
    /// the fault case counted it as the client's failure.
    @Test(arguments: [ExchangeAnswer.timeout, .fault("the caller went away before the token was sent")])
    func anExchangeTheCallerLeftCountsNothing(answer: ExchangeAnswer) throws {
        let gate = RecordingGate()
        let machine = GatedMachine(gate: gate)
        let start = machine.start(Fixture.mobileSIM, at: Fixture.now, id: Fixture.id)
        let exchanging = try machine.advance(start.session, Fixture.success(.mobile, "T1"), version: 1, at: Fixture.now)
        _ = try machine.advance(exchanging.session, .exchange(ExchangeOutcome(answer, token: nil, saysNothingOfTheChannel: true)).bound(to: exchanging.session), at: Fixture.now)
        #expect(gate.records.map { "\($0.action) \($0.source)" } == ["cancelled client"])
    }

    // MARK: Properties over random logins

    /// The reports a random login draws from: valid and invalid, for every flow.
    struct Pool {
        static let codes: [ResultCode] = [
            "103000", "000", "0", "200087", "200029", "200023", "102507", "102101", "103101", "200020", "200060", "424242",
            "-8003", "-8994014", "-64", "80200", "-424242", "1", "2", "100", "101007",
        ]
        static let exchangeCodes: [ResultCode] = ["103000", "0", "104201", "103101", "105312", "51005", "999999"]
        static let tokens = ["T0", "T1"]
        static let flows = LoginFlow.allCases

        static func report(_ random: inout SplitMix64, for session: LoginSession) -> LoginReport {
            // Most reports are what the session waits for, so logins get somewhere (and tokens come round
            // again); the rest are anything at all.
            if case .exchange = session.stage, random.chance(70) { return LoginReport.exchanged(answer(&random)).bound(to: session) }
            if case .flow(let flow, _) = session.stage, random.chance(60) { return likely(&random, flow, session) }
            return anything(&random, session)
        }

        static func answer(_ random: inout SplitMix64) -> ExchangeAnswer {
            switch random.next() % 8 {
            case 0, 1, 2: .answered(random.pick(exchangeCodes), phoneNumber: random.chance(80) ? Fixture.number : nil)
            case 3, 4: .tokenExpired
            case 5: .timeout
            case 6: .fault("reset")
            default: .replayed
            }
        }

        static func credential(_ random: inout SplitMix64, _ flow: LoginFlow) -> CarrierCredential? {
            let token = random.pick(tokens)
            return switch random.next() % 8 {
            case 0: nil
            case 1: CarrierCredential(flow: flow, token: Secret(""), uniqueID: "u")
            case 2: CarrierCredential(flow: flow, token: Secret(token))
            default: CarrierCredential(flow: flow, token: Secret(token), uniqueID: "u")
            }
        }

        static func likely(_ random: inout SplitMix64, _ flow: LoginFlow, _ session: LoginSession) -> LoginReport {
            if flow == .sms {
                return switch random.next() % 6 {
                case 0, 1: Fixture.verdict(for: random.pick([session.id, session.id, Fixture.otherID, nil] as [LoginSessionID?]))
                case 2: .result(.sms, code: random.pick(["0", "1"] as [ResultCode]))
                case 3: .cancel(.sms, reason: random.pick(CancelReason.allCases))
                default: random.chance(50) ? .timeout(.sms) : .switchToSMS(.sms)
                }
            }
            let retry: [LoginFlow: ResultCode] = [.mobile: "200023", .tianyi: "-8003", .unicom: "2"]
            return switch random.next() % 10 {
            case 0, 1, 2: .result(flow, code: flow == .mobile ? random.pick(["103000", "000"] as [ResultCode]) : "0", credential: credential(&random, flow))
            case 3, 4: .result(flow, code: retry[flow]!)
            case 5: .result(flow, code: random.pick(["200087", "200029", "200089"] as [ResultCode]))
            case 6: random.chance(50) ? .timeout(flow) : .fault(flow, "fault")
            case 7: random.chance(50) ? .unavailable(flow) : .switchToSMS(flow)
            case 8: random.chance(30) ? .cancel(flow, reason: random.pick(CancelReason.allCases)) : .result(flow, code: random.pick(codes))
            default: .result(flow, code: random.pick(codes))
            }
        }

        static func anything(_ random: inout SplitMix64, _ session: LoginSession) -> LoginReport {
            let flow = random.pick(flows)
            return switch random.next() % 9 {
            case 0, 1, 2: .result(flow, code: random.pick(codes), credential: random.chance(30) ? credential(&random, flow) : nil)
            case 3: random.chance(50) ? .timeout(flow) : .fault(flow, "fault")
            case 4: random.chance(50) ? .unavailable(flow) : .switchToSMS(flow)
            case 5: .cancel(flow, reason: random.pick(CancelReason.allCases))
            case 6: Fixture.verdict(for: random.pick([session.id, Fixture.otherID, nil] as [LoginSessionID?]))
            // Bound to the session's token, or to another (a forged answer, which the session must refuse).
            default: random.chance(50) ? LoginReport.exchanged(answer(&random)).bound(to: session) : .exchange(ExchangeOutcome(answer(&random), token: SHA256.hash(Array("forged".utf8))))
            }
        }

        static func snapshot(_ random: inout SplitMix64) -> DeviceSnapshot {
            DeviceSnapshot(
                sim: random.pick([nil, .absent, .notReady, .present, .present, .present] as [DeviceSnapshot.SIMState?]),
                plmn: random.pick(["46000", "46001", "46011", "46020", "46015", "45400", nil] as [String?]).map { try! PLMN($0) },
                mobileData: random.pick([nil, true, true, false]),
                network: random.pick([nil, .wifi, .cellular, .both, DeviceSnapshot.Network.none] as [DeviceSnapshot.Network?]))
        }

        static func plan(_ random: inout SplitMix64) -> LoginPlan {
            var flows = [LoginFlow.mobile, .tianyi, .unicom].filter { _ in random.chance(60) }
            flows.shuffle(using: &random)
            return Fixture.plan(try! FlowSequence(flows + [.sms]), carrier: random.pick([.mobile, .telecom, .unicom] as [Carrier]))
        }
    }

    /// Whether a report is progress for a session, by the table's progress rows.
    /// Until when a session takes a report: its end; for the answer of the exchange it is at (begun by a report
    /// taken in time, and billed), a minute more.
    static func deadline(_ session: LoginSession, _ report: LoginReport) -> Date {
        if case .exchange = report, case .exchange = session.stage { return session.expiresAt.addingTimeInterval(60) }
        return session.expiresAt
    }

    static func isProgress(_ report: LoginReport, for session: LoginSession) -> Bool {
        guard case .result(.mobile, let code, _) = report, case .flow(.mobile, _) = session.stage else { return false }
        return ["200087", "200029", "200089"].contains(code)
    }

    @Test(arguments: 0..<8)
    func randomLoginsKeepTheRules(shard: UInt64) throws {
        var random = SplitMix64(seed: 0x5E55_1011 &+ shard)
        var logins = 0
        var ended = 0
        for _ in 0..<300 {
            logins += 1
            let gate = RecordingGate(
                random.chance(50) ? [.mobile: random.pick([.allowed, .probe, .rejected]), .tianyi: random.pick([.allowed, .allowed, .rejected])] : [:])
            let machine = GatedMachine(
                LoginSessionMachine(
                    engine: LoginDecisionEngine(maxAttemptsPerFlow: 1 + Int(random.next() % 3)),
                    exchanges: random.chance(70) ? ExchangeRules() : nil),
                gate: gate)
            let start = random.chance(70)
                ? machine.start(Pool.snapshot(&random), at: Fixture.now, id: LoginSessionID.random(using: &random))
                : machine.start(plan: Pool.plan(&random), at: Fixture.now, id: LoginSessionID.random(using: &random))
            var session = start.session
            #expect(session.version == 1)
            let bound = session.plan.flows.count * machine.engine.maxAttemptsPerFlow * 2 + 4
            var accepted = 0
            var clock = Fixture.now
            for _ in 0..<60 where !session.isOver {
                // Mostly seconds apart; now and then a long wait, so some logins expire half-way.
                clock = clock.addingTimeInterval(random.chance(4) ? Double(random.next() % 900) : Double(random.next() % 20))
                let report = Pool.report(&random, for: session)
                let version: Int? =
                    switch random.next() % 6 {
                    case 0, 1: nil
                    case 2, 3: session.version
                    case 4: session.version - 1
                    default: session.version + Int(random.next() % 3) + 1
                    }
                let before = session
                let reportsBefore = gate.reports.count
                do {
                    let after = try machine.advance(session, report, version: version, at: clock)
                    #expect(clock < Self.deadline(before, report), "an expired session accepted \(report)")
                    if Self.isProgress(report, for: before) {
                        #expect(after.session == before, "progress changed the session")
                    } else {
                        accepted += 1
                        #expect(after.session.version == before.version + 1, "\(report): version \(before.version) → \(after.session.version)")
                    }
                    #expect(after.session.trace.starts(with: before.trace), "the trace was rewritten by \(report)")
                    #expect(after.session.trace.count >= before.trace.count)
                    #expect(Set(after.session.exchangedTokens).count == after.session.exchangedTokens.count, "a token digest appears twice")
                    #expect(after.session.id == before.id && after.session.plan == before.plan && after.session.expiresAt == before.expiresAt)
                    session = after.session
                } catch {
                    #expect(gate.reports.count == reportsBefore, "a rejected \(report) reached the gate")
                    if before.isOver {
                        #expect(error.kind == .ended)
                    } else if clock >= Self.deadline(before, report) {
                        #expect(error.kind == .expired)
                    }
                    #expect(session == before)
                }
                #expect(accepted <= bound, "\(accepted) accepted reports on a plan of \(session.plan.flows.count) flows and the login runs on")
            }
            if session.isOver { ended += 1 }
            // Once over or expired, nothing is accepted.
            let late = session.expiresAt.addingTimeInterval(Double(random.next() % 1000))
            for _ in 0..<5 {
                let report = Pool.report(&random, for: session)
                if late < Self.deadline(session, report) { continue }  // an exchange's answer, within its minute
                #expect(throws: LoginRejection.self) { try machine.advance(session, report, version: random.chance(50) ? session.version : nil, at: late) }
            }
        }
        #expect(logins == 300)
        #expect(ended > 200, "only \(ended) of 300 random logins ended: the pool is too weak to test endings")
    }
}

/// `success(of:credentials:at:)`: a login's success is told again only to credentials of the login epoch it
/// started in (format 2); a login started under credentials of format 1, or stored before logins kept the epoch,
/// judges them by their issue time.
@Suite struct LoginSuccessToldAgainTests {
    typealias F = Fixture
    static let appSession = try! AppSessionID("AppSessionOfTheTests00")

    static func succeeded(epoch: Int64?) throws -> LoginSession {
        let machine = LoginSessionMachine()
        var session = machine.start(F.mobileSIM, at: F.now, id: F.id, appSession: Self.appSession, epoch: epoch).session
        for report in [F.success(.mobile, "T1"), F.exchange("103000")] {
            session = try machine.advance(session, report.bound(to: session), at: F.now.addingTimeInterval(10)).session
        }
        #expect(session.ending == .success)
        return session
    }

    static func credentials(issued: Double, epoch: Int64?) -> AccessClaims {
        AccessClaims(
            keyID: try! KeyID("k1"), session: appSession, identity: .guest(try! GuestID("GuestOfTheTests000000A")),
            issuedAt: F.now.addingTimeInterval(issued), expiresAt: F.now.addingTimeInterval(7200), epoch: epoch)
    }

    @Test func onlyCredentialsOfTheLoginsEpochAreToldItAgain() throws {
        let session = try Self.succeeded(epoch: 1_796_083_101)
        #expect(session.appSessionEpoch == 1_796_083_101)
        let machine = LoginSessionMachine()
        let later = F.now.addingTimeInterval(20)
        // Issued before the login or after it, the date does not matter: the epoch does.
        #expect(throws: Never.self) { try machine.success(of: session, credentials: Self.credentials(issued: -100, epoch: 1_796_083_101), at: later) }
        #expect(throws: Never.self) { try machine.success(of: session, credentials: Self.credentials(issued: 15, epoch: 1_796_083_101), at: later) }
        for other in [Self.credentials(issued: -100, epoch: 1_796_083_221), Self.credentials(issued: -100, epoch: 0), Self.credentials(issued: -100, epoch: nil)] {
            let error = #expect(throws: LoginRejection.self) { try machine.success(of: session, credentials: other, at: later) }
            #expect(error?.kind == .ended)
        }
    }

    @Test func aLoginWithoutAnEpochJudgesCredentialsByTheirIssueTime() throws {
        let session = try Self.succeeded(epoch: nil)
        let machine = LoginSessionMachine()
        let later = F.now.addingTimeInterval(20)
        #expect(throws: Never.self) { try machine.success(of: session, credentials: Self.credentials(issued: 0, epoch: nil), at: later) }
        #expect(throws: Never.self) { try machine.success(of: session, credentials: Self.credentials(issued: -100, epoch: 1_796_083_101), at: later) }
        let error = #expect(throws: LoginRejection.self) { try machine.success(of: session, credentials: Self.credentials(issued: 1, epoch: nil), at: later) }
        #expect(error?.kind == .ended)
    }
}
