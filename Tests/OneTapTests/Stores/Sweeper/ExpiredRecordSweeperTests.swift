import Foundation
import OneTapTesting
import Testing
@testable import OneTap

/// Issue 21: the in-memory stores swept only as they wrote (the exchange ledger past 4,096 claims), so a
/// quiet store kept what expired (the ledger: users' numbers) for good. ``ExpiredRecordSweeper`` removes
/// it on a schedule, store by store, in batches, through failures, until cancelled.
@Suite struct ExpiredRecordSweeperTests {
    let clock = FakeClock()
    static let mobileSIM = DeviceSnapshot(sim: .present, plmn: try! PLMN("46000"))

    /// A token's digest made from an index (what the ledger keys by).
    static func digest(_ index: Int) -> SHA256Digest {
        CarrierCredential.digest(of: Secret("sweeper-token-\(index)"))
    }

    /// Starts `count` logins now: each stores a session (10 minutes) and quota counters (an hour).
    func startLogins(_ count: Int, _ server: LoginServer) async throws {
        for index in 0..<count {
            _ = try await server.start(Self.mobileSIM, for: TestAppSession.me, address: try IPAddress("198.51.100.\(index + 1)"), device: nil)
        }
    }

    /// Runs a sweeper's `run()` beside `body`, then cancels it; `run()` must return.
    func running(_ sweeper: ExpiredRecordSweeper, _ body: () async throws -> Void) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await sweeper.run() }
            try await body()
            group.cancelAll()
            try await group.waitForAll()
        }
    }

    @Test func expiredRecordsGoOnScheduleLiveOnesStay() async throws {
        let sessions = InMemoryLoginSessionStore()
        let quotaStore = InMemoryLoginQuotaStore()
        let ledger = InMemoryExchangeLedger()
        let server = LoginServer(store: sessions, quotas: LoginQuotas(store: quotaStore), clock: clock, events: DiscardingEventSink())
        let events = RecordingEventSink()
        let sweeper = ExpiredRecordSweeper(
            stores: [.loginSessions(sessions), .loginQuotas(quotaStore), .exchangeLedger(ledger)], interval: .seconds(3600), clock: clock, events: events)
        let me = try LoginSessionID("SweeperTestSession0001")
        for index in 0..<3 { _ = try await ledger.claim(Self.digest(index), for: me, at: clock.now()) }
        try await startLogins(4, server)
        #expect(sessions.count == 4)
        let quotaCounters = quotaStore.count
        #expect(quotaCounters > 0)

        try await running(sweeper) {
            // The first round runs at once: nothing has expired yet.
            await clock.waitForSleepers(3)
            #expect(sessions.count == 4 && quotaStore.count == quotaCounters && ledger.count == 3)
            #expect(events.recorded.isEmpty)

            // An hour later (the interval): the sessions (10 minutes) and the quota counters (kept an hour
            // after the last start) expired; the ledger keeps its tokens a day. A login started now stays.
            clock.advance(by: .seconds(3599))
            try await startLogins(1, server)
            clock.advance(by: .seconds(2))
            await clock.waitForSleepers(3)
            #expect(sessions.count == 1)
            #expect(ledger.count == 3)
            let swept = events.recorded.compactMap { event -> String? in
                guard case .store(.swept(let store, let removed)) = event.payload else { return nil }
                return "\(store) \(removed)"
            }
            #expect(swept.contains("login-sessions 4"))
            #expect(swept.contains { $0.hasPrefix("login-quotas ") })
            #expect(!swept.contains { $0.hasPrefix("exchange-ledger") })

            // A day after the claims, the ledger forgets them (and the numbers kept with them), though no
            // claim came since: before, only a claim past 4,096 tokens swept.
            _ = try await ledger.claim(Self.digest(99), for: me, at: clock.now())
            for _ in 0..<23 {
                clock.advance(by: .seconds(3600))
                await clock.waitForSleepers(3)
            }
            #expect(ledger.count == 1)
        }
    }

    @Test func aRoundRemovesInBatchesUpToItsLimitAndTheRestNextRound() async throws {
        let ledger = InMemoryExchangeLedger(retention: .seconds(60))
        let me = try LoginSessionID("SweeperTestSession0002")
        for index in 0..<7 { _ = try await ledger.claim(Self.digest(index), for: me, at: clock.now()) }
        let events = RecordingEventSink()
        let sweeper = ExpiredRecordSweeper(stores: [.exchangeLedger(ledger)], interval: .seconds(60), batchSize: 2, maxBatchesPerRound: 2, clock: clock, events: events)
        try await running(sweeper) {
            await clock.waitForSleepers(1)
            #expect(ledger.count == 7)
            clock.advance(by: .seconds(61))
            await clock.waitForSleepers(1)
            #expect(ledger.count == 3)  // two batches of two
            clock.advance(by: .seconds(60))
            await clock.waitForSleepers(1)
            clock.advance(by: .seconds(60))
            await clock.waitForSleepers(1)
            #expect(ledger.count == 0)
        }
        let removed = events.recorded.compactMap { event -> Int? in
            guard case .store(.swept("exchange-ledger", let removed)) = event.payload else { return nil }
            return removed
        }
        #expect(removed == [4, 3])  // the third round found one full batch and one short one: 2 + 1
    }

    /// An attacker's read of what strangers can make grow: a round stops at its limit (100 batches of 1,000) and the
    /// next began a whole interval later, so a table filled faster than 100,000 rows a minute (PostgreSQL's, which no
    /// write sweeps) grew for good. A round that reached its limit is followed by the next after a second's pause.
    @Test func aRoundThatReachedItsLimitIsFollowedSoon() async throws {
        let ledger = InMemoryExchangeLedger(retention: .seconds(60))
        let me = try LoginSessionID("SweeperTestSession0004")
        for index in 0..<7 { _ = try await ledger.claim(Self.digest(index), for: me, at: clock.now()) }
        let sweeper = ExpiredRecordSweeper(
            stores: [.exchangeLedger(ledger)], interval: .seconds(60), batchSize: 2, maxBatchesPerRound: 2, clock: clock, events: DiscardingEventSink())
        try await running(sweeper) {
            await clock.waitForSleepers(1)
            clock.advance(by: .seconds(61))
            await clock.waitForSleepers(1)
            #expect(ledger.count == 3)  // the round's limit: two batches of two
            clock.advance(by: .seconds(1))
            await clock.waitForSleepers(1)
            #expect(ledger.count == 0, "the backlog's next round came a second later")
        }
    }

    /// The review of the backlog pause: it was told by `batchSize × maxBatchesPerRound`, which traps for limits as
    /// large as `.max` (no limit). A round says whether it reached its limit instead.
    @Test func limitsAsLargeAsTheyGoSweepWithoutTrapping() async throws {
        let ledger = InMemoryExchangeLedger(retention: .seconds(60))
        let me = try LoginSessionID("SweeperTestSession0005")
        for index in 0..<3 { _ = try await ledger.claim(Self.digest(index), for: me, at: clock.now()) }
        clock.advance(by: .seconds(61))
        let sweeper = ExpiredRecordSweeper(
            stores: [.exchangeLedger(ledger)], batchSize: .max, maxBatchesPerRound: .max, clock: clock, events: DiscardingEventSink())
        try await running(sweeper) {
            await clock.waitForSleepers(1)
            #expect(ledger.count == 0)
        }
    }

    @Test func aFailingStoreIsReportedAndDoesNotStopTheOthers() async throws {
        let inner = InMemoryLoginSessionStore()
        let sessions = FaultyLoginSessionStore(inner)
        sessions.faults.inject(.refuse(.io, "the database is down (injected)"), into: [.removeExpired], times: 1)
        let ledger = InMemoryExchangeLedger(retention: .seconds(60))
        let server = LoginServer(store: sessions, clock: clock, events: DiscardingEventSink())
        try await startLogins(2, server)
        let me = try LoginSessionID("SweeperTestSession0003")
        _ = try await ledger.claim(Self.digest(1), for: me, at: clock.now())
        clock.advance(by: .seconds(601))   // both expired
        let events = RecordingEventSink()
        let sweeper = ExpiredRecordSweeper(stores: [.loginSessions(sessions), .exchangeLedger(ledger)], interval: .seconds(60), clock: clock, events: events)
        try await running(sweeper) {
            await clock.waitForSleepers(2)
            #expect(ledger.count == 0)           // the ledger's round went on
            #expect(inner.count == 2)            // the failing store kept them
            let failed = events.recorded.filter { $0.name == "sweep-failed" }
            #expect(failed.count == 1)
            #expect(failed.first?.json() == #"{"v":2,"at":"2026-12-01T00:10:01.000Z","area":"store","event":"sweep-failed","store":"login-sessions","removed":0,"reason":"io: the database is down (injected)"}"#)
            // The next round tries again, and removes them.
            clock.advance(by: .seconds(60))
            await clock.waitForSleepers(2)
            #expect(sessions.faults.calls(.removeExpired) == 1)
            #expect(inner.count == 0)
        }
        #expect(events.recorded.contains { $0.json() == #"{"v":2,"at":"2026-12-01T00:11:01.000Z","area":"store","event":"swept","store":"login-sessions","removed":2}"# })
    }

    /// The slow store's call would last a day on the clock; cancelling the sweeper ends it at once (the
    /// test's time limit bounds it: no real-time figure is asserted, a loaded machine under a sanitizer
    /// takes what it takes).
    @Test(.timeLimit(.minutes(4))) func cancellationEndsRunEvenDuringASlowStoreCall() async throws {
        let sessions = FaultyLoginSessionStore(InMemoryLoginSessionStore(), clock: clock)
        sessions.faults.inject(.delay(.seconds(86_400)), into: [.removeExpired], times: nil)
        let ledger = InMemoryExchangeLedger()
        let sweeper = ExpiredRecordSweeper(stores: [.loginSessions(sessions), .exchangeLedger(ledger)], interval: .seconds(60), clock: clock, events: DiscardingEventSink())
        try await running(sweeper) {
            await clock.waitForSleepers(2)  // the ledger's sleep between rounds and the slow store's call
        }
        #expect(clock.sleeperCount == 0)
    }

    @Test func theEventLinesArePinned() {
        let at = FakeClock.epoch
        #expect(OneTapEvent(at: at, .store(.swept(store: "sms", removed: 12))).json()
                == #"{"v":2,"at":"2026-12-01T00:00:00.000Z","area":"store","event":"swept","store":"sms","removed":12}"#)
        #expect(OneTapEvent(at: at, .store(.sweepFailed(store: "sms", removed: 3, reason: "down for 13800138000"))).json()
                == #"{"v":2,"at":"2026-12-01T00:00:00.000Z","area":"store","event":"sweep-failed","store":"sms","removed":3,"reason":"down for 138****8000"}"#)
        #expect(OneTapEvent(at: at, .store(.swept(store: "sms", removed: 12))).description == "2026-12-01T00:00:00.000Z store swept sms: 12 expired records removed")
    }
}

