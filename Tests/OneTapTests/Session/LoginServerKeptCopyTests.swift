import Foundation
import OneTapTesting
import Testing
@testable import OneTap

/// Issue 23, item 3: a server reports on the copy of a session it stored last (``RecentLoginSessions``), with
/// no read of the store, and a copy that is behind the store (another instance took a report since) never
/// decides alone: a report the machine refuses on it, or one that writes nothing, is decided on the stored
/// session, and a write from it loses its compare-and-swap with nothing written.
@Suite struct LoginServerKeptCopyTests {
    static let mobileSIM = DeviceSnapshot(sim: .present, plmn: try! PLMN("46000"))

    let clock = FakeClock()
    let store = FaultyLoginSessionStore(InMemoryLoginSessionStore())

    /// One of several instances over the shared store, each with its own kept copies.
    func instance() -> LoginServer {
        LoginServer(store: store, clock: clock, events: DiscardingEventSink())
    }

    @Test func aReportOnTheInstanceThatStartedTheLoginReadsNothing() async throws {
        let server = instance()
        let started = try await server.start(Self.mobileSIM, for: TestAppSession.me)
        let next = try await server.report(.timeout(.mobile), to: started.session.id, version: 1, from: TestAppSession.me)
        #expect(next.session.version == 2)
        #expect(store.faults.calls(.load) == 0)
        #expect(store.faults.calls(.replace) == 1)
        #expect(try await store.load(started.session.id) == next.session)
    }

    /// Another app session is never answered from the copy: it gets what the store says (no such login).
    @Test func aStrangerIsNotAnsweredFromTheCopy() async throws {
        let server = instance()
        let started = try await server.start(Self.mobileSIM, for: TestAppSession.me)
        await #expect {
            try await server.report(.timeout(.mobile), to: started.session.id, version: 1, from: TestAppSession.stranger)
        } throws: { error in (error as? LoginRejection)?.kind == .unknownSession }
        #expect(store.faults.calls(.load) == 1)
        #expect(try await store.load(started.session.id) == started.session)
    }

    /// Instance A started the login; instance B took its next report. A's copy is behind: the app's next
    /// report, at the version B gave it, is decided on the stored session.
    @Test func aReportAnotherInstanceTookIsSeen() async throws {
        let a = instance(), b = instance()
        let started = try await a.start(Self.mobileSIM, for: TestAppSession.me)
        let onB = try await b.report(.timeout(.mobile), to: started.session.id, version: 1, from: TestAppSession.me)
        #expect(onB.session.version == 2)
        let loadsBefore = store.faults.calls(.load)
        let onA = try await a.report(.cancel(.sms), to: started.session.id, version: 2, from: TestAppSession.me)
        #expect(onA.session.version == 3)
        #expect(onA.session.ending == .cancelled)
        #expect(store.faults.calls(.load) == loadsBefore + 1, "A read the stored session once")
        #expect(try await store.load(started.session.id) == onA.session)
    }

    /// A's copy and the app's report are both at version 1, but B stored version 2 in between: A's write loses
    /// its compare-and-swap, nothing is written, and the report is refused as stale, as a fresh read's would be.
    @Test func aWriteFromACopyBehindLosesItsCompareAndSwap() async throws {
        let a = instance(), b = instance()
        let started = try await a.start(Self.mobileSIM, for: TestAppSession.me)
        let onB = try await b.report(.timeout(.mobile), to: started.session.id, version: 1, from: TestAppSession.me)
        await #expect {
            try await a.report(.unavailable(.mobile), to: started.session.id, version: 1, from: TestAppSession.me)
        } throws: { error in (error as? LoginRejection)?.kind == .staleVersion }
        #expect(try await store.load(started.session.id) == onB.session, "B's write stands")
    }

    /// A progress report (200087: the authorisation page is shown) writes nothing, so it is never answered
    /// from a copy: on the stored session, which B moved on, it is stale.
    @Test func aReportThatWritesNothingIsDecidedOnTheStoredSession() async throws {
        let a = instance(), b = instance()
        let started = try await a.start(Self.mobileSIM, for: TestAppSession.me)
        let progress = try await a.report(.result(.mobile, code: "200087"), to: started.session.id, version: 1, from: TestAppSession.me)
        #expect(progress.session == started.session, "a progress report changes nothing")
        #expect(store.faults.calls(.load) == 1, "decided on the stored session")
        _ = try await b.report(.timeout(.mobile), to: started.session.id, version: 1, from: TestAppSession.me)
        await #expect {
            try await a.report(.result(.mobile, code: "200087"), to: started.session.id, version: 1, from: TestAppSession.me)
        } throws: { error in (error as? LoginRejection)?.kind == .staleVersion }
        #expect(store.faults.calls(.replace) == 1, "only B wrote")
    }

    /// A store that fails the write: the report fails with the store's error and the copy is not advanced, so
    /// the next report (the app's retry) writes from the same version.
    @Test func aFailedWriteLeavesTheCopyWhereItWas() async throws {
        let server = instance()
        let started = try await server.start(Self.mobileSIM, for: TestAppSession.me)
        store.faults.inject(.refuse(.io, "the database is down (scripted)"), into: [.replace], times: 1)
        await #expect {
            try await server.report(.timeout(.mobile), to: started.session.id, version: 1, from: TestAppSession.me)
        } throws: { error in (error as? StoreError)?.kind == .io }
        let next = try await server.report(.timeout(.mobile), to: started.session.id, version: 1, from: TestAppSession.me)
        #expect(next.session.version == 2)
        #expect(store.faults.calls(.load) == 0)
        #expect(try await store.load(started.session.id) == next.session)
    }
}
