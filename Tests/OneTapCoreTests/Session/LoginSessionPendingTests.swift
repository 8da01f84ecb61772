import Foundation
import Testing
@testable import OneTapCore

/// The pending action that travels with a login session: handed back on success and with every telling of
/// that success again while it is live, dropped on cancel, failure or expiry, and kept through the session's JSON.
@Suite struct LoginSessionPendingTests {
    let machine = LoginSessionMachine()
    typealias F = Fixture

    func pending(at: Date = F.now) throws -> PendingAction {
        try PendingAction(action: "favourite", payload: .object(["item": .string("v42")]), at: at)
    }

    @Test func aSuccessHandsThePendingActionBack() throws {
        let action = try pending()
        let start = machine.start(F.mobileSIM, at: F.now, id: F.id, pending: action)
        #expect(start.session.pending == action && start.continued == nil)
        let exchanging = try machine.advance(start.session, F.success(.mobile, "T1"), at: F.now.addingTimeInterval(2))
        #expect(exchanging.continued == nil && exchanging.session.pending == action, "not yet: the exchange decides")
        let done = try machine.advance(exchanging.session, F.exchange("103000").bound(to: exchanging.session), at: F.now.addingTimeInterval(3))
        #expect(done.session.ending == .success)
        #expect(done.continued == action)
        #expect(done.session.pending == action, "kept with the success, for a telling of it again")
    }

    /// An attacker's read of the login server: the action was handed back once, in the success transition itself, so
    /// it was lost whenever that answer was (a mobile network dropping the response, the account step failing after it
    /// with a 503, a dormant number's second factor): the retry of the success report and the account step told again
    /// carried none. It comes back with every telling of the success while it is live; its key makes a continuation
    /// that is retried run once.
    @Test func aSuccessToldAgainHandsItBackWhileItIsLive() throws {
        let action = try pending()
        let start = machine.start(F.mobileSIM, at: F.now, id: F.id, pending: action, appSession: LoginSuccessToldAgainTests.appSession, epoch: 7)
        let exchanging = try machine.advance(start.session, F.success(.mobile, "T1"), at: F.now.addingTimeInterval(2))
        let done = try machine.advance(exchanging.session, F.exchange("103000").bound(to: exchanging.session), at: F.now.addingTimeInterval(3))
        let told = try machine.success(of: done.session, credentials: LoginSuccessToldAgainTests.credentials(issued: -100, epoch: 7), at: F.now.addingTimeInterval(30))
        #expect(told.continued == action)
        let settled = try #require(machine.exchangeSettled(done.session, after: exchanging.session, at: F.now.addingTimeInterval(30)))
        #expect(settled.continued == action)
        let late = try machine.success(of: done.session, credentials: LoginSuccessToldAgainTests.credentials(issued: -100, epoch: 7), at: F.now.addingTimeInterval(600))
        #expect(late.continued == nil, "its 10 minutes are over")
    }

    @Test func anSMSLoginHandsItBackToo() throws {
        let action = try pending()
        let start = machine.start(F.noSIM, at: F.now, id: F.id, pending: action)
        let done = try machine.advance(start.session, F.verdict(), at: F.now.addingTimeInterval(60))
        #expect(done.continued == action)
    }

    @Test(arguments: [LoginReport.cancel(.mobile, reason: .user), .cancel(.mobile, reason: .caller)])
    func aCancelDropsIt(_ report: LoginReport) throws {
        let start = machine.start(F.mobileSIM, at: F.now, id: F.id, pending: try pending())
        let ended = try machine.advance(start.session, report, at: F.now.addingTimeInterval(1))
        #expect(ended.session.isOver && ended.continued == nil && ended.session.pending == nil)
    }

    @Test func aFailedLoginDropsIt() throws {
        let start = machine.start(F.telecomSIM, at: F.now, id: F.id, pending: try pending())
        let ended = try machine.advance(start.session, .result(.tianyi, code: "-424242"), at: F.now.addingTimeInterval(1))
        #expect(ended.session.ending == .failed && ended.continued == nil && ended.session.pending == nil)
    }

    @Test func aLoginThatSucceedsAfterTenMinutesDropsIt() throws {
        let machine = LoginSessionMachine(sessionLifetime: .seconds(3_600))
        let start = machine.start(F.noSIM, at: F.now, id: F.id, pending: try pending())
        let late = try machine.advance(start.session, F.verdict(), at: F.now.addingTimeInterval(600))
        #expect(late.session.ending == .success && late.continued == nil && late.session.pending == nil)
        let start2 = machine.start(F.noSIM, at: F.now, id: F.id, pending: try pending())
        let inTime = try machine.advance(start2.session, F.verdict(), at: F.now.addingTimeInterval(599.999))
        #expect(inTime.continued != nil)
    }

    @Test func itTravelsThroughTheSessionsJSON() throws {
        let start = machine.start(F.mobileSIM, at: F.now, id: F.id, pending: try pending())
        let decoded = try LoginSession(json: try start.session.json())
        #expect(decoded == start.session)
        #expect(decoded.pending?.payload == .object(["item": .string("v42")]))
    }

    @Test func aLoginAGateAskedForKeepsTheDevicesPlatform() throws {
        let snapshot = DeviceSnapshot(sim: .present, plmn: try PLMN("46000"), platform: .android)
        let start = machine.start(snapshot, at: F.now, id: F.id, pending: try pending())
        #expect(start.session.platform == .android && start.context.platform == .android)
        #expect(start.session.pending != nil)
    }
}
