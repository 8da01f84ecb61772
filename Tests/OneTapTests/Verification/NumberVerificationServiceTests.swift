import Foundation
import OneTapTesting
import Testing
@testable import OneTap

/// The guarded number verification, on a fake clock with a scripted provider and the in-memory ledger (issue 22
/// item 4): a token used once, its lifetime checked, answers pass / reject / unknown with whether they were billed.
@Suite struct NumberVerificationServiceTests {
    let clock = FakeClock()
    let ledger = InMemoryExchangeLedger()
    let events = RecordingEventSink()
    static let number = try! PhoneNumber("13800138000")

    func service(_ provider: any NumberVerificationProvider, ledger: (any ExchangeLedger)? = nil, timeout: Duration = .seconds(5),
                 billing: VerificationBillingTable = .builtIn) -> NumberVerificationService {
        NumberVerificationService(provider: provider, ledger: ledger ?? self.ledger, timeout: timeout, clock: clock, events: events, lifetimes: .builtIn, billing: billing)
    }

    static func credential(_ token: String = "abc", _ flow: LoginFlow = .mobile) -> CarrierCredential {
        CarrierCredential(flow: flow, token: Secret(token))
    }

    /// What the ledger holds for a verification token, by its key.
    func row(_ token: String) async throws -> ExchangeLedgerEntry? {
        try await ledger.claim(NumberVerificationService.key(of: Secret(token)), for: LoginSessionID("AAAAAAAAAAAAAAAAAAAAAA"), at: clock.now())
    }

    // MARK: Verdicts

    @Test func aPassAndARejectAreBilledAndKeptWithTheirCode() async throws {
        let provider = ScriptedNumberVerifier([.answer(.init(code: "000", verdict: .pass)), .answer(.init(code: "001", verdict: .reject))])
        let service = service(provider)
        let pass = try await service.verify(Self.credential("T-1"), number: Self.number)
        #expect(pass == NumberVerification(code: "000", verdict: .pass, billed: true, reason: .answered))
        #expect(pass.description == "pass 000 (billed)")
        let reject = try await service.verify(Self.credential("T-2"), number: Self.number)
        #expect(reject == NumberVerification(code: "001", verdict: .reject, billed: true, reason: .answered))
        #expect(provider.tokensSent == ["T-1": 1, "T-2": 1])
        #expect(try await row("T-1")?.state == .answered(ExchangeResponse(code: "000", verdict: .pass)))
        #expect(try await row("T-2")?.state == .answered(ExchangeResponse(code: "001", verdict: .reject)))
    }

    /// A ledger whose claim sees its caller cancelled meanwhile (the client went away while the claim was stored).
    struct CancelledWhileClaiming: ExchangeLedger {
        let base: InMemoryExchangeLedger
        func claim(_ token: SHA256Digest, for session: LoginSessionID, at now: Date) async throws -> Optional<ExchangeLedgerEntry> {
            let held = try await base.claim(token, for: session, at: now)
            withUnsafeCurrentTask { $0?.cancel() }
            return held
        }
        func resend(_ token: SHA256Digest, for session: LoginSessionID, at now: Date) async throws -> Bool { try await base.resend(token, for: session, at: now) }
        func settle(_ token: SHA256Digest, _ state: ExchangeLedgerState, at now: Date) async throws { try await base.settle(token, state, at: now) }
        func unknownExchanges(since: Date, pendingClaimedBefore: Date, after: ExchangeLedgerEntry?, limit: Int) async throws -> [ExchangeLedgerEntry] {
            try await base.unknownExchanges(since: since, pendingClaimedBefore: pendingClaimedBefore, after: after, limit: limit)
        }
    }