extension ExpiredRecordSweeperTests {
    /// A sweeper given no store still runs until cancelled (a service that returned at once would stop a
    /// service group), sweeping nothing.
    @Test func withNoStoresRunWaitsForCancellation() async throws {
        let sweeper = ExpiredRecordSweeper(stores: [], clock: clock, events: DiscardingEventSink())
        try await running(sweeper) {
            await clock.waitForSleepers(1)
            clock.advance(by: .seconds(60))
            await clock.waitForSleepers(1)
        }
        #expect(await sweeper.sweepOnce().isEmpty)
    }

    /// Out-of-range settings are clamped, never trapped on.
    @Test func settingsAreClamped() {
        let sweeper = ExpiredRecordSweeper(stores: [], interval: .zero, batchSize: -5, maxBatchesPerRound: 0, clock: clock, events: DiscardingEventSink())
        #expect(sweeper.interval == .milliseconds(1))
        #expect(sweeper.batchSize == 1)
        #expect(sweeper.maxBatchesPerRound == 1)
    }
}

extension ExpiredRecordSweeperTests {
    /// The ledger's own removal: a token claimed exactly `retention` before the instant is still
    /// remembered (a claim then answers it), one claimed a millisecond earlier goes; the limit holds.
    @Test func theLedgerForgetsWhatItsClaimsWouldForget() async throws {
        let ledger = InMemoryExchangeLedger(retention: .seconds(100))
        let me = try LoginSessionID("SweeperTestSession0004")
        let t0 = FakeClock.epoch
        _ = try await ledger.claim(Self.digest(1), for: me, at: t0.addingTimeInterval(-0.001))
        _ = try await ledger.claim(Self.digest(2), for: me, at: t0.addingTimeInterval(-0.002))
        _ = try await ledger.claim(Self.digest(3), for: me, at: t0)
        let instant = t0.addingTimeInterval(100)
        #expect(try await ledger.removeExpired(before: instant, limit: 0) == 0)
        #expect(try await ledger.removeExpired(before: instant, limit: -1) == 0)
        #expect(try await ledger.removeExpired(before: instant, limit: 1) == 1)
        #expect(try await ledger.removeExpired(before: instant, limit: 10) == 1)
        #expect(ledger.count == 1)
        #expect(try await ledger.claim(Self.digest(3), for: me, at: instant)?.state == .pending)
    }
}
