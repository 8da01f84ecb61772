import Foundation
import OneTapTesting
import Testing
@testable import OneTap

/// `LoginServer.success(of:from:)`: a success whose account step failed in its own request (the account
/// directory or the app-session store was down) is finished by a later request of the same app session,
/// and by no one else.
@Suite struct LoginServerSuccessTests {
    let clock = FakeClock()
    static let mobileSIM = DeviceSnapshot(sim: .present, plmn: try! PLMN("46000"))
    static let number = try! PhoneNumber("13800138000")

    func logins() -> LoginServer {
        LoginServer(
            store: InMemoryLoginSessionStore(), exchange: ExchangeGuard(provider: MockTokenExchange(number: Self.number, clock: clock), clock: clock),
            clock: clock, events: DiscardingEventSink())
    }

    static func success(_ token: String) -> LoginReport {
        .result(.mobile, code: "103000", credential: CarrierCredential(flow: .mobile, token: Secret(token), uniqueID: "uid-1"))
    }

    /// The whole path: the success is seen, the account step fails, the same app session finishes it later
    /// and gets the account's credentials; the carrier is not asked again.
    @Test func aSuccessWhoseAccountStepFailedIsFinishedLaterByItsAppSession() async throws {
        let sessions = AppSessions(keys: TestAppSession.keys, clock: clock, events: DiscardingEventSink())
        let directory = FaultyAccountDirectory(InMemoryAccountDirectory())
        let accounts = AccountLogin(directory: directory, newAccountID: { "acct-new" }, clock: clock, events: DiscardingEventSink())
        let logins = logins()
        let guest = try await sessions.open()
        let me = try sessions.authenticate(guest.accessToken.reveal())
        let started = try await logins.start(Self.mobileSIM, for: me)
        let done = try await logins.report(Self.success("T-1"), to: started.session.id, version: 1, from: me)
        guard case .done(.success, .mobile, let verified?) = done.instruction else {
            Issue.record("expected done success, got \(done.instruction)")
            return
        }
        directory.faults.inject(.refuse(.io, "the directory is down"), into: [.account])
        await #expect(throws: StoreError.self) { try await accounts.resolve(verified) }

        clock.advance(by: .seconds(5))
        let again = try await logins.success(of: started.session.id, from: me)
        guard case .done(.success, .mobile, let told?) = again.instruction else {
            Issue.record("expected done success again, got \(again.instruction)")
            return
        }
        #expect(told == VerifiedLogin(phoneNumber: Self.number))
        #expect(again.session == done.session, "the session is unchanged")
        #expect(again.continued == nil)
        let outcome = try await accounts.resolve(told)
        #expect(outcome.account == "acct-new" && outcome.created)
        let grant = try await sessions.loggedIn(me, as: outcome, flow: .mobile)
        #expect(grant.identity == .account("acct-new"))
    }

    /// Once the account step is done, its own new credentials (or any issued since the login started)
    /// are refused: otherwise whoever holds the account's short-lived access token could run the account
    /// step again and be handed a fresh refresh token.
    @Test func theAccountStepIsFinishedOnceNotByCredentialsIssuedSince() async throws {
        let sessions = AppSessions(keys: TestAppSession.keys, clock: clock, events: DiscardingEventSink())
        let accounts = AccountLogin(directory: InMemoryAccountDirectory(), newAccountID: { "acct-new" }, clock: clock, events: DiscardingEventSink())
        let logins = logins()
        let guest = try await sessions.open()
        let me = try sessions.authenticate(guest.accessToken.reveal())
        clock.advance(by: .seconds(2))
        let started = try await logins.start(Self.mobileSIM, for: me)
        clock.advance(by: .seconds(3))
        guard case .done(.success, .mobile, let verified?) = try await logins.report(Self.success("T-9"), to: started.session.id, version: 1, from: me).instruction else {
            Issue.record("expected done success")
            return
        }
        let outcome = try await accounts.resolve(verified)
        let grant = try await sessions.loggedIn(me, as: outcome, flow: .mobile)
        let account = try sessions.authenticate(grant.accessToken.reveal())
        await #expect {
            _ = try await logins.success(of: started.session.id, from: account)
        } throws: { ($0 as? LoginRejection)?.kind == .ended }
    }

    @Test func anotherAppSessionIsToldNothing() async throws {
        let logins = logins()
        let started = try await logins.start(Self.mobileSIM, for: TestAppSession.me)
        _ = try await logins.report(Self.success("T-2"), to: started.session.id, version: 1, from: TestAppSession.me)
        await #expect {
            _ = try await logins.success(of: started.session.id, from: TestAppSession.stranger)
        } throws: { ($0 as? LoginRejection)?.kind == .unknownSession }
        await #expect {
            _ = try await logins.success(of: LoginSessionID.random(), from: TestAppSession.me)
        } throws: { ($0 as? LoginRejection)?.kind == .unknownSession }
    }

    @Test func onlyASuccessWithinTheLoginsLifetimeIsTold() async throws {
        let logins = logins()
        let running = try await logins.start(Self.mobileSIM, for: TestAppSession.me)
        await #expect {
            _ = try await logins.success(of: running.session.id, from: TestAppSession.me)
        } throws: { ($0 as? LoginRejection)?.kind == .unexpected }

        let cancelled = try await logins.start(Self.mobileSIM, for: TestAppSession.me)
        _ = try await logins.report(.cancel(.mobile), to: cancelled.session.id, version: 1, from: TestAppSession.me)
        await #expect {
            _ = try await logins.success(of: cancelled.session.id, from: TestAppSession.me)
        } throws: { ($0 as? LoginRejection)?.kind == .ended }

        let succeeded = try await logins.start(Self.mobileSIM, for: TestAppSession.me)
        _ = try await logins.report(Self.success("T-3"), to: succeeded.session.id, version: 1, from: TestAppSession.me)
        clock.advance(by: .seconds(599))
        _ = try await logins.success(of: succeeded.session.id, from: TestAppSession.me)
        clock.advance(by: .seconds(1))   // 600 s: the login's lifetime; a success is told a minute more
        _ = try await logins.success(of: succeeded.session.id, from: TestAppSession.me)
        clock.advance(by: .seconds(59))
        _ = try await logins.success(of: succeeded.session.id, from: TestAppSession.me)
        clock.advance(by: .seconds(1))   // 660 s
        await #expect {
            _ = try await logins.success(of: succeeded.session.id, from: TestAppSession.me)
        } throws: { ($0 as? LoginRejection)?.kind == .expired }
    }
}
