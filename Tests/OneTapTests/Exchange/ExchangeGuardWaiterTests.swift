import Foundation
import OneTapTesting
import Testing
@testable import OneTap

/// A retry that waits for the same login's exchange never makes an answer up (it throws, and the
/// exchange's own request applies what the carrier said); a ledger that fails on a claim answers nothing;
/// a provider's throw other than "not sent" leaves the exchange unknown, for reconciliation. On a fake clock.
@Suite(.timeLimit(.minutes(3))) struct ExchangeGuardWaiterTests {
    let clock = FakeClock()
    let ledger = InMemoryExchangeLedger()
    static let number = try! PhoneNumber("13800138000")
    static let credential = CarrierCredential(flow: .mobile, token: Secret("T-waiter-1"), uniqueID: "u")
    static let success = ExchangeAnswer.answered("103000", phoneNumber: number)

    func exchange(_ exchange: ExchangeGuard, for session: LoginSessionID = OneSession.id) -> Task<ExchangeAnswer, any Error> {
        let received = clock.now()
        return Task { try await exchange.exchange(Self.credential, for: session, receivedAt: received, rules: .builtIn, events: DiscardingEventSink()).answer }
    }

    /// The retry's task is cancelled (its client disconnected) while it waits for the exchange under way:
    /// it throws `CancellationError`, and the exchange still answers its own caller. Before: the retry
    /// answered `timeout`, an answer the server then stored (the login went to SMS).
    @Test func aCancelledWaiterThrowsAndMakesNoAnswer() async throws {
        let carrier = HeldTokenExchange()
        let guarded = ExchangeGuard(provider: carrier, ledger: ledger, timeout: .seconds(5), clock: clock)
        let first = exchange(guarded)
        await carrier.waitForCalls(1)
        let retry = exchange(guarded)
        await clock.waitForSleepers(2)  // the first's time limit and the retry's poll
        retry.cancel()
        let waited = await retry.result
        #expect(throws: CancellationError.self) { try waited.get() }
        carrier.release(ExchangeResponse(code: "103000", phoneNumber: Self.number))
        #expect(try await first.value == Self.success)
        #expect(carrier.calls == 1)
    }

    /// An attacker's read of what strangers can make grow: each repeat of a success report sent while its exchange was
    /// under way polled the ledger every 100 ms until the answer, so a client sending the same report a hundred times
    /// at once made some sixty ledger reads of each, and held a hundred tasks. A few repeats wait on one instance
    /// (``ExchangeGuard/maximumWaiters``); one more gets the retryable `timeout` at once, reading nothing more, and the
    /// waiters and the exchange get their answers as before.
    @Test func onlyAFewRepeatsWaitForOneExchange() async throws {
        let carrier = HeldTokenExchange()
        let guarded = ExchangeGuard(provider: carrier, ledger: ledger, timeout: .seconds(5), clock: clock)
        let first = exchange(guarded)
        await carrier.waitForCalls(1)
        var waiters: [Task<ExchangeAnswer, any Error>] = []
        for count in 1...guarded.maximumWaiters {
            waiters.append(exchange(guarded))
            await clock.waitForSleepers(1 + count)  // the first's time limit and each waiter's poll
        }
        #expect(guarded.waitingRetries == guarded.maximumWaiters)
        let extra = await clock.advance(by: guarded.pollInterval, until: exchange(guarded))  // at once, or bounded by the suite's limit
        if case .failure(let error as StoreError) = extra {
            #expect(error.kind == .timeout && error.message.contains("already wait"), "\(error)")
        } else {
            Issue.record("the extra repeat answered \(extra)")
        }
        carrier.release(ExchangeResponse(code: "103000", phoneNumber: Self.number))
        #expect(try await first.value == Self.success)
        for waiter in waiters {
            _ = await clock.advance(by: guarded.pollInterval, until: waiter)
            #expect(try await waiter.value == Self.success)
        }
        // Once they are answered, none is left counted, and a repeat gets the kept answer.
        #expect(guarded.waitingRetries == 0)
        #expect(try await exchange(guarded).value == Self.success)
        #expect(carrier.calls == 1)
    }

    /// The exchange's answer is recorded late (its settle is slow, past the time-out and its grace): the
    /// waiting retry gives up with a retryable `timeout` and no answer; the answer, recorded later, is
    /// the exchange's own and the next retry gets it. Before: the retry answered `timeout`.
    @Test func aWaiterPastItsBoundMakesNoAnswerAndTheLateAnswerStands() async throws {
        let gated = GatedSettleLedger(base: ledger)
        let guarded = ExchangeGuard(provider: MockTokenExchange(number: Self.number), ledger: gated, timeout: .seconds(5), clock: clock)
        let first = exchange(guarded)
        await gated.waitForSettles(1)  // the carrier answered; its settle is held
        let retry = exchange(guarded)
        let waited = await clock.advance(by: guarded.pollInterval, until: retry)  // bounded by the suite's time limit
        #expect(throws: StoreError.self) { try waited.get() }
        if case .failure(let error as StoreError) = waited { #expect(error.kind == .timeout, "\(error)") }
        gated.open()
        #expect(try await first.value == Self.success)
        #expect(try await exchange(guarded).value == Self.success, "the next retry gets the kept answer")
    }

    /// An attacker's read: the wait for the exchange under way ended at the claim's time (the claiming instance's
    /// clock) plus the time-out and its grace, read on this instance's clock: a claimer a minute ahead, or this
    /// clock set back, kept the retry polling the ledger a minute longer. The wait also ends once this
    /// instance's own time-out and grace have passed.
    @Test func aWaitIsBoundedOnThisInstancesClockToo() async throws {
        let guarded = ExchangeGuard(provider: MockTokenExchange(number: Self.number), ledger: ledger, timeout: .seconds(5), clock: clock)
        _ = try await ledger.claim(Self.credential.tokenDigest, for: OneSession.id, at: clock.now().addingTimeInterval(60))
        let start = clock.now()
        let retry = exchange(guarded)
        let waited = await clock.step(by: guarded.pollInterval, until: retry)  // only the retry sleeps: lock-step  // bounded by the suite's time limit
        if case .failure(let error as StoreError) = waited { #expect(error.kind == .timeout, "\(error)") } else { Issue.record("\(waited)") }
        #expect(clock.now().timeIntervalSince(start) <= 8, "waited \(clock.now().timeIntervalSince(start)) s")
    }

    /// A recovery that finds its token past its lifetime while this login's own exchange of it is under way (a retry's
    /// resend, claimed a moment ago) waits for that exchange's answer, as a recovery within the lifetime does; a claim
    /// older than the time-out and its grace (an instance that died) is too old to wait for: `token-expired`. An
    /// attacker's read: it answered `token-expired` at once, the machine moved the login to a second run of the flow,
    /// and the answer the resend then got, the number, was billed and lost.
    @Test func aRecoveryPastTheTokensLifetimeWaitsForTheExchangeUnderWay() async throws {
        let guarded = ExchangeGuard(provider: MockTokenExchange(number: Self.number), ledger: ledger, timeout: .seconds(5), clock: clock)
        let digest = Self.credential.tokenDigest
        #expect(try await ledger.claim(digest, for: OneSession.id, at: clock.now()) == nil)  // the resend under way
        let received = clock.now().addingTimeInterval(-121)  // China Mobile's token lives 120 s
        let recovery = Task {
            try await guarded.exchange(Self.credential, for: OneSession.id, receivedAt: received, rules: .builtIn, events: DiscardingEventSink(), recovering: true)
                .answer
        }
        await clock.waitForSleepers(1)  // the recovery polls the ledger
        try await ledger.settle(digest, .answered(ExchangeResponse(code: "103000", phoneNumber: Self.number)), at: clock.now())
        let answered = await clock.advance(by: guarded.pollInterval, until: recovery)
        #expect(try answered.get() == Self.success)

        let crashed = CarrierCredential(flow: .mobile, token: Secret("T-waiter-crashed"), uniqueID: "u")
        #expect(try await ledger.claim(crashed.tokenDigest, for: OneSession.id, at: clock.now().addingTimeInterval(-7)) == nil)
        let late = try await guarded.exchange(crashed, for: OneSession.id, receivedAt: received, rules: .builtIn, events: DiscardingEventSink(), recovering: true)
        #expect(late.answer == .tokenExpired)
    }

    /// A recovery past the token's lifetime that waited in vain makes no answer of its own, as one within the lifetime:
    /// the claim still pending past the time-out and its grace, or the exchange it waited for ended unknown, is a
    /// retryable `timeout`; the token is never sent.
    @Test(arguments: [false, true])
    func aRecoveryPastTheLifetimeThatWaitedInVainThrowsAndSendsNothing(endsUnknown: Bool) async throws {
        let provider = MockTokenExchange(number: Self.number)
        let guarded = ExchangeGuard(provider: provider, ledger: ledger, timeout: .seconds(5), clock: clock)
        let digest = Self.credential.tokenDigest
        #expect(try await ledger.claim(digest, for: OneSession.id, at: clock.now()) == nil)
        let received = clock.now().addingTimeInterval(-121)
        let recovery = Task {
            try await guarded.exchange(Self.credential, for: OneSession.id, receivedAt: received, rules: .builtIn, events: DiscardingEventSink(), recovering: true)
                .answer
        }
        if endsUnknown {
            await clock.waitForSleepers(1)
            try await ledger.settle(digest, .unknown, at: clock.now())
        }
        let waited = await clock.advance(by: guarded.pollInterval, until: recovery)
        if case .failure(let error as StoreError) = waited { #expect(error.kind == .timeout, "\(error)") } else { Issue.record("\(waited)") }
        #expect(provider.flowsExchanged.isEmpty, "nothing is sent")
    }

    /// A provider that throws after the request may have left (a malformed body) leaves the exchange
    /// `unknown`: listed for reconciliation, resendable once by its login, refused to any other. Before:
    /// `failed`, never listed though the carrier may have billed.
    @Test func aProviderThrowThatIsNotNotSentIsUnknown() async throws {
        struct MalformedBody: Error, CustomStringConvertible { var description: String { "the carrier's body was not JSON" } }
        let carrier = MockTokenExchange([.error(MalformedBody()), .value(ExchangeResponse(code: "103000", phoneNumber: Self.number))], number: Self.number)
        let guarded = ExchangeGuard(provider: carrier, ledger: ledger, timeout: .seconds(5), clock: clock)
        #expect(try await exchange(guarded).value == .fault("the carrier's body was not JSON"))
        #expect(try await ledger.unknownExchanges(since: .distantPast).map(\.session) == [OneSession.id])
        #expect(try await exchange(guarded, for: OneSession.other).value == .replayed)
        #expect(try await exchange(guarded).value == Self.success, "its login resends it once and learns the result")
        #expect(carrier.tokensSent == ["T-waiter-1": 2])
    }

    /// A ledger that fails on the claim (and on the claim's second try, after an `io` failure whose write may have gone
    /// in): nothing is sent and nothing answered (its `StoreError` propagates). Before: the answer `fault`, which the
    /// login took as a carrier failure.
    @Test func aLedgerFailureOnTheClaimAnswersNothing() async throws {
        let faulty = FaultyExchangeLedger(ledger)
        faulty.faults.inject(.refuse(.io, "the database is down"), into: [.claim], times: 2)
        let carrier = MockTokenExchange(number: Self.number)
        let guarded = ExchangeGuard(provider: carrier, ledger: faulty, timeout: .seconds(5), clock: clock)
        let failed = await exchange(guarded).result
        #expect(throws: StoreError.self) { try failed.get() }
        #expect(carrier.tokensSent.isEmpty)
        #expect(try await exchange(guarded).value == Self.success, "once the ledger is back, the token is sent")
    }

    /// On the device, a coordinator whose ledger fails on the claim sends nothing and moves on to SMS (no
    /// one retries a report there): the trace says the exchange was not made, and never the token.
    @Test func aCoordinatorWhoseLedgerFailsSendsNothingAndFallsBack() async throws {
        let faulty = FaultyExchangeLedger(ledger)
        faulty.faults.inject(.refuse(.io, "the database is down"), into: [.claim], times: nil)
        let carrier = MockTokenExchange(number: Self.number)
        let coordinator = LoginCoordinator(
            providers: LoginProviders(mobile: MockOneTapProvider(.mobile, codes: [103000]), sms: MockSMSProvider(), exchange: carrier), exchangeLedger: faulty,
            events: DiscardingEventSink())
        let outcome = try await coordinator.login(DeviceSnapshot(plmn: try PLMN("46000")))
        #expect(outcome.trace.map { "\($0.flow):\($0.result.code):\($0.action)" } == ["mobile:103000:success", "mobile:exchange-failed:fallback", "sms:0:success"])
        #expect(outcome.trace.contains { $0.meaning.contains("the exchange was not made") && !$0.meaning.contains("mobile-token-1") })
        #expect(carrier.tokensSent.isEmpty)
    }
}

/// A ledger whose settles wait until the test opens it (an exchange's answer recorded late), counting them.
final class GatedSettleLedger: ExchangeLedger {
    let base: any ExchangeLedger
    private let gate = Gate()
    private let arrived = LockedValue(CountWatch())

    init(base: any ExchangeLedger) { self.base = base }

    /// Lets every settle, waiting or later, through.
    func open() { gate.open() }

    /// Waits until `n` settles arrived (the suite's time limit bounds it).
    func waitForSettles(_ n: Int) async {
        await arrived.wait(until: n, on: \.self)
    }

    func claim(_ token: SHA256Digest, for session: LoginSessionID, at now: Date) async throws -> ExchangeLedgerEntry? {
        try await base.claim(token, for: session, at: now)
    }
    func resend(_ token: SHA256Digest, for session: LoginSessionID, at now: Date) async throws -> Bool {
        try await base.resend(token, for: session, at: now)
    }
    func settle(_ token: SHA256Digest, _ state: ExchangeLedgerState, at now: Date) async throws {
        for waiter in arrived.withLock({ $0.increment() }) { waiter.resume(returning: true) }
        guard await gate.passes() else { throw CancellationError() }
        try await base.settle(token, state, at: now)
    }
    func unknownExchanges(since: Date, pendingClaimedBefore: Date, after: ExchangeLedgerEntry?, limit: Int) async throws -> [ExchangeLedgerEntry] {
        try await base.unknownExchanges(since: since, pendingClaimedBefore: pendingClaimedBefore, after: after, limit: limit)
    }
}
