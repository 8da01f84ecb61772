import Foundation
import OneTapTesting
import Testing
@testable import OneTap

/// Issue 20: a login's id is in every event line, so it is no key. Before, `report(_:to:version:)`,
/// `sendSMS(for:to:context:)`, `verifySMS(…)` and `session(_:)` took the id alone: whoever read it could
/// cancel or divert the login, complete its SMS step with their own number (the victim's app then read
/// `done success` for the attacker's number, and the victim's pending action went to the attacker), and
/// read the full verified number, even after the login expired. Every call now takes the caller's
/// verified app session and answers another app session's login as one that does not exist.
@Suite struct LoginTakeoverTests {
    static let noSIM = DeviceSnapshot(sim: .absent)
    static let victimNumber = try! PhoneNumber("13800138000")
    static let attackerNumber = try! PhoneNumber("13900139000")
    let clock = FakeClock()
    let sender = ScriptedSMSSender()
    let events = RecordingEventSink()
    let victim = TestAppSession.me
    let attacker = TestAppSession.stranger

    func server() -> LoginServer {
        LoginServer(sms: SMSCodeService(key: .random(), sender: sender, events: events, clock: clock), clock: clock, events: events)
    }

    func refusedAsUnknown(_ call: () async throws -> Void) async {
        await #expect { try await call() } throws: { ($0 as? LoginRejection)?.kind == .unknownSession }
    }

    @Test func anotherAppSessionCannotCancelOrDivertALogin() async throws {
        let logins = server()
        let started = try await logins.start(DeviceSnapshot(sim: .present, plmn: try PLMN("46000")), for: victim)
        let id = started.session.id
        await refusedAsUnknown { _ = try await logins.report(.cancel(.mobile), to: id, version: 1, from: attacker) }
        await refusedAsUnknown { _ = try await logins.report(.switchToSMS(.mobile), to: id, version: 2, from: attacker) }
        #expect(try await logins.session(id) == started.session)
        #expect(try await logins.report(.switchToSMS(.mobile), to: id, version: 1, from: victim).session.next == "sms")
    }

    @Test func theSMSStepCannotBeCompletedWithAnotherNumberFromAnotherAppSession() async throws {
        let logins = server()
        let pending = try PendingAction(action: "favourite", payload: .object(["item": "v42"]), at: clock.now())
        let id = try await logins.start(Self.noSIM, for: victim, pending: pending).session.id
        await refusedAsUnknown { _ = try await logins.sendSMS(for: id, to: Self.attackerNumber.digits, context: SMSContext(session: .testSession), from: attacker) }
        #expect(sender.delivered.isEmpty, "no code went to the attacker's number for the victim's login")
        // Even a code the attacker got for a login of their own completes nothing of the victim's.
        let own = try await logins.start(Self.noSIM, for: attacker).session.id
        _ = try await logins.sendSMS(for: own, to: Self.attackerNumber.digits, context: SMSContext(session: .testSession), from: attacker)
        let code = try #require(sender.lastCode(to: Self.attackerNumber))
        await refusedAsUnknown {
            _ = try await logins.verifySMS(code, for: Self.attackerNumber, session: id, version: 1, context: SMSContext(session: .testSession), from: attacker)
        }
        let victimsLogin = try #require(try await logins.session(id))
        #expect(victimsLogin.ending == nil && victimsLogin.verified == nil && victimsLogin.pending == pending, "the pending action stays the victim's")
    }

    @Test func aReadGivesTheMaskedNumberToItsOwnAppSessionOnlyAndNothingOnceExpired() async throws {
        let logins = server()
        let id = try await logins.start(Self.noSIM, for: victim).session.id
        _ = try await logins.sendSMS(for: id, to: Self.victimNumber.digits, context: SMSContext(session: .testSession), from: victim)
        let code = try #require(sender.lastCode(to: Self.victimNumber))
        _ = try await logins.verifySMS(code, for: Self.victimNumber, session: id, version: 1, context: SMSContext(session: .testSession), from: victim)
        let status = try await logins.status(id, from: victim)
        #expect(status.ending == .success && status.maskedNumber == "138****8000")
        #expect(!"\(status)".contains("13800138000"))
        await refusedAsUnknown { _ = try await logins.status(id, from: attacker) }
        // A login that succeeded is read until a minute after its end (it may have succeeded in that minute).
        clock.advance(by: .seconds(601))
        #expect(try await logins.status(id, from: victim).ending == .success)
        clock.advance(by: .seconds(60))
        await #expect { _ = try await logins.status(id, from: victim) } throws: { ($0 as? LoginRejection)?.kind == .expired }
    }

    /// A login started before this version (no app session recorded) is nobody's: refused as unknown.
    @Test func aLoginWithoutAnAppSessionTakesNoRequest() async throws {
        let store = InMemoryLoginSessionStore()
        let logins = LoginServer(store: store, clock: clock, events: events)
        let orphan = LoginSessionMachine().start(Self.noSIM, at: clock.now(), id: .random()).session
        try await store.create(orphan)
        await refusedAsUnknown { _ = try await logins.report(.cancel(.sms), to: orphan.id, version: 1, from: victim) }
    }
}

/// The review of issue 20's change: claims read from an expired access token (`AccessTokenVerdict.expired`
/// carries them) are no proof. A leaked token weeks old must not start or steer a login.
@Suite struct ExpiredClaimsTests {
    @Test func expiredClaimsStartNoLoginAndReportNothing() async throws {
        let clock = FakeClock(now: Date(timeIntervalSince1970: 1_795_000_000))
        let ring = TestAppSession.keys
        let sessions = AppSessions(keys: ring, clock: clock, events: RecordingEventSink())
        let grant = try await sessions.open()
        clock.advance(by: .seconds(7201))
        guard case .expired(let claims) = ring.verifyAccessToken(grant.accessToken.reveal(), at: clock.now()) else {
            Issue.record("the token was not read as expired")
            return
        }
        let logins = LoginServer(clock: clock, events: RecordingEventSink())
        await #expect { _ = try await logins.start(DeviceSnapshot(sim: .absent), for: claims) } throws: {
            ($0 as? AppSessionError)?.kind == .unauthenticated
        }
        await #expect { _ = try await sessions.loggedIn(claims, as: TestAppSession.outcome("42", "13800138000"), flow: .mobile) } throws: { ($0 as? AppSessionError)?.kind == .unauthenticated }
        await #expect { _ = try await sessions.logout(claims) } throws: { ($0 as? AppSessionError)?.kind == .unauthenticated }
    }
}
