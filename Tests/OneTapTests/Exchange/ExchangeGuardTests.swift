import Foundation
import OneTapTesting
import Testing
@testable import OneTap

/// The guard around the paid exchange, on a fake clock with a scripted carrier.
@Suite struct ExchangeGuardTests {
    let clock = FakeClock()
    let ledger = InMemoryExchangeLedger()
    static let number = try! PhoneNumber("13800138000")
    /// SHA-256("abc"), FIPS 180-2 appendix B.1: the ledger keeps digests, never tokens.
    static let abc = SHA256Digest(hex: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")!

    func guarded(_ provider: MockTokenExchange, ledger: (any ExchangeLedger)? = nil, timeout: Duration = .seconds(5)) -> ExchangeGuard {
        ExchangeGuard(provider: provider, ledger: ledger ?? self.ledger, timeout: timeout, clock: clock)
    }

    func provider(_ answers: [MockAnswer<ExchangeResponse?>] = []) -> MockTokenExchange {
        MockTokenExchange(answers, number: Self.number, clock: clock)
    }

    static func credential(_ flow: LoginFlow = .mobile, _ token: String = "abc", refresh: String? = nil) -> CarrierCredential {
        CarrierCredential(flow: flow, token: Secret(token), refreshToken: refresh.map(Secret.init), uniqueID: flow == .mobile ? "u" : nil)
    }

    static func success(_ flow: LoginFlow) -> ExchangeAnswer {
        .answered(flow == .mobile ? "103000" : "0", phoneNumber: number)
    }

    /// An attacker's read: a caller already cancelled (its client gone) when the guard reached the carrier still had
    /// the token sent (the work ran in a task of its own, which no cancellation reached before it left), and the
    /// exchange was recorded `unknown`. Nothing is sent, and nothing billed is listed for reconciliation.
    @Test func aCallerCancelledBeforeTheSendSendsNothing() async throws {
        let provider = provider()
        let exchange = guarded(provider)
        let credential = Self.credential()
        let now = clock.now()
        let answer = await Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await exchange.exchange(credential, receivedAt: now, rules: .builtIn).answer
        }.result
        #expect(provider.flowsExchanged.isEmpty, "\(answer)")
        #expect(try await ledger.unknownExchanges(since: .distantPast, pendingClaimedBefore: .distantFuture).isEmpty)
    }

    // MARK: Token age

    /// The carriers' published lifetimes: China Mobile 2 minutes, China Telecom 10, China Unicom 30.
    @Test(arguments: [
        (LoginFlow.mobile, 120.0, true), (.mobile, 121, true), (.mobile, 86_400, true), (.mobile, 119.999, false), (.mobile, 0, false),
        (.tianyi, 600, true), (.tianyi, 599.5, false), (.unicom, 1800, true), (.unicom, 1799, false),
    ])
    func aTokenOlderThanItsLifetimeIsNotSent(flow: LoginFlow, age: Double, expired: Bool) async throws {
        let provider = provider()
        let exchange = guarded(provider)
        let answer = try await exchange.exchange(Self.credential(flow), receivedAt: clock.now().addingTimeInterval(-age), rules: .builtIn).answer
        if expired {
            #expect(answer == .tokenExpired)
            #expect(provider.flowsExchanged.isEmpty)
            // Nothing was claimed: a fresh report of the same token may still be exchanged.
            #expect(try await exchange.exchange(Self.credential(flow), receivedAt: clock.now(), rules: .builtIn).answer == Self.success(flow))
        } else {
            #expect(answer == Self.success(flow))
        }
        #expect(provider.flowsExchanged == [flow])
    }

