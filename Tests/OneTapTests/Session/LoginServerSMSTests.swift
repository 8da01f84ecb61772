import Foundation
import OneTapTesting
import Testing
@testable import OneTap

/// The session's SMS step through the server: the session learns "verified" only from the SMS code
/// service's verify.
@Suite struct LoginServerSMSTests {
    static let noSIM = DeviceSnapshot(sim: .absent)

    struct Setup {
        let clock = FakeClock()
        let sender = ScriptedSMSSender()
        let server: LoginServer

        init(sms: Bool = true) {
            let service = SMSCodeService(key: .random(), sender: sender, events: DiscardingEventSink())
            server = LoginServer(sms: sms ? service : nil, clock: clock, events: DiscardingEventSink())
        }
    }

    @Test func aRightCodeCompletesTheSession() async throws {
        let setup = Setup()
        let start = try await setup.server.start(Self.noSIM, for: TestAppSession.me)
        let id = start.session.id
        let sent = try await setup.server.sendSMS(for: id, to: "13800138000", context: SMSContext(session: .testSession), from: TestAppSession.me)
        #expect(sent.name == "sent")
        let message = try #require(setup.sender.delivered.first)
        #expect(message.session == id)
        let number = try PhoneNumber("13800138000")
        let wrong = try await setup.server.verifySMS(Secret(message.code.reveal() == "000000" ? "000001" : "000000"), for: number, session: id,
                                                     version: 1, context: SMSContext(session: .testSession), from: TestAppSession.me)
        #expect(wrong.result == .wrong(attemptsLeft: 4) && wrong.transition == nil)
        #expect(try await setup.server.session(id)?.version == 1, "a wrong code changes nothing in the session")
        let right = try await setup.server.verifySMS(message.code, for: number, session: id, version: 1, context: SMSContext(session: .testSession), from: TestAppSession.me)
        #expect(right.result.name == "verified")
        #expect(right.transition?.session.ending == .success)
        #expect(right.transition?.session.verified?.phoneNumber == number)
    }

