import Foundation
import OneTapTesting
import Testing
@testable import OneTap

/// Issue 21, scenario 3, through the server's report handler: a retry that gives up waiting, a copy of
/// the report that loses its compare-and-swap to its twin, and a ledger outage on the claim change nothing
/// of their own; the first request's billed success stands. On a fake clock.
@Suite(.timeLimit(.minutes(3))) struct LoginServerExchangeRaceTests {
    let clock = FakeClock()
    let store = InMemoryLoginSessionStore()
    static let mobileSIM = DeviceSnapshot(sim: .present, plmn: try! PLMN("46000"))
    static let number = try! PhoneNumber("13800138000")
    static let success = LoginReport.result(.mobile, code: "103000", credential: CarrierCredential(flow: .mobile, token: Secret("T-race-1"), uniqueID: "uid-1"))
    static let done = "v3 done success mobile 13800138000"

    /// A breaker of one attempt: any failure told to it opens the circuit.
    func touchy() -> ChannelHealth { ChannelHealth(window: 1, minimumAttempts: 1, failureThreshold: 0.5) }

    func server(_ exchange: ExchangeGuard, store: (any LoginSessionStore)? = nil, health: ChannelHealth? = nil) -> LoginServer {
        LoginServer(store: store ?? self.store, exchange: exchange, health: health, clock: clock, events: DiscardingEventSink())
    }

    func report(_ logins: LoginServer, _ id: LoginSessionID) -> Task<LoginTransition, any Error> {
        Task { try await logins.report(Self.success, to: id, version: 1, from: TestAppSession.me) }
    }

    func opened(_ health: ChannelHealth) -> Bool {
        if case .open = health.state(of: .mobile, for: .mobile, at: clock.now()) { return true }
        return false
    }

    /// A carrier that answers a second after the login's last one: the clock moves on while it works.
    struct LateCarrier: TokenExchangeProvider {
        let clock: FakeClock
        let number: PhoneNumber
        func exchange(_ credential: CarrierCredential) async throws -> ExchangeResponse {
            clock.advance(by: .seconds(2))
            return ExchangeResponse(code: "103000", phoneNumber: number)
        }
    }

    /// An attacker's read: a success report taken in the login's last second, whose exchange the carrier answered
    /// (and billed) a second after the login expired, was refused `expired` with its answer kept in the ledger, and
    /// the app's retry was refused again: a paid exchange lost, and a new login would pay a second. The answer to
    /// a report the login took in time is taken.
    @Test func anExchangeAnsweredJustAfterTheLoginsLastSecondStillSucceeds() async throws {
        let logins = server(ExchangeGuard(provider: LateCarrier(clock: clock, number: Self.number), clock: clock))
        let started = try await logins.start(Self.mobileSIM, for: TestAppSession.me)
        clock.setWallTime(started.session.expiresAt.addingTimeInterval(-1))
        let done = try await logins.report(Self.success, to: started.session.id, version: 1, from: TestAppSession.me)
        guard case .done(.success, .mobile, let verified) = done.instruction else {
            Issue.record("\(done.instruction)")
            return
        }
        #expect(verified?.phoneNumber == Self.number)
        // Its answer lost on the way, the app sends the report again a second later: told the same success.
        let again = try await logins.report(Self.success, to: started.session.id, version: 1, from: TestAppSession.me)
        guard case .done(.success, .mobile, let told) = again.instruction else {
            Issue.record("\(again.instruction)")
            return
        }
        #expect(told?.phoneNumber == Self.number)
    }

    /// The retry's client disconnects while it waits: the retry throws `CancellationError`, the session
    /// stays at its exchange, the breaker hears nothing, and the first request's success is stored.
    /// Before: the retry stored a made-up `timeout` (SMS, a server-seen failure) and the billed success
    /// lost its compare-and-swap.
    @Test func aCancelledRetryChangesNothingAndTheBilledSuccessStands() async throws {
        let carrier = HeldTokenExchange()
        let health = touchy()
        let logins = server(ExchangeGuard(provider: carrier, timeout: .seconds(5), clock: clock), health: health)
        let id = try await logins.start(Self.mobileSIM, for: TestAppSession.me).session.id
        let first = report(logins, id)
        await carrier.waitForCalls(1)
        let retry = report(logins, id)
        await clock.waitForSleepers(2)
        retry.cancel()
        let cancelled = await retry.result
        #expect(throws: CancellationError.self) { try cancelled.get() }
        #expect(try await store.load(id)?.version == 2, "the session is still at its exchange")
        #expect(!opened(health))
        carrier.release(ExchangeResponse(code: "103000", phoneNumber: Self.number))
        #expect(LoginServerExchangeRetryTests.summary(await first.result) == Self.done)
        #expect(carrier.calls == 1)
        #expect(!opened(health))
    }

    /// The first request's answer is stored late (its session write held past the time-out and its grace; the
    /// settle follows the session): the waiting retry fails with a retryable `timeout` (503) and changes nothing;
    /// the first request stores the billed success, and the app's next retry is told it. Before: the retry stored
    /// `timeout` (SMS).
    @Test func aRetryPastItsWaitChangesNothingAndTheLateSuccessStands() async throws {
        let held = HeldReplaceStore(base: store, holding: 2)   // 1: the move to the exchange; 2: the answer's
        let exchange = ExchangeGuard(provider: MockTokenExchange(number: Self.number), timeout: .seconds(5), clock: clock)
        let health = touchy()
        let logins = server(exchange, store: held, health: health)
        let id = try await logins.start(Self.mobileSIM, for: TestAppSession.me).session.id
        let first = report(logins, id)
        await held.reached()
        let retry = report(logins, id)
        let waited = await clock.advance(by: exchange.pollInterval, until: retry)  // bounded by the suite's time limit
        #expect((waited.failureValue as? StoreError)?.kind == .timeout, "\(LoginServerExchangeRetryTests.summary(waited))")
        #expect(try await store.load(id)?.version == 2)
        #expect(!opened(health))
        held.release()
        #expect(LoginServerExchangeRetryTests.summary(await first.result) == Self.done)
        #expect(LoginServerExchangeRetryTests.summary(await report(logins, id).result) == Self.done)
    }

    /// The settle of a success written late (the ledger slow after the session's move): a retry meanwhile is told the
    /// success at once, from the stored session, and the carrier is called once.
    @Test func aLateSettleHoldsUpNoRetry() async throws {
        let gated = GatedSettleLedger(base: InMemoryExchangeLedger())
        let carrier = MockTokenExchange(number: Self.number)
        let logins = server(ExchangeGuard(provider: carrier, ledger: gated, timeout: .seconds(5), clock: clock))
        let id = try await logins.start(Self.mobileSIM, for: TestAppSession.me).session.id
        let first = report(logins, id)
        await gated.waitForSettles(1)
        // Told from the stored session; a retry that read this instance's kept copy (at the exchange) waits on the
        // ledger's claim until the stored session answers it: the fake clock moves for it.
        let retried = await clock.advance(by: .milliseconds(100), until: report(logins, id))
        #expect(LoginServerExchangeRetryTests.summary(retried) == Self.done)
        gated.open()
        #expect(LoginServerExchangeRetryTests.summary(await first.result) == Self.done)
        #expect(carrier.tokensSent == ["T-race-1": 1])
    }

    /// Two copies of one success report read the session at the same version; the one that loses the
    /// compare-and-swap to its twin is a retry: it waits for the exchange and answers its success; the
    /// carrier is called once. Before: it failed with `stale-version`.
    @Test func aCopyThatLosesTheCompareAndSwapToItsTwinGetsTheExchangesAnswer() async throws {
        let carrier = HeldTokenExchange()
        let exchange = ExchangeGuard(provider: carrier, timeout: .seconds(5), clock: clock)
        let staleOnce = StaleOnceStore(base: store)
        let logins = server(exchange, store: staleOnce)
        let id = try await logins.start(Self.mobileSIM, for: TestAppSession.me).session.id
        staleOnce.hold(try #require(try await store.load(id)))  // the twin's read, before the first report's write
        let first = report(logins, id)
        await carrier.waitForCalls(1)
        staleOnce.arm()
        let twin = report(logins, id)
        await clock.waitForSleepers(2, orEndOf: twin)  // the twin waits beside the first's limit, or (as before) has already failed
        carrier.release(ExchangeResponse(code: "103000", phoneNumber: Self.number))
        #expect(LoginServerExchangeRetryTests.summary(await first.result) == Self.done)
        #expect(LoginServerExchangeRetryTests.summary(await clock.step(by: exchange.pollInterval, until: twin)) == Self.done)  // the first is done: the twin sleeps alone
        #expect(carrier.calls == 1)
    }

    /// The exchange ledger is down when the success's token is claimed: the token was never sent, so
    /// the request fails with the ledger's `StoreError` (503), the session stays at its exchange and the
    /// breaker hears nothing; the app's retry, once the ledger is back, exchanges it. Before: the login
    /// fell back to SMS and the breaker counted a server-seen carrier failure.
    @Test func aLedgerOutageOnTheClaimFailsTheRequestAndTellsTheBreakerNothing() async throws {
        let ledger = FaultyExchangeLedger(InMemoryExchangeLedger())
        ledger.faults.inject(.refuse(.io, "the database is down"), into: [.claim], times: 2)   // the claim and its second try
        let carrier = MockTokenExchange(number: Self.number)
        let health = touchy()
        let logins = server(ExchangeGuard(provider: carrier, ledger: ledger, clock: clock), health: health)
        let id = try await logins.start(Self.mobileSIM, for: TestAppSession.me).session.id
        let failed = await report(logins, id).result
        #expect((failed.failureValue as? StoreError)?.kind == .io, "\(LoginServerExchangeRetryTests.summary(failed))")
        let stored = try #require(try await store.load(id))
        #expect(stored.version == 2 && stored.trace.last?.result.code != "exchange-failed")
        #expect(!opened(health))
        #expect(carrier.tokensSent.isEmpty)
        #expect(LoginServerExchangeRetryTests.summary(await report(logins, id).result) == Self.done)
        #expect(carrier.tokensSent == ["T-race-1": 1])
    }
}

extension LoginServerExchangeRaceTests {
    /// A retry of the success report that comes after the carrier's unknown answer and before the session has moved
    /// on (a store without joint writes: the settle and the session are two writes) resends nothing: it waits for the
    /// exchange under way and answers the stored session. Before (an attacker's read), the settle was written first:
    /// the retry found the token `unknown`, resent it (a second paid call) and its answer was thrown away.
    @Test func aRetryBetweenAnUnknownAnswerAndTheSessionsMoveResendsNothing() async throws {
        struct MalformedBody: Error {}
        let held = HeldReplaceStore(base: store, holding: 2)   // 1: the move to the exchange; 2: the answer's
        let carrier = MockTokenExchange([.error(MalformedBody()), .value(ExchangeResponse(code: "103000", phoneNumber: Self.number))], number: Self.number, clock: clock)
        let logins = server(ExchangeGuard(provider: carrier, clock: clock), store: held)
        let started = try await logins.start(Self.mobileSIM, for: TestAppSession.me)
        let first = report(logins, started.session.id)
        await held.reached()
        let retry = report(logins, started.session.id)
        await clock.waitForSleepers(1)   // the retry waits for the exchange under way
        held.release()
        let answered = try await first.value
        #expect(answered.session.next == "sms", "\(answered.session)")
        // The retry polls the ledger on the fake clock: moved on until it has its answer (the suite's time limit bounds it).
        let retried = try await clock.advance(by: .milliseconds(100), until: retry).get()
        #expect(retried.session.version == answered.session.version, "\(retried.session)")
        #expect(carrier.tokensSent == ["T-race-1": 1], "the retry resent the token")
    }
}

/// A session store that holds its `holding`-th replace until ``release()``, and says when it is reached.
final class HeldReplaceStore: LoginSessionStore, @unchecked Sendable {
    let base: any LoginSessionStore
    let holding: Int
    private let count = LockedValue(0)
    private let arrived = AsyncStream<Void>.makeStream()
    private let gate = AsyncStream<Void>.makeStream()

    init(base: any LoginSessionStore, holding: Int) {
        self.base = base
        self.holding = holding
    }

    /// Waits until the held replace is reached.
    func reached() async { for await _ in arrived.stream { return } }

    /// Lets the held replace go on.
    func release() { gate.continuation.yield() }

    func create(_ session: LoginSession) async throws { try await base.create(session) }
    func load(_ id: LoginSessionID) async throws -> LoginSession? { try await base.load(id) }
    func replace(_ session: LoginSession, expecting version: Int) async throws {
        if count.withLock({ $0 += 1; return $0 }) == holding {
            arrived.continuation.yield()
            for await _ in gate.stream { break }
        }
        try await base.replace(session, expecting: version)
    }
    func removeExpired(before instant: Date, limit: Int) async throws -> Int { try await base.removeExpired(before: instant, limit: limit) }
}

extension Result {
    /// The error, if it failed.
    var failureValue: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

/// A session store that answers one load, once armed, with a session read earlier (a request that read
/// the session just before another request's write).
final class StaleOnceStore: LoginSessionStore, @unchecked Sendable {
    let base: any LoginSessionStore
    private let held = LockedValue<LoginSession?>(nil)
    private let armed = LockedValue(false)

    init(base: any LoginSessionStore) { self.base = base }

    /// Keeps the session the next armed load answers.
    func hold(_ session: LoginSession) { held.withLock { $0 = session } }

    /// Makes the next load answer the held session.
    func arm() { armed.withLock { $0 = true } }

    func create(_ session: LoginSession) async throws { try await base.create(session) }
    func load(_ id: LoginSessionID) async throws -> LoginSession? {
        let stale: LoginSession? = armed.withLock { fire in
            defer { fire = false }
            return fire ? held.withLock { $0 } : nil
        }
        if let stale { return stale }
        return try await base.load(id)
    }
    func replace(_ session: LoginSession, expecting version: Int) async throws { try await base.replace(session, expecting: version) }
    func removeExpired(before instant: Date, limit: Int) async throws -> Int { try await base.removeExpired(before: instant, limit: limit) }
}