    /// A recovery (the retry of a login whose first request exchanged the token and could not store the answer) of a
    /// token too old to send: what the ledger kept for this login is the answer (the 121 s case of
    /// `LoginServerTests.aRetryAfterAnUnstoredExchangeAnswerGetsTheKeptAnswer`); anything else is `token-expired`,
    /// and nothing is ever sent.
    @Test func aRecoveryOfATokenTooOldToSendGetsOnlyWhatTheLedgerKept() async throws {
        let provider = provider()
        let exchange = guarded(provider)
        let old = clock.now().addingTimeInterval(-200)
        func recover(_ token: String, for session: LoginSessionID = OneSession.id) async throws -> ExchangeAnswer {
            try await exchange.exchange(
                Self.credential(.mobile, token), for: session, receivedAt: old, rules: .builtIn, events: DiscardingEventSink(), recovering: true).answer
        }
        let digest = { (token: String) in Self.credential(.mobile, token).tokenDigest }
        // Answered for this login, and for another: the answer, and `replayed`.
        #expect(try await ledger.claim(digest("answered"), at: clock.now()) == nil)
        try await ledger.settle(digest("answered"), .answered(ExchangeResponse(code: "103000", phoneNumber: Self.number)), at: clock.now())
        #expect(try await recover("answered") == Self.success(.mobile))
        #expect(try await recover("answered", for: OneSession.other) == .replayed)
        // Pending (a crashed instance's claim, past the time-out and its grace) or unknown (sent, no answer): too old to
        // resend, `token-expired`. (A claim within them is waited for: ExchangeGuardWaiterTests.)
        #expect(try await ledger.claim(digest("pending"), at: old) == nil)
        #expect(try await recover("pending") == .tokenExpired)
        #expect(try await ledger.claim(digest("unknown"), at: clock.now()) == nil)
        try await ledger.settle(digest("unknown"), .unknown, at: clock.now())
        #expect(try await recover("unknown") == .tokenExpired)
        // No claim kept (the ledger lost it): the claim this makes is settled failed at once, so none is left pending
        // for reconciliation; asked again, the failure is the answer.
        #expect(try await recover("lost") == .tokenExpired)
        #expect(try await ledger.unknownExchanges(since: .distantPast, pendingClaimedBefore: .distantFuture).map(\.token) == [digest("pending"), digest("unknown")])
        guard case .fault = try await recover("lost") else {
            Issue.record("a lost claim recovered twice")
            return
        }
        #expect(provider.flowsExchanged.isEmpty, "nothing is sent")
    }

    @Test func theAgeRunsOnTheInjectedClock() async throws {
        let provider = provider()
        let exchange = guarded(provider)
        let received = clock.now()
        clock.advance(by: .seconds(120))
        #expect(try await exchange.exchange(Self.credential(), receivedAt: received, rules: .builtIn).answer == .tokenExpired)
        #expect(provider.flowsExchanged.isEmpty)
    }

    @Test func aReplacementLifetimeTableIsHonoured() async throws {
        let lifetimes = try TokenLifetimeTable(csv: "flow,gateway,lifetime_seconds,single_use,source\nmobile,cmcc,10,yes,s\ntianyi,tianyi,10,yes,s\nunicom,unicom,10,yes,s\n", file: "t.csv")
        let provider = provider()
        let exchange = guarded(provider)
        let rules = ExchangeRules(lifetimes: lifetimes)
        #expect(try await exchange.exchange(Self.credential(.unicom), receivedAt: clock.now().addingTimeInterval(-10), rules: rules).answer == .tokenExpired)
        #expect(try await exchange.exchange(Self.credential(.unicom), receivedAt: clock.now().addingTimeInterval(-9), rules: rules).answer == Self.success(.unicom))
    }

    /// The codes come with the rules too: a table that reads China Mobile's `103000` as "token already
    /// used" makes a resend after an unanswered exchange stay unknown, where the built-in table learns
    /// the success (``aResendAfterAnUnknownExchangeCanLearnTheResult()``).
    @Test func aReplacementCodeTableIsHonoured() async throws {
        let builtIn = try String(contentsOfFile: Package.path("Data/exchange-codes.csv"), encoding: .utf8)
        let replaced = builtIn.replacingOccurrences(of: "\nmobile,cmcc,103000,success,no,", with: "\nmobile,cmcc,103000,retry,no,")
        #expect(replaced != builtIn)
        let rules = ExchangeRules(codes: try ExchangeCodeTable(csv: replaced, file: "exchange-codes.csv"))
        let provider = provider([.hang])
        let exchange = guarded(provider)
        #expect(try await timedOut(exchange) == .timeout)
        #expect(try await exchange.exchange(Self.credential(), receivedAt: clock.now(), rules: rules).answer == .timeout)
        #expect(try await ledger.unknownExchanges(since: .distantPast).map(\.token) == [Self.abc])
        #expect(provider.tokensSent == ["abc": 2])
    }