    /// The review: a caller cancelled after the claim and before the send (its client gone) sent nothing (the time
    /// limit's work starts no call for a cancelled caller), yet the verification was recorded `unknown`: listed for
    /// reconciliation as maybe billed, and an honest retry told the token was replayed. Now `failed`, not billed.
    @Test func aCallerCancelledBeforeTheSendSendsNothingAndIsNotBilled() async throws {
        let provider = ScriptedNumberVerifier([.answer(.init(code: "000", verdict: .pass))])
        let service = service(provider, ledger: CancelledWhileClaiming(base: ledger))
        let outcome = await Task { try await service.verify(Self.credential("T-gone"), number: Self.number) }.result
        #expect(throws: CancellationError.self) { try outcome.get() }
        #expect(provider.tokensSent.isEmpty)
        #expect(try await ledger.unknownExchanges(since: .distantPast, pendingClaimedBefore: .distantFuture).isEmpty)
        #expect(try await row("T-gone")?.state == .failed)
    }

    /// An answer the gateway calls unknown (a sign error, a spent token) is not billed: vendors bill pass and reject.
    @Test func anUnknownAnswerIsNotBilled() async throws {
        let provider = ScriptedNumberVerifier([.answer(.init(code: "302", verdict: .unknown))])
        let answer = try await service(provider).verify(Self.credential(), number: Self.number)
        #expect(answer == NumberVerification(code: "302", verdict: .unknown, billed: false, reason: .answered))
    }

    /// Billing is data: a gateway's own rows decide for it, other providers take the `*` rows.
    @Test func billingComesFromTheTableByGatewayName() async throws {
        let table = try VerificationBillingTable(csv: """
            gateway,verdict,billed,source
            *,pass,yes,s
            *,reject,yes,s
            *,unknown,no,s
            test-gateway,reject,no,s
            test-gateway,unknown,yes,s
            """, file: "b.csv")
        let named = NamedScriptedVerifier([.answer(.init(code: "R", verdict: .reject)), .answer(.init(code: "U", verdict: .unknown)), .answer(.init(code: "P", verdict: .pass))])
        let service = service(named, billing: table)
        #expect(service.gateway == "test-gateway")
        #expect(try await service.verify(Self.credential("a"), number: Self.number).billed == false)
        #expect(try await service.verify(Self.credential("b"), number: Self.number).billed == true)
        #expect(try await service.verify(Self.credential("c"), number: Self.number).billed == true)
        let unnamed = self.service(ScriptedNumberVerifier([.answer(.init(code: "R", verdict: .reject))]), billing: table)
        #expect(unnamed.gateway == "*")
        #expect(try await unnamed.verify(Self.credential("d"), number: Self.number).billed == true)
    }

    // MARK: Once per token, within its lifetime

    /// A token used again with another number (the same number gets its recorded answer: NumberVerificationRetryTests).
    @Test func aTokenUsedTwiceNeverReachesTheProviderTheSecondTime() async throws {
        let provider = ScriptedNumberVerifier()
        let service = service(provider)
        let another = try PhoneNumber("13900139000")
        #expect(try await service.verify(Self.credential(), number: Self.number).verdict == .pass)
        let second = try await service.verify(Self.credential(), number: another)
        #expect(second == NumberVerification(code: nil, verdict: .unknown, billed: false, reason: .tokenReplayed))
        #expect(provider.tokensSent == ["abc": 1])
        // Another instance sharing the ledger refuses it too.
        let other = NumberVerificationService(provider: provider, ledger: ledger, quota: nil, clock: clock, events: events)
        #expect(try await other.verify(Self.credential(), number: another).reason == .tokenReplayed)
        #expect(provider.tokensSent == ["abc": 1])
    }

    /// An attacker's read: a verification made with no caller gave its recorded answer back to anyone holding the
    /// captured token, with no caller either: `replayed-answer` for the right number beside `token-replayed` for a wrong
    /// one told which number the token verified, and its verdict. With no caller, no answer goes back.
    @Test func aVerificationWithNoCallerGivesNoAnswerBack() async throws {
        let service = service(ScriptedNumberVerifier())
        #expect(try await service.verify(Self.credential(), number: Self.number).verdict == .pass)
        let wrong = try await service.verify(Self.credential(), number: try PhoneNumber("13900139000"))
        let right = try await service.verify(Self.credential(), number: Self.number)
        #expect(wrong == NumberVerification(code: nil, verdict: .unknown, billed: false, reason: .tokenReplayed))
        #expect(right == wrong)
    }