    /// A right code sent with a version the session is not at is refused before the code is verified, so it
    /// is not spent: sent again with the session's version, it logs in. Before, the verify used the code up
    /// and the report then refused the version: the retry answered `noCode` and the user needed a new SMS.
    @Test func aRightCodeWithAnotherVersionIsRefusedAndNotSpent() async throws {
        let setup = Setup()
        let start = try await setup.server.start(Self.noSIM, for: TestAppSession.me)
        let id = start.session.id
        _ = try await setup.server.sendSMS(for: id, to: "13800138000", context: SMSContext(session: id), from: TestAppSession.me)
        let code = try #require(setup.sender.lastCode(to: try PhoneNumber("13800138000")))
        let number = try PhoneNumber("13800138000")
        for (version, kind) in [(7, LoginRejection.Kind.unknownVersion), (0, .staleVersion)] {
            let refused = await #expect(throws: LoginRejection.self) {
                try await setup.server.verifySMS(code, for: number, session: id, version: version, context: SMSContext(session: id), from: TestAppSession.me)
            }
            #expect(refused?.kind == kind)
        }
        let right = try await setup.server.verifySMS(code, for: number, session: id, version: 1, context: SMSContext(session: id), from: TestAppSession.me)
        #expect(right.result.name == "verified" && right.transition?.session.ending == .success)
    }

    @Test func aCodeSentForOneSessionCompletesNoOther() async throws {
        let setup = Setup()
        let first = try await setup.server.start(Self.noSIM, for: TestAppSession.me)
        let second = try await setup.server.start(Self.noSIM, for: TestAppSession.me)
        _ = try await setup.server.sendSMS(for: first.session.id, to: "13800138000", context: SMSContext(session: .testSession), from: TestAppSession.me)
        let code = try #require(setup.sender.lastCode(to: try PhoneNumber("13800138000")))
        let answer = try await setup.server.verifySMS(code, for: try PhoneNumber("13800138000"), session: second.session.id, version: 1, context: SMSContext(session: .testSession), from: TestAppSession.me)
        #expect(answer.result == .noCode && answer.transition == nil)
    }

    struct Refusal: Sendable, CustomTestStringConvertible {
        let name: String
        let snapshot: DeviceSnapshot
        let sms: Bool
        let known: Bool
        let kind: LoginRejection.Kind
        var testDescription: String { name }
    }

    static let refusals: [Refusal] = [
        Refusal(name: "a session at a one-tap flow", snapshot: DeviceSnapshot(plmn: try! PLMN("46000")), sms: true, known: true, kind: .wrongFlow),
        Refusal(name: "a server without SMS", snapshot: noSIM, sms: false, known: true, kind: .unexpected),
        Refusal(name: "an unknown session", snapshot: noSIM, sms: true, known: false, kind: .unknownSession),
    ]

    @Test(arguments: refusals)
    func anSMSStepTheSessionCannotTakeIsRejected(_ refusal: Refusal) async throws {
        let setup = Setup(sms: refusal.sms)
        let start = try await setup.server.start(refusal.snapshot, for: TestAppSession.me)
        let id = refusal.known ? start.session.id : LoginSessionID.random()
        let error = await #expect(throws: LoginRejection.self) { try await setup.server.sendSMS(for: id, to: "13800138000", context: SMSContext(session: .testSession), from: TestAppSession.me) }
        #expect(error?.kind == refusal.kind)
        #expect(setup.sender.attempts == 0)
    }

    @Test func anExpiredOrEndedSessionSendsNoCode() async throws {
        let setup = Setup()
        let start = try await setup.server.start(Self.noSIM, for: TestAppSession.me)
        setup.clock.advance(by: .seconds(3_600))
        let expired = await #expect(throws: LoginRejection.self) {
            try await setup.server.sendSMS(for: start.session.id, to: "13800138000", context: SMSContext(session: .testSession), from: TestAppSession.me)
        }
        #expect(expired?.kind == .expired)
        let other = try await setup.server.start(Self.noSIM, for: TestAppSession.me)
        _ = try await setup.server.report(.cancel(.sms, reason: .user), to: other.session.id, version: 1, from: TestAppSession.me)
        let ended = await #expect(throws: LoginRejection.self) {
            try await setup.server.sendSMS(for: other.session.id, to: "13800138000", context: SMSContext(session: .testSession), from: TestAppSession.me)
        }
        #expect(ended?.kind == .ended)
    }
}

/// The pending action through the server: started with the login, handed back in the success answer.
@Suite struct LoginServerPendingTests {
    @Test func theSuccessAnswerCarriesTheInterruptedAction() async throws {
        let sender = ScriptedSMSSender()
        let server = LoginServer(sms: SMSCodeService(key: .random(), sender: sender, events: DiscardingEventSink()), clock: FakeClock(), events: DiscardingEventSink())
        let decision = LoginGate.builtIn.decide("comment", for: .guest(GuestID.random()))
        guard case .requireLogin(let rule) = decision else { Issue.record("\(decision)"); return }
        #expect(rule.promptZH == "登录后可发表评论")
        let pending = try PendingAction(action: "comment", payload: .object(["text": .string("好文章")]), at: FakeClock.epoch)
        let start = try await server.start(DeviceSnapshot(sim: .absent), for: TestAppSession.me, pending: pending)
        _ = try await server.sendSMS(for: start.session.id, to: "13800138000", context: SMSContext(session: .testSession), from: TestAppSession.me)
        let code = try #require(sender.lastCode(to: try PhoneNumber("13800138000")))
        let answer = try await server.verifySMS(code, for: try PhoneNumber("13800138000"), session: start.session.id, version: 1, context: SMSContext(session: .testSession), from: TestAppSession.me)
        #expect(answer.transition?.continued == pending)
        #expect(try await server.session(start.session.id)?.pending == pending, "kept with the success, for a retry whose answer was lost")
    }
}
