import Foundation
import OneTapTesting
import Testing
@testable import OneTap

/// Issue 21: retries of one login's success report against the guard (the app's retry while the exchange
/// is under way, resends of an unknown exchange, callers that go away), on a fake clock.
@Suite(.timeLimit(.minutes(3))) struct ExchangeGuardRetryTests {
    let clock = FakeClock()
    let ledger = InMemoryExchangeLedger()
    static let number = try! PhoneNumber("13800138000")
    static let credential = CarrierCredential(flow: .mobile, token: Secret("T-retried-1"), uniqueID: "u")
    static let success = ExchangeAnswer.answered("103000", phoneNumber: number, account: "account-7")

    func guarded(_ carrier: HeldTokenExchange, ledger: (any ExchangeLedger)? = nil) -> ExchangeGuard {
        ExchangeGuard(provider: carrier, ledger: ledger ?? self.ledger, timeout: .seconds(5), clock: clock)
    }

    func exchange(_ exchange: ExchangeGuard, for session: LoginSessionID = OneSession.id) -> Task<ExchangeAnswer, any Error> {
        let received = clock.now()
        return Task { try await exchange.exchange(Self.credential, for: session, receivedAt: received, rules: .builtIn, events: DiscardingEventSink()).answer }
    }

    /// Steps the fake clock by `step` until every task has finished (the suite's time limit bounds it: a
    /// real-time bound here would stop stepping under load while a task still sleeps on the clock, and
    /// the test would then wait for it for ever).
    func drive(_ tasks: [Task<ExchangeAnswer, any Error>], stepping step: Duration) async throws -> [ExchangeAnswer] {
        try await driveAll(tasks, stepping: step).map { try $0.get() }
    }

    /// As ``drive(_:stepping:)``, keeping what each task threw.
    func driveAll(_ tasks: [Task<ExchangeAnswer, any Error>], stepping step: Duration) async throws -> [Result<ExchangeAnswer, any Error>] {
        let finished = LockedValue(0)
        let watchers = tasks.map { task in Task { let answer = await task.result; finished.withLock { $0 += 1 }; return answer } }
        while finished.withLock({ $0 }) < tasks.count {
            clock.advance(by: step)
            try await Task.sleep(for: .milliseconds(2))
        }
        var answers: [Result<ExchangeAnswer, any Error>] = []
        for watcher in watchers { answers.append(await watcher.value) }
        return answers
    }

    /// The retry arrives while the carrier has the token: it waits, and gets the exchange's own answer
    /// (the number); the carrier is called once. Before, the retry was answered `replayed`.
    @Test func aRetryDuringTheExchangeWaitsForItsAnswer() async throws {
        let carrier = HeldTokenExchange()
        let exchange = guarded(carrier)
        let first = self.exchange(exchange)
        await carrier.waitForCalls(1)
        let retry = self.exchange(exchange)
        await clock.waitForSleepers(2, orEndOf: retry)  // waiting beside the first exchange's time limit, or answered without waiting (before issue 21)
        carrier.release(ExchangeResponse(code: "103000", phoneNumber: Self.number, account: "account-7"))
        #expect(try await first.value == Self.success)
        #expect(try await drive([retry], stepping: exchange.pollInterval) == [Self.success])
        #expect(carrier.calls == 1)
        // The same login's later retry gets the kept answer; another login's report of the token is a replay.
        #expect(try await self.exchange(exchange).value == Self.success)
        #expect(try await self.exchange(exchange, for: OneSession.other).value == .replayed)
        #expect(carrier.calls == 1)
    }

    /// The exchange the retry waits for times out: the retry makes no answer of its own (the first
    /// request applies its time-out; the retry throws a retryable `timeout`), sends nothing, and waited no
    /// longer than the guard's time-out. Before: the retry answered `timeout` itself.
    @Test func aRetryWaitsNoLongerThanTheTimeOut() async throws {
        let carrier = HeldTokenExchange()
        let exchange = guarded(carrier)
        let start = clock.now()
        let first = self.exchange(exchange)
        await carrier.waitForCalls(1)
        let retry = self.exchange(exchange)
        await clock.waitForSleepers(2, orEndOf: retry)  // waiting beside the first exchange's time limit, or answered without waiting (before issue 21)
        let answers = try await driveAll([first, retry], stepping: .milliseconds(100))
        #expect(try answers[0].get() == .timeout)
        #expect(Self.threwTimeout(answers[1]), "\(answers[1])")
        #expect(carrier.calls == 1, "the waiting retry sent nothing")
        #expect(try await ledger.unknownExchanges(since: .distantPast).map(\.session) == [OneSession.id])
        #expect(clock.now() > start)
    }

    /// A claim whose exchange never ends (its instance died): the same login's retry waits until the
    /// guard's time-out plus its grace have passed since the claim, then gives up without an answer (a
    /// retryable `timeout`), sending nothing. Before: it answered `timeout`, which the server stored.
    @Test func aRetryWaitsForAClaimNoLongerThanTheTimeOutAndItsGrace() async throws {
        let carrier = HeldTokenExchange()
        let exchange = guarded(carrier)
        let claimed = clock.now()
        _ = try await ledger.claim(Self.credential.tokenDigest, for: OneSession.id, at: claimed)
        let clock = self.clock
        let retry = Task {
            let answer = await Result { try await exchange.exchange(Self.credential, for: OneSession.id, receivedAt: claimed, rules: .builtIn, events: DiscardingEventSink()).answer }
            return (answer, clock.now())
        }
        let finished = LockedValue(false)
        let watcher = Task { let result = await retry.value; finished.withLock { $0 = true }; return result }
        // One step per sleep of the retry, so the time it answers at is exact however loaded the machine.
        while !finished.withLock({ $0 }) {
            if clock.sleeperCount > 0 { clock.advance(by: exchange.pollInterval) }
            try await Task.sleep(for: .milliseconds(1))
        }
        let (answer, at) = await watcher.value
        #expect(Self.threwTimeout(answer), "\(answer)")
        let waited = at.timeIntervalSince(claimed)
        #expect(waited >= (exchange.timeout + exchange.settleGrace).seconds && waited < (exchange.timeout + exchange.settleGrace).seconds + 0.15, "\(waited) s")
        #expect(carrier.calls == 0)
    }

    /// A pending claim from an instance that died: the same login's retry does not wait past the time-out,
    /// and makes no answer up (a retryable `timeout`).
    @Test func aPendingClaimOlderThanTheTimeOutIsNotWaitedOn() async throws {
        let carrier = HeldTokenExchange()
        let exchange = guarded(carrier)
        _ = try await ledger.claim(Self.credential.tokenDigest, for: OneSession.id, at: clock.now().addingTimeInterval(-6))
        let answer = await self.exchange(exchange).result
        #expect(Self.threwTimeout(answer), "\(answer)")
        #expect(carrier.calls == 0)
    }

    /// N concurrent resends of an `unknown` token by its login make one carrier call, and every one gets
    /// its answer (one resends, the others wait for it: as many as a token's waiters may be,
    /// ``ExchangeGuard/maximumWaiters``); a resend from another login makes none. Before, every resend called the
    /// carrier.
    @Test func concurrentResendsOfAnUnknownTokenMakeOneCarrierCall() async throws {
        let carrier = HeldTokenExchange()
        let exchange = guarded(carrier)
        let first = self.exchange(exchange)
        await carrier.waitForCalls(1)
        #expect(try await drive([first], stepping: .seconds(1)) == [.timeout])
        #expect(try await ledger.claim(Self.credential.tokenDigest, at: clock.now()) == .unknown)
        #expect(try await self.exchange(exchange, for: OneSession.other).value == .replayed, "another login may not resend it")
        #expect(carrier.calls == 1)
        carrier.release(ExchangeResponse(code: "103000", phoneNumber: Self.number, account: "account-7"))
        let resends = (0...exchange.maximumWaiters).map { _ in self.exchange(exchange) }
        let answers = try await drive(resends, stepping: .milliseconds(10))   // slow steps: a loaded machine's resend answers well within the wait
        #expect(carrier.calls == 2, "one carrier call for \(resends.count) resends")
        #expect(answers.allSatisfy { $0 == Self.success }, "\(Set(answers.map(\.description)))")
        #expect(try await self.exchange(exchange, for: OneSession.other).value == .replayed)
        #expect(carrier.calls == 2)
    }

    /// A caller that goes away while the carrier has the token leaves the exchange `unknown` (the carrier
    /// may have billed), written though its task is cancelled, listed for reconciliation with its
    /// session. A caller who disconnects after each report cannot have the token billed again and again:
    /// the login may resend it once, no other login at all.
    @Test func aCancelledCallerLeavesTheExchangeUnknownAndCannotResendItAgainAndAgain() async throws {
        let carrier = HeldTokenExchange()
        let cancellable = CancellationAwareLedger(base: ledger)
        let exchange = guarded(carrier, ledger: cancellable)
        for round in 0..<5 {
            let call = self.exchange(exchange)
            if round < 2 { await carrier.waitForCalls(round + 1) }  // the first send, then the one resend
            call.cancel()
            #expect(try await call.value == .timeout, "round \(round)")
        }
        #expect(carrier.calls == 2, "the first send and one resend, of five disconnects")
        let listed = try await ledger.unknownExchanges(since: .distantPast)
        #expect(listed.map(\.token) == [Self.credential.tokenDigest] && listed.first?.session == OneSession.id && listed.first?.sends == 2)
        #expect(try await self.exchange(exchange, for: OneSession.other).value == .replayed)
        #expect(carrier.calls == 2)
    }
}