    /// A recorded answer is given back only to the caller that made the verification, and only within the token's
    /// lifetime from its claim (an attacker's read: anyone who saw one token and number got `pass` again, under any
    /// caller, for the ledger's whole day, so a two-minute, one-time token was a day-long proof).
    @Test func aRecordedAnswerGoesBackOnlyToItsCallerWithinTheTokensLifetime() async throws {
        let provider = ScriptedNumberVerifier()
        let service = service(provider)
        #expect(try await service.verify(Self.credential(), number: Self.number, caller: "victim").verdict == .pass)
        // The same caller again within the token's two minutes (an honest retry): the recorded answer, unbilled.
        clock.advance(by: .seconds(30))
        let retry = try await service.verify(Self.credential(), number: Self.number, receivedAt: clock.now(), caller: "victim")
        #expect(retry == NumberVerification(code: "000", verdict: .pass, billed: false, reason: .replayedAnswer))
        // Another caller with the same token and number: no answer of someone else's.
        let stranger = try await service.verify(Self.credential(), number: Self.number, receivedAt: clock.now(), caller: "attacker")
        #expect(stranger == NumberVerification(code: nil, verdict: .unknown, billed: false, reason: .tokenReplayed))
        // Past the token's lifetime from its claim, even its own caller gets nothing back.
        clock.advance(by: .seconds(3600))
        let late = try await service.verify(Self.credential(), number: Self.number, receivedAt: clock.now(), caller: "victim")
        #expect(late == NumberVerification(code: nil, verdict: .unknown, billed: false, reason: .tokenExpired))
        #expect(provider.tokensSent == ["abc": 1])
    }

    /// The flow is the request's label, which a caller sets at will: a recorded answer went back to its caller as long
    /// as the label's lifetime allowed (none for `sms`: the ledger's whole day; 30 minutes for `unicom`), so a `pass`
    /// got with the SIM present passed again without it (an attacker's read). A replay lasts the gateway's shortest
    /// token lifetime whatever the label (2 minutes here), and a verification of no one-tap flow is not sent.
    @Test func aRecordedAnswerLastsNoLongerThanTheShortestTokenWhateverTheLabel() async throws {
        let provider = ScriptedNumberVerifier()
        let service = service(provider)
        #expect(try await service.verify(Self.credential("T", .mobile), number: Self.number, caller: "A").verdict == .pass)
        clock.advance(by: .seconds(180))
        for flow in [LoginFlow.sms, .unicom, .tianyi, .mobile] {
            let again = try await service.verify(Self.credential("T", flow), number: Self.number, receivedAt: clock.now(), caller: "A")
            #expect(again.verdict == .unknown && again.reason != .replayedAnswer, "\(flow): \(again)")
        }
        let sms = try await service.verify(Self.credential("U", .sms), number: Self.number, caller: "A")
        #expect(sms.reason == .notSent && sms.billed == false)
        #expect(provider.tokensSent == ["T": 1])
    }

    /// China Mobile's token lives 2 minutes, Telecom's 10, Unicom's 30 (`Data/token-lifetimes.csv`, written out here).
    @Test(arguments: [(LoginFlow.mobile, 120.0, true), (.mobile, 119.999, false), (.tianyi, 600, true), (.tianyi, 599, false), (.unicom, 1800, true), (.unicom, 1799, false)])
    func anExpiredTokenIsNeverSent(flow: LoginFlow, age: Double, expired: Bool) async throws {
        let provider = ScriptedNumberVerifier()
        let answer = try await service(provider).verify(Self.credential("T", flow), number: Self.number, receivedAt: clock.now().addingTimeInterval(-age))
        if expired {
            #expect(answer == NumberVerification(code: nil, verdict: .unknown, billed: false, reason: .tokenExpired))
            #expect(provider.tokensSent.isEmpty)
            #expect(try await row("T") == nil)  // nothing claimed
        } else {
            #expect(answer.verdict == .pass)
            #expect(provider.tokensSent == ["T": 1])
        }
    }

