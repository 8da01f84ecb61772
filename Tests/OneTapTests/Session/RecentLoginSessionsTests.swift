import Foundation
import OneTapTesting
import Testing
@testable import OneTap

/// The copies of sessions a server keeps: bounded, oldest dropped first, an ended session dropped at once,
/// never an older copy over a newer one, never another app session's.
@Suite struct RecentLoginSessionsTests {
    static let now = Date(timeIntervalSince1970: 1_795_000_000)
    static let mobileSIM = DeviceSnapshot(sim: .present, plmn: try! PLMN("46000"))
    static let me = TestAppSession.me.session

    static func started(_ appSession: AppSessionID = me) -> LoginSession {
        LoginSessionMachine().start(mobileSIM, at: now, id: .random(), appSession: appSession).session
    }

    @Test func aKeptSessionIsAnsweredToItsAppSessionOnly() {
        let recent = RecentLoginSessions(capacity: 4)
        let session = Self.started()
        recent.keep(session)
        #expect(recent.session(session.id, of: Self.me) == session)
        #expect(recent.session(session.id, of: TestAppSession.stranger.session) == nil)
        #expect(recent.session(.random(), of: Self.me) == nil)
    }

    @Test func theOldestIsDroppedPastTheCapacity() {
        let recent = RecentLoginSessions(capacity: 3)
        let sessions = (0..<5).map { _ in Self.started() }
        for session in sessions { recent.keep(session) }
        #expect(recent.count == 3)
        #expect(sessions.map { recent.session($0.id, of: Self.me) != nil } == [false, false, true, true, true])
    }

    /// Keeping a session again makes it the newest: the one kept longest ago goes first.
    @Test func keepingAgainMakesASessionTheNewest() throws {
        let recent = RecentLoginSessions(capacity: 2)
        let first = Self.started(), second = Self.started(), third = Self.started()
        recent.keep(first)
        recent.keep(second)
        let moved = try LoginSessionMachine().advance(first, .timeout(.mobile), version: 1, at: Self.now)
        recent.keep(moved.session)
        recent.keep(third)
        #expect(recent.session(first.id, of: Self.me) == moved.session)
        #expect(recent.session(second.id, of: Self.me) == nil)
        #expect(recent.session(third.id, of: Self.me) == third)
    }

    @Test func anOlderCopyNeverReplacesANewerOne() throws {
        let recent = RecentLoginSessions(capacity: 2)
        let session = Self.started()
        let moved = try LoginSessionMachine().advance(session, .timeout(.mobile), version: 1, at: Self.now).session
        #expect(moved.version == 2)
        recent.keep(moved)
        recent.keep(session)
        #expect(recent.session(session.id, of: Self.me) == moved)
    }

    /// An ended login is not answered from here, and stays kept: a copy of it read or written before it
    /// ended, kept after, does not come back.
    @Test func anEndedSessionIsNotAnsweredAndKeepsOlderCopiesOut() throws {
        let recent = RecentLoginSessions(capacity: 2)
        let session = Self.started()
        let cancelled = try LoginSessionMachine().advance(session, .cancel(.mobile), version: 1, at: Self.now).session
        guard case .ended = cancelled.stage else {
            Issue.record("a cancel ends the login; got \(cancelled.stage)")
            return
        }
        recent.keep(session)
        recent.keep(cancelled)
        #expect(recent.session(session.id, of: Self.me) == nil)
        recent.keep(session)
        #expect(recent.session(session.id, of: Self.me) == nil, "the older copy did not replace the ended one")
        #expect(recent.count == 1)
    }

    /// A login at its exchange is not answered from here (a retry of its success is the stored session's to decide).
    @Test func aSessionAtItsExchangeIsNotAnswered() throws {
        let recent = RecentLoginSessions(capacity: 2)
        let session = Self.started()
        let credential = CarrierCredential(flow: .mobile, token: Secret("T-kept"), uniqueID: "uid")
        let exchanging = try LoginSessionMachine().advance(session, .result(.mobile, code: "103000", credential: credential), version: 1, at: Self.now).session
        guard case .exchange = exchanging.stage else {
            Issue.record("a success goes to its exchange; got \(exchanging.stage)")
            return
        }
        recent.keep(exchanging)
        #expect(recent.session(session.id, of: Self.me) == nil)
        #expect(recent.count == 1)
    }

    /// Many sessions kept, some twice, well past the capacity: the newest `capacity` are the ones kept.
    @Test func manyKeepsStayBounded() {
        let recent = RecentLoginSessions(capacity: 8)
        var sessions: [LoginSession] = []
        for round in 0..<200 {
            let session = Self.started()
            sessions.append(session)
            recent.keep(session)
            if round % 3 == 0 { recent.keep(session) }
        }
        #expect(recent.count == 8)
        #expect(sessions.suffix(8).allSatisfy { recent.session($0.id, of: Self.me) == $0 })
    }

    @Test func aCapacityBelowOneKeepsOne() {
        let recent = RecentLoginSessions(capacity: 0)
        #expect(recent.capacity == 1)
        let first = Self.started(), second = Self.started()
        recent.keep(first)
        recent.keep(second)
        #expect(recent.count == 1)
        #expect(recent.session(second.id, of: Self.me) == second)
    }
}