    // MARK: Once per token

    /// Another login's report of a token is a replay; the same login's retry gets the kept answer (issue 21).
    @Test func theSameTokenTwiceIsReplayed() async throws {
        let provider = provider()
        let exchange = guarded(provider)
        #expect(try await exchange.exchange(Self.credential(.mobile, "T-1"), receivedAt: clock.now(), rules: .builtIn).answer == Self.success(.mobile))
        #expect(try await exchange.exchange(Self.credential(.mobile, "T-1"), for: OneSession.other, receivedAt: clock.now(), rules: .builtIn,
                                        events: DiscardingEventSink()).answer == .replayed)
        #expect(try await exchange.exchange(Self.credential(.mobile, "T-1"), receivedAt: clock.now(), rules: .builtIn).answer == Self.success(.mobile))
        #expect(try await exchange.exchange(Self.credential(.mobile, "T-2"), receivedAt: clock.now(), rules: .builtIn).answer == Self.success(.mobile))
        #expect(provider.tokensSent == ["T-1": 1, "T-2": 1])
    }

    /// Two server instances sharing a ledger: a token is sent once, whichever instance gets it.
    @Test func aSharedLedgerRefusesAcrossInstances() async throws {
        let provider = provider()
        let first = guarded(provider)
        let second = guarded(provider)
        let answers = try await withThrowingTaskGroup(of: ExchangeAnswer.self) { group in
            for index in 0..<50 {
                let exchange = index.isMultiple(of: 2) ? first : second
                let session = OneSession.numbered(index)
                group.addTask {
                    try await exchange.exchange(Self.credential(.tianyi, "shared"), for: session, receivedAt: self.clock.now(), rules: .builtIn,
                                            events: DiscardingEventSink()).answer
                }
            }
            var answers: [ExchangeAnswer] = []
            for try await answer in group { answers.append(answer) }
            return answers
        }
        #expect(answers.filter { $0 == Self.success(.tianyi) }.count == 1)
        #expect(answers.filter { $0 == .replayed }.count == 49)
        #expect(provider.tokensSent == ["shared": 1])
    }

    /// A request the adapter says never left (``ExchangeNotSentError``) is `failed`: not sent again.
    @Test func aTokenWhoseExchangeWasNotSentIsNotSentAgain() async throws {
        let provider = provider([.error(ExchangeNotSentError("connection refused"))])
        let exchange = guarded(provider)
        #expect(try await exchange.exchange(Self.credential(), receivedAt: clock.now(), rules: .builtIn).answer == .fault("not sent: connection refused"))
        #expect(try await exchange.exchange(Self.credential(), for: OneSession.other, receivedAt: clock.now(), rules: .builtIn, events: DiscardingEventSink())
            .answer == .replayed)
        #expect(try await exchange.exchange(Self.credential(), receivedAt: clock.now(), rules: .builtIn).answer
            == .fault("an earlier exchange of this token failed; it is not sent again"))
        #expect(provider.tokensSent == ["abc": 1])
    }

    /// A gateway's own time-out (`GatewayError` of kind `timedOut`, which a gateway configured with a limit shorter
    /// than the guard's throws first) is a time-out, as the guard's is: the answer `timeout` (the login moves on to SMS,
    /// and the circuit breaker hears the carrier unanswered) and the token kept `unknown` for reconciliation. An
    /// attacker's read of the gateways: it was a fault, which the login read as the carrier's refusal of this one client.
    @Test func aGatewaysOwnTimeOutIsATimeOut() async throws {
        let provider = provider([.error(GatewayError(gateway: "cmcc", .timedOut))])
        let exchange = guarded(provider)
        #expect(try await exchange.exchange(Self.credential(), receivedAt: clock.now(), rules: .builtIn).answer == .timeout)
        #expect(try await ledger.unknownExchanges(since: .distantPast).map(\.token) == [Self.abc])
        #expect(provider.tokensSent == ["abc": 1])
    }

    @Test func anAnsweredErrorIsReplayedToo() async throws {
        let provider = provider([.value(ExchangeResponse(code: "103101"))])
        let exchange = guarded(provider)
        #expect(try await exchange.exchange(Self.credential(), receivedAt: clock.now(), rules: .builtIn).answer == .answered("103101"))
        #expect(try await exchange.exchange(Self.credential(), for: OneSession.other, receivedAt: clock.now(), rules: .builtIn, events: DiscardingEventSink())
            .answer == .replayed)
        #expect(try await exchange.exchange(Self.credential(), receivedAt: clock.now(), rules: .builtIn).answer == .answered("103101"))
        #expect(provider.tokensSent == ["abc": 1])
    }

    // MARK: No answer

    /// Runs an exchange whose carrier call hangs, and lets the guard's limit pass on the fake clock.
    func timedOut(_ exchange: ExchangeGuard, _ credential: CarrierCredential = credential()) async throws -> ExchangeAnswer {
        let task = Task { try await exchange.exchange(credential, receivedAt: clock.now(), rules: .builtIn).answer }
        await clock.waitForSleepers(1)
        clock.advance(by: exchange.timeout - .milliseconds(1))
        #expect(clock.sleeperCount == 1, "the guard gave up before its limit")
        clock.advance(by: .milliseconds(1))
        return try await task.value
    }

    @Test func aHungCarrierTimesOutAndIsKeptAsUnknown() async throws {
        let provider = provider([.hang])
        let exchange = guarded(provider, timeout: .seconds(5))
        let start = clock.now()
        #expect(try await timedOut(exchange) == .timeout)
        let unknown = try await ledger.unknownExchanges(since: .distantPast)
        #expect(unknown.map(\.token) == [Self.abc])
        #expect(unknown.first?.at == start.addingTimeInterval(5))
        #expect(try await ledger.unknownExchanges(since: start.addingTimeInterval(6)).isEmpty)
        #expect(provider.tokensSent == ["abc": 1])
    }

    /// A resend of a token whose first exchange went unanswered, answered "already used": the first
    /// exchange may have spent it, so the result is still unknown, not the user's fault.
    @Test(arguments: ["104201", "103505"] as [ResultCode])
    func alreadyUsedAfterAnUnknownExchangeIsStillUnknown(code: ResultCode) async throws {
        let provider = provider([.hang, .value(ExchangeResponse(code: code))])
        let exchange = guarded(provider)
        #expect(try await timedOut(exchange) == .timeout)
        #expect(try await exchange.exchange(Self.credential(), receivedAt: clock.now(), rules: .builtIn).answer == .timeout)
        #expect(try await ledger.unknownExchanges(since: .distantPast).map(\.token) == [Self.abc])
        #expect(provider.tokensSent == ["abc": 2])
    }

    @Test func aResendAfterAnUnknownExchangeCanLearnTheResult() async throws {
        let provider = provider([.hang])
        let exchange = guarded(provider)
        #expect(try await timedOut(exchange) == .timeout)
        #expect(try await exchange.exchange(Self.credential(), receivedAt: clock.now(), rules: .builtIn).answer == Self.success(.mobile))
        #expect(try await ledger.unknownExchanges(since: .distantPast).isEmpty)
        #expect(try await exchange.exchange(Self.credential(), for: OneSession.other, receivedAt: clock.now(), rules: .builtIn, events: DiscardingEventSink())
            .answer == .replayed)
        #expect(try await exchange.exchange(Self.credential(), receivedAt: clock.now(), rules: .builtIn).answer == Self.success(.mobile), "the kept answer")
        #expect(provider.tokensSent == ["abc": 2])
    }

    @Test func aResendAfterAnUnknownExchangeThatFailsStaysUnknown() async throws {
        let provider = provider([.hang, .error(CarrierError("reset"))])
        let exchange = guarded(provider)
        #expect(try await timedOut(exchange) == .timeout)
        #expect(try await exchange.exchange(Self.credential(), receivedAt: clock.now(), rules: .builtIn).answer == .fault("reset"))
        #expect(try await ledger.unknownExchanges(since: .distantPast).map(\.token) == [Self.abc])
    }

    @Test func aSlowAnswerWithinTheLimitIsTaken() async throws {
        let provider = provider([.delay(.seconds(4), ExchangeResponse(code: "103000", phoneNumber: Self.number))])
        let exchange = guarded(provider, timeout: .seconds(5))
        let task = Task { try await exchange.exchange(Self.credential(), receivedAt: clock.now(), rules: .builtIn).answer }
        await clock.waitForSleepers(2)   // the guard's limit and the carrier's delay
        clock.advance(by: .seconds(4))
        #expect(try await task.value == Self.success(.mobile))
    }

    // MARK: Failures

    /// A ledger that fails on the claim: the token is not sent, and the guard answers nothing (the
    /// ledger's `StoreError` propagates; the ledger sees digests only, so its error holds no token).
    /// Before: the answer `fault`, which moved the login to SMS and told the breaker a carrier failure.
    @Test func aFailingLedgerSendsNothingAndAnswersNothing() async throws {
        let provider = provider()
        let faulty = FaultyExchangeLedger(ledger)
        faulty.faults.inject(.refuse(.io, "ledger write failed"), into: [.claim], times: nil)
        let exchange = guarded(provider, ledger: faulty)
        await #expect {
            _ = try await exchange.exchange(Self.credential(), receivedAt: clock.now(), rules: .builtIn)
        } throws: { ($0 as? StoreError)?.kind == .io }
        #expect(provider.flowsExchanged.isEmpty)
    }

    /// Issue 21: a settle that fails is said (an event naming the digest's first 8 digits, never the
    /// token), not swallowed; the row stays pending, which refuses a resend, and a retry of the same login
    /// waits no longer than the guard's time-out.
    @Test func aLedgerThatCannotSettleKeepsTheAnswerTellsAndRefusesAResend() async throws {
        let provider = provider()
        let faulty = FaultyExchangeLedger(ledger)
        faulty.faults.inject(.refuse(.io, "settle failed"), into: [.settle], times: nil)
        let exchange = guarded(provider, ledger: faulty)
        let events = RecordingEventSink()
        let token = "T-secret-settle-1"
        let first = try await exchange.exchange(Self.credential(.mobile, token), for: OneSession.id, receivedAt: clock.now(), rules: .builtIn, events: events)
        #expect(first.answer == Self.success(.mobile))
        #expect(events.names == ["settle-failed"])
        let line = try #require(events.recorded.first).json()
        // SHA-256("T-secret-settle-1") begins 8fb2dc98 (Python's hashlib).
        #expect(line.contains(#""area":"exchange","event":"settle-failed","token":"8fb2dc98","state":"answered","reason":"io: settle failed""#), "\(line)")
        #expect(!line.contains(token) && !line.contains("13800138000"), "\(line)")
        #expect(try await exchange.exchange(Self.credential(.mobile, token), for: OneSession.other, receivedAt: clock.now(), rules: .builtIn, events: events).answer == .replayed)
        clock.advance(by: exchange.timeout + exchange.settleGrace)
        // Past the wait's bound the retry makes no answer up: it throws a retryable `timeout`.
        await #expect {
            _ = try await exchange.exchange(Self.credential(.mobile, token), receivedAt: clock.now(), rules: .builtIn)
        } throws: { ($0 as? StoreError)?.kind == .timeout }
        #expect(provider.tokensSent == [token: 1])
        // Reconciliation lists the row once it is older than the time-out.
        let listed = try await ledger.unknownExchanges(since: .distantFuture, pendingClaimedBefore: clock.now().addingTimeInterval(-exchange.timeout.seconds))
        #expect(listed.map(\.state) == [.pending] && listed.first?.session == OneSession.id)
    }

    @Test func theCarriersErrorTextIsScrubbedOfTheTokens() async throws {
        let token = "T-secret-7f3a"
        let refresh = "R-secret-91bc"
        let provider = provider([.error(CarrierError("HTTP 500 for token=\(token)&refresh=\(refresh): \(String(repeating: "x", count: 400)) \(token)"))])
        let exchange = guarded(provider)
        let answer = try await exchange.exchange(Self.credential(.tianyi, token, refresh: refresh), receivedAt: clock.now(), rules: .builtIn).answer
        guard case .fault(let message) = answer else {
            Issue.record("expected a fault, got \(answer)")
            return
        }
        #expect(!message.contains(token) && !message.contains(refresh), "a token leaked: \(message)")
        #expect(message.hasPrefix("HTTP 500 for token=<redacted>&refresh=<redacted>: xxx"))
        #expect(message.count <= 200)
    }
}

/// A carrier call that failed with a message.
struct CarrierError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