    @Test func theAgeRunsOnTheInjectedClockFromReceipt() async throws {
        let provider = ScriptedNumberVerifier()
        let received = clock.now()
        clock.advance(by: .seconds(120))
        #expect(try await service(provider).verify(Self.credential(), number: Self.number, receivedAt: received).reason == .tokenExpired)
        #expect(provider.tokensSent.isEmpty)
    }

    @Test func twoConcurrentVerifiesOfOneTokenMakeOneProviderCall() async throws {
        let provider = ScriptedNumberVerifier([.held])
        let service = service(provider)
        let first = Task { try await service.verify(Self.credential(), number: Self.number) }
        // The first holds the claim while the provider has the token; the second finds it claimed.
        await provider.waitUntilHeld()
        let second = try await service.verify(Self.credential(), number: Self.number)
        provider.release()
        #expect(try await first.value.verdict == .pass)
        #expect(second.reason == .tokenReplayed)
        #expect(provider.tokensSent == ["abc": 1])
    }

    @Test func manyConcurrentVerifiesOfOneTokenMakeOneProviderCall() async throws {
        let provider = ScriptedNumberVerifier()
        let service = service(provider)
        let answers = try await withThrowingTaskGroup(of: NumberVerification.self) { group in
            for _ in 0..<20 { group.addTask { try await service.verify(Self.credential("shared"), number: Self.number, caller: "end-user") } }
            return try await group.reduce(into: [NumberVerification]()) { $0.append($1) }
        }
        // One is sent and billed; each of the others found the claim under way (unknown) or its answer recorded (the
        // same token, number and caller: the answer again, unbilled).
        #expect(answers.filter { $0 == NumberVerification(code: "000", verdict: .pass, billed: true, reason: .answered) }.count == 1)
        let others = answers.filter { $0.reason != .answered }
        #expect(others.count == 19)
        #expect(others.allSatisfy {
            $0 == NumberVerification(code: nil, verdict: .unknown, billed: false, reason: .tokenReplayed)
                || $0 == NumberVerification(code: "000", verdict: .pass, billed: false, reason: .replayedAnswer)
        })
        #expect(provider.tokensSent == ["shared": 1])
    }

    /// The verification key is not the exchange's: an exchanged token's claim cannot block its verification, nor the
    /// reverse. Key pinned with Python: hashlib.sha256(b'\xff' + b'verify:' + b'abc').hexdigest().
    @Test func aVerificationKeyNeverMeetsAnExchangeClaim() async throws {
        #expect(NumberVerificationService.key(of: Secret("abc")).hex == "97ea5d85263313b3b50669321ce5db64159698312691b05dd629b8cc937101bb")
        #expect(NumberVerificationService.key(of: Secret("abc")) != CarrierCredential.digest(of: Secret("abc")))
        let exchange = ExchangeGuard(provider: MockTokenExchange(number: Self.number, clock: clock), ledger: ledger, clock: clock)
        #expect(try await exchange.exchange(Self.credential(), for: LoginSessionID("BBBBBBBBBBBBBBBBBBBBBB"), receivedAt: clock.now(), rules: .builtIn,
                                            events: events).answer == .answered("103000", phoneNumber: Self.number))
        let provider = ScriptedNumberVerifier()
        #expect(try await service(provider).verify(Self.credential(), number: Self.number).verdict == .pass)
        #expect(provider.tokensSent == ["abc": 1])
    }

    // MARK: The provider's failures

    @Test func aRequestThatNeverLeftIsNotBilledAndNotSentAgain() async throws {
        let provider = ScriptedNumberVerifier([.error(ExchangeNotSentError("connection refused for abc"))])
        let service = service(provider)
        let answer = try await service.verify(Self.credential(), number: Self.number)
        #expect(answer == NumberVerification(code: nil, verdict: .unknown, billed: false, reason: .notSent, detail: "connection refused for <redacted>"))
        #expect(try await row("abc")?.state == .failed)
        #expect(try await service.verify(Self.credential(), number: Self.number).reason == .tokenReplayed)
        #expect(provider.tokensSent == ["abc": 1])
    }

    struct Reset: Error, CustomStringConvertible {
        var description: String { "connection reset after sending abc for 13800138000" }
    }

    @Test func anyOtherErrorIsUnknownMayBeBilledAndListedForReconciliation() async throws {
        let provider = ScriptedNumberVerifier([.error(Reset())])
        let answer = try await service(provider).verify(Self.credential(), number: Self.number)
        #expect(answer.verdict == .unknown)
        #expect(answer.billed == nil)
        #expect(answer.reason == .fault)
        #expect(answer.detail == "connection reset after sending <redacted> for 138****8000")
        #expect(answer.description == "unknown (fault: connection reset after sending <redacted> for 138****8000, may be billed)")
        #expect(try await ledger.unknownExchanges(since: .distantPast, pendingClaimedBefore: .distantPast).map(\.token) == [NumberVerificationService.key(of: Secret("abc"))])
    }

    /// A number in a provider's error text is masked before the text is cut to its 200 scalars, so a number the cut
    /// falls in is never left whole or in part (an attacker's read: the text was cut first, and `13800138` stayed).
    @Test func aNumberWhereTheDetailIsCutIsMaskedFirst() async throws {
        struct Echo: Error, CustomStringConvertible { var description: String { String(repeating: "x", count: 192) + " 13800138000 echoed" } }
        let answer = try await service(ScriptedNumberVerifier([.error(Echo())])).verify(Self.credential(), number: Self.number)
        #expect(answer.detail == String(repeating: "x", count: 192) + " 138****")
    }

    /// A gateway's own time-out (`GatewayError` of kind `timedOut`) is the service's: unknown, may be billed, the reason
    /// `timeout` (it was a fault).
    @Test func aGatewaysOwnTimeOutIsUnknownMayBeBilled() async throws {
        let provider = ScriptedNumberVerifier([.error(GatewayError(gateway: "cmcc", .timedOut))])
        let answer = try await service(provider).verify(Self.credential(), number: Self.number)
        #expect(answer == NumberVerification(code: nil, verdict: .unknown, billed: nil, reason: .timedOut))
        #expect(try await row("abc")?.state == .unknown)
    }

    @Test func aProviderPastTheTimeOutIsUnknownMayBeBilled() async throws {
        let provider = ScriptedNumberVerifier([.hang])
        let service = service(provider, timeout: .seconds(5))
        let task = Task { try await service.verify(Self.credential(), number: Self.number) }
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(4999))
        #expect(clock.sleeperCount == 1, "the service gave up before its limit")
        clock.advance(by: .milliseconds(1))
        #expect(try await task.value == NumberVerification(code: nil, verdict: .unknown, billed: nil, reason: .timedOut))
        #expect(try await row("abc")?.state == .unknown)
        #expect(provider.tokensSent == ["abc": 1])
    }

    @Test func aCancelledCallerGetsCancellationAndTheTokenIsKeptUnknown() async throws {
        let provider = ScriptedNumberVerifier([.hang])
        let service = service(provider)
        let task = Task { try await service.verify(Self.credential(), number: Self.number) }
        await clock.waitForSleepers(1)  // the time-out's timer: the provider has the token
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(try await row("abc")?.state == .unknown)
        #expect(events.recorded.last?.json().contains("\"reason\":\"cancelled\"") == true)
    }

    @Test func aCallerCancelledBeforehandSendsAndClaimsNothing() async throws {
        let provider = ScriptedNumberVerifier()
        let service = service(provider)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await service.verify(Self.credential(), number: Self.number)
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(provider.tokensSent.isEmpty)
        #expect(try await row("abc") == nil)
    }

    // MARK: The ledger's failures

    @Test func aLedgerThatCannotClaimThrowsAndSendsNothing() async throws {
        let provider = ScriptedNumberVerifier()
        let faulty = FaultyExchangeLedger(ledger)
        faulty.faults.inject(.refuse(.io, "ledger down"), into: [.claim], times: nil)
        await #expect {
            _ = try await service(provider, ledger: faulty).verify(Self.credential(), number: Self.number)
        } throws: { ($0 as? StoreError)?.kind == .io }
        #expect(provider.tokensSent.isEmpty)
    }

    /// An attacker's read of the verification: a claim whose write went in but whose answer was lost (a connection
    /// dropped after the commit) threw, and left the token pending with nothing sent: the caller's retry was
    /// `token-replayed`, and reconciliation listed a call that never left. The claim is read back now, as the login's
    /// exchange reads its own: the very claim found, the token is sent.
    @Test func aClaimWhoseAnswerWasLostIsReadBackAndTheTokenSent() async throws {
        let provider = ScriptedNumberVerifier()
        let faulty = FaultyExchangeLedger(ledger)
        faulty.faults.inject(.land(.io, "answer lost"), into: [.claim], times: 1)
        let answer = try await service(provider, ledger: faulty).verify(Self.credential(), number: Self.number)
        #expect(answer.verdict == .pass && answer.billed == true && answer.reason == .answered, "\(answer)")
        #expect(provider.tokensSent.count == 1)
        #expect(try await row("abc")?.state == .answered(ExchangeResponse(code: "000", verdict: .pass)))
    }

    @Test func aLedgerThatCannotSettleKeepsTheAnswerAndTells() async throws {
        let faulty = FaultyExchangeLedger(ledger)
        faulty.faults.inject(.refuse(.io, "settle failed"), into: [.settle], times: nil)
        let answer = try await service(ScriptedNumberVerifier(), ledger: faulty).verify(Self.credential(), number: Self.number)
        #expect(answer.verdict == .pass)
        #expect(events.names == ["quota-missing", "settle-failed", "verified"])
        #expect(try await row("abc")?.state == .pending)
    }

    /// A service made without a quota says so once, when it is made, naming the gateway: nothing then bounds
    /// how many paid calls one caller makes. One made with a quota says nothing.
    @Test func aServiceWithoutAQuotaSaysSoOnce() async throws {
        _ = service(NamedScriptedVerifier([]))
        #expect(events.names == ["quota-missing"])
        let event = try #require(events.recorded.first)
        #expect(event.json().hasSuffix(#""area":"verify","event":"quota-missing","gateway":"test-gateway"}"#), "\(event.json())")
        #expect("\(event)".contains("NumberVerificationQuota"))
        let quiet = RecordingEventSink()
        _ = NumberVerificationService(
            provider: ScriptedNumberVerifier(), quota: try NumberVerificationQuota(limit: 20, per: .seconds(3600)), clock: clock, events: quiet)
        #expect(quiet.names.isEmpty)
    }

    // MARK: Events

    /// One `verified` event per call in area `verify`, with the key's first 8 digits: never the token, never the number.
    @Test func eachVerificationIsAnEventWithoutTokenOrNumber() async throws {
        let token = "T-secret-verify-1"
        let service = service(ScriptedNumberVerifier([.answer(.init(code: "001", verdict: .reject))]))
        _ = try await service.verify(Self.credential(token), number: Self.number, caller: "end-user")
        _ = try await service.verify(Self.credential(token), number: Self.number, caller: "end-user")
        #expect(events.names == ["quota-missing", "verified", "verified"])  // made without a quota
        let lines = events.recorded.filter { $0.name == "verified" }.map { $0.json() }
        let prefix = String(NumberVerificationService.key(of: Secret(token)).hex.prefix(8))
        #expect(lines.count == 2)
        #expect(lines[0].hasSuffix(#""area":"verify","event":"verified","token":"\#(prefix)","flow":"mobile","gateway":"*","code":"001","verdict":"reject","billed":"yes","reason":"answered"}"#))
        #expect(lines[1].hasSuffix(#""event":"verified","token":"\#(prefix)","flow":"mobile","gateway":"*","code":"001","verdict":"reject","billed":"no","reason":"replayed-answer"}"#))
        for line in lines + events.recorded.map(\.description) {
            #expect(!line.contains(token))
            #expect(!line.contains("13800138000"))
            #expect(!line.contains("end-user"), "the caller is no event's")
        }
    }
}