extension ExchangeGuardRetryTests {
    /// Whether a call gave no answer, throwing the guard's retryable `timeout`.
    static func threwTimeout(_ result: Result<ExchangeAnswer, any Error>) -> Bool {
        guard case .failure(let error) = result else { return false }
        return (error as? StoreError)?.kind == .timeout
    }
}

extension Result where Failure == any Error {
    /// The result of an async throwing body.
    init(_ body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}

/// Gives up on a cancelled task, as a store waiting for a pooled connection does.
struct CancellationAwareLedger: ExchangeLedger {
    let base: any ExchangeLedger
    func claim(_ token: SHA256Digest, for session: LoginSessionID, at now: Date) async throws -> ExchangeLedgerEntry? {
        try await base.claim(token, for: session, at: now)
    }
    func resend(_ token: SHA256Digest, for session: LoginSessionID, at now: Date) async throws -> Bool {
        try await base.resend(token, for: session, at: now)
    }
    func settle(_ token: SHA256Digest, _ state: ExchangeLedgerState, at now: Date) async throws {
        try Task.checkCancellation()
        try await base.settle(token, state, at: now)
    }
    func unknownExchanges(since: Date, pendingClaimedBefore: Date, after: ExchangeLedgerEntry?, limit: Int) async throws -> [ExchangeLedgerEntry] {
        try await base.unknownExchanges(since: since, pendingClaimedBefore: pendingClaimedBefore, after: after, limit: limit)
    }
}
