import Foundation
import OneTapTesting
import Testing
@testable import OneTap

/// The background (``AppSessions/run(every:)``) finishes the guest-data merges no call of their own session finished:
/// before it, a login whose answer and read-back were both lost left the guest's data with the guest until the sweep
/// removed the session, since the app could use neither its guest tokens (stopped at the switch) nor the account's (never
/// received), so no refresh of that session ever came.
@Suite struct AppSessionPendingMergeTests {
    typealias World = AppSessionGuestMergeTests.World

    /// App sessions over the world's stores, through a faulty app-session store, recording events.
    static func sessions(_ world: World, _ store: FaultyAppSessionStore, _ events: RecordingEventSink) -> AppSessions {
        AppSessions(keys: AppSessionGuestMergeTests.keys, store: store, clock: world.clock, events: events, merger: GuestMerger(store: world.data, clock: world.clock))
    }

    /// A guest with data logs in to account 42; the login's write lands but its answer is lost, and so is every
    /// read after it (a failover): the login fails, the session holds the merge pending.
    static func strandedLogin() async throws -> (world: World, grant: AppSessionGrant, guest: GuestID, sessions: AppSessions, store: FaultyAppSessionStore, events: RecordingEventSink) {
        let world = World()
        let (grant, guest) = try await world.guestWithData()
        let store = FaultyAppSessionStore(world.store)
        let events = RecordingEventSink()
        let sessions = Self.sessions(world, store, events)
        let claims = try sessions.authenticate(grant.accessToken.reveal())
        store.faults.inject(.land(), into: [.replace])
        store.faults.inject(.refuse(.io, "the database fails over (scripted)"), into: [.load], after: 1, times: nil)
        await #expect(throws: StoreError.self) { _ = try await sessions.loggedIn(claims, as: TestAppSession.outcome("42"), flow: .mobile) }
        store.faults.heal()
        return (world, grant, guest, sessions, store, events)
    }

    @Test func aMergeStrandedByALostAnswerAndReadBackIsFinishedByTheBackground() async throws {
        let (world, grant, guest, sessions, _, events) = try await Self.strandedLogin()
        #expect(try await world.store.load(grant.session)?.pendingMerge == .init(guest: guest, account: "42"), "the switch landed, its merge pending")
        #expect(try await world.data.data(of: .guest(guest))["cart"] != nil, "the data is still the guest's")
        world.clock.advance(by: .seconds(61))
        await #expect { _ = try await sessions.refresh(grant.refreshToken) } throws: { $0 is AppSessionError }
        #expect(try await world.data.data(of: .guest(guest))["cart"] != nil, "the app's own credentials cannot bring the merge")

        #expect(await sessions.resumePendingMerges() == 1)
        #expect(try await world.mergedInto42(guest, session: grant.session), "the background merged it into 42")
        let resumed = events.recorded.filter { $0.name == "merge-resumed" }
        #expect(resumed.count == 1 && resumed.first?.json().contains(#""appSession":"\#(grant.session.text)""#) == true, "\(resumed.map { $0.json() })")
        #expect(await sessions.resumePendingMerges() == 0, "nothing is left to resume")
    }

    /// A pending merge younger than a minute is its login's to finish: the background leaves it, then takes it up.
    @Test func aMergeSetLessThanAMinuteAgoIsLeftToItsLogin() async throws {
        let world = World()
        let (grant, guest) = try await world.guestWithData()
        _ = try await world.loginToAccount42WithTheStoreDown(grant)
        let sessions = world.sessions
        world.clock.advance(by: .seconds(58))
        #expect(await sessions.resumePendingMerges() == 0)
        #expect(try await world.store.load(grant.session)?.pendingMerge != nil, "left pending")
        world.clock.advance(by: .seconds(4))
        #expect(await sessions.resumePendingMerges() == 1)
        #expect(try await world.mergedInto42(guest, session: grant.session))
    }

    /// Every page is read: seven stranded sessions, listed two at a time, all merged in one round.
    @Test func everyPageOfARoundIsMerged() async throws {
        let world = World()
        var stranded: [(AppSessionGrant, GuestID)] = []
        for _ in 0..<7 {
            let (grant, guest) = try await world.guestWithData()
            _ = try await world.loginToAccount42WithTheStoreDown(grant)
            stranded.append((grant, guest))
        }
        world.clock.advance(by: .seconds(61))
        let store = FaultyAppSessionStore(world.store)
        let sessions = Self.sessions(world, store, RecordingEventSink())
        #expect(await sessions.resumePendingMerges(pageSize: 2) == 7)
        #expect(store.faults.calls(.pendingMerges) == 4, "four pages: two, two, two, one")
        for (grant, guest) in stranded {
            let left = try await world.data.data(of: .guest(guest)), record = try await world.store.load(grant.session)
            #expect(left.isEmpty && record?.pendingMerge == nil)
        }
        #expect(try await world.data.data(of: .account("42"))["cart"] == .array([AppSessionGuestMergeTests.line("x", 15)]), "one x, and two from each of seven guests")
    }

    /// A merge that fails in a round (the guest-data store still down) stays pending; the next round merges it.
    @Test func aMergeThatFailsInARoundStaysForTheNext() async throws {
        let world = World()
        let (grant, guest) = try await world.guestWithData()
        _ = try await world.loginToAccount42WithTheStoreDown(grant)
        world.clock.advance(by: .seconds(61))
        world.data.fail(after: 0)
        #expect(await world.sessions.resumePendingMerges() == 0)
        world.data.heal()
        let record = try await world.store.load(grant.session), left = try await world.data.data(of: .guest(guest))
        #expect(record?.pendingMerge != nil && left["cart"] != nil)
        #expect(await world.sessions.resumePendingMerges() == 1)
        #expect(try await world.mergedInto42(guest, session: grant.session))
    }

    /// A store that cannot list the pending merges is told (`resume-failed`, its error with numbers masked), and changes
    /// nothing; the next round merges.
    @Test func aStoreThatCannotListIsToldAndTheNextRoundMerges() async throws {
        let world = World()
        let (grant, guest) = try await world.guestWithData()
        _ = try await world.loginToAccount42WithTheStoreDown(grant)
        world.clock.advance(by: .seconds(61))
        let store = FaultyAppSessionStore(world.store)
        let events = RecordingEventSink()
        let sessions = Self.sessions(world, store, events)
        store.faults.inject(.refuse(.io, "connection to 13800138000.db refused"), into: [.pendingMerges])
        #expect(await sessions.resumePendingMerges() == 0)
        let failed = events.recorded.filter { $0.name == "resume-failed" }.map { $0.json() }
        #expect(failed.count == 1 && failed.allSatisfy { $0.contains("io: connection to 138****8000.db refused") }, "\(failed)")
        #expect(try await world.store.load(grant.session)?.pendingMerge != nil)
        #expect(await sessions.resumePendingMerges() == 1)
        #expect(try await world.mergedInto42(guest, session: grant.session))
    }

    /// Merges that fail in a round are told once for the round: how many, and the first's session and error.
    @Test func aRoundWhoseMergesFailTellsHowManyOnce() async throws {
        let world = World()
        var grants: [AppSessionGrant] = []
        for _ in 0..<2 {
            let (grant, _) = try await world.guestWithData()
            _ = try await world.loginToAccount42WithTheStoreDown(grant)
            grants.append(grant)
        }
        world.clock.advance(by: .seconds(61))
        let events = RecordingEventSink()
        let sessions = Self.sessions(world, FaultyAppSessionStore(world.store), events)
        world.data.fail(after: 0)
        #expect(await sessions.resumePendingMerges() == 0)
        world.data.heal()
        let failed = events.recorded.filter { $0.name == "resume-failed" }.map { $0.json() }
        let first = grants.map(\.session).sorted()[0]
        #expect(failed.count == 1 && failed[0].contains("2 pending merges failed; the first, session \(first.text): "), "\(failed)")
        #expect(await sessions.resumePendingMerges() == 2)
        #expect(events.recorded.filter { $0.name == "resume-failed" }.count == 1, "a round that merged all tells nothing more")
    }

    /// A round stopped mid-merge (a shutdown) tells no failure: the merge resumes at the next run (a review: the
    /// cancellation was counted as a failed merge).
    @Test(.timeLimit(.minutes(3))) func aRoundStoppedMidMergeTellsNoFailure() async throws {
        let clock = FakeClock()
        let data = FaultyGuestDataStore(InMemoryGuestDataStore(), clock: clock)
        let events = RecordingEventSink()
        let sessions = AppSessions(
            keys: AppSessionGuestMergeTests.keys, store: InMemoryAppSessionStore(), clock: clock, events: events, merger: GuestMerger(store: data, clock: clock))
        let grant = try await sessions.open()
        guard case .guest(let guest) = grant.identity else { throw StoreError(.corrupt, message: "not a guest: \(grant.identity)") }
        try await data.write(.array([AppSessionGuestMergeTests.line("x", 2)]), kind: "cart", of: .guest(guest))
        data.faults.inject(.refuse(.io, "the guest-data store is down"), into: nil, after: 0, times: 100)
        _ = try await sessions.loggedIn(try sessions.authenticate(grant.accessToken.reveal()), as: TestAppSession.outcome("42"), flow: .mobile)
        data.faults.heal()
        clock.advance(by: .seconds(61))
        data.faults.inject(.delay(.seconds(3600)), into: nil, after: 0, times: nil)
        let round = Task { await sessions.resumePendingMerges() }
        await clock.waitForSleepers(1)
        round.cancel()
        #expect(await round.value == 0)
        #expect(!events.names.contains("resume-failed"), "\(events.names)")
        data.faults.heal()
        #expect(await sessions.resumePendingMerges() == 1, "the next run merges it")
    }

    /// The background merges into the account the login was to, never the one the session logged in to since.
    @Test func aResumedMergeGoesToItsLoginsAccount() async throws {
        let world = World()
        let (grant, guest) = try await world.guestWithData()
        let first = try await world.loginToAccount42WithTheStoreDown(grant)
        _ = try await world.loginToAccount99(after: first, storeDown: true)
        world.clock.advance(by: .seconds(61))
        #expect(await world.sessions.resumePendingMerges() == 1)
        #expect(try await world.mergedInto42(guest, session: grant.session))
        #expect(try await world.data.data(of: .account("99")).isEmpty, "99 got nothing of 42's login")
    }

    /// A guest with data logs in to account 42 and out again, the guest-data store down at both: the merge is pending
    /// in the revoked session, and the store stays down (the caller heals it).
    static func failedLogout() async throws -> (world: World, grant: AppSessionGrant, guest: GuestID) {
        let world = World()
        let (grant, guest) = try await world.guestWithData()
        let account = try await world.loginToAccount42WithTheStoreDown(grant)
        world.data.fail(after: 0)
        _ = try await world.sessions.logout(try world.sessions.authenticate(account.accessToken.reveal()))
        return (world, grant, guest)
    }

    /// A session logged out while its merge could not run (the guest-data store down at the logout too) is never
    /// refreshed again: before the background, its guest's data stayed with the guest for good.
    @Test func aMergeAFailedLogoutLeftIsFinishedByTheBackground() async throws {
        let (world, grant, guest) = try await Self.failedLogout()
        world.data.heal()
        let record = try await world.store.load(grant.session)
        #expect(record?.revoked != nil && record?.pendingMerge != nil)
        world.clock.advance(by: .seconds(61))
        #expect(await world.sessions.resumePendingMerges() == 1)
        #expect(try await world.mergedInto42(guest, session: grant.session))
    }

    /// A logout whose merge failed too (the guest-data store down for hours) kept its session two hours, the access
    /// lifetime, then the sweep removed it with the merge pending: the background found nothing, and the guest's data
    /// was stranded for good (a review). A revoked session with a merge pending keeps its refresh token's expiry.
    @Test func aMergeAFailedLogoutLeftIsKeptForTheBackground() async throws {
        let (world, grant, guest) = try await Self.failedLogout()
        world.clock.advance(by: .seconds(3 * 3600))
        let swept = try await world.store.removeExpired(before: world.clock.now(), limit: 100)
        world.data.heal()
        #expect(swept == 0, "the session with its merge pending is kept")
        #expect(await world.sessions.resumePendingMerges() == 1)
        #expect(try await world.mergedInto42(guest, session: grant.session))
        // Merged, it goes as every revoked session: the access lifetime after its revocation, long past here.
        #expect(try await world.store.removeExpired(before: world.clock.now(), limit: 100) == 1)
        #expect(try await world.store.load(grant.session) == nil)
    }

    /// `run(every:)` resumes at once, waits its interval, resumes again, and ends when its task is cancelled; without
    /// a merger it only waits.
    @Test(.timeLimit(.minutes(3))) func runResumesEveryIntervalUntilCancelled() async throws {
        let world = World()
        let (grant, guest) = try await world.guestWithData()
        _ = try await world.loginToAccount42WithTheStoreDown(grant)
        let sessions = world.sessions
        let plain = AppSessions(keys: AppSessionGuestMergeTests.keys, store: world.store, clock: world.clock, events: RecordingEventSink())
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await sessions.run(every: .seconds(30)) }
            group.addTask { await plain.run() }
            await world.clock.waitForSleepers(2)
            #expect(try await world.store.load(grant.session)?.pendingMerge != nil, "the first round found it too young")
            world.clock.advance(by: .seconds(30))
            await world.clock.waitForSleepers(2)
            world.clock.advance(by: .seconds(31))
            await world.clock.waitForSleepers(2)
            #expect(try await world.mergedInto42(guest, session: grant.session), "a later round merged it")
            group.cancelAll()
            try await group.waitForAll()
        }
    }
}
