import Foundation
import OneTapTesting
import Testing
@testable import OneTap

/// An honest retry of a number verification whose answer was lost on its way to the app (issue 22 item 4): the same
/// token with the same number gets the verdict the gateway gave, from the ledger, neither sent nor billed again; the
/// same token with another number is still refused unsent, so a captured token never becomes an oracle for numbers.
@Suite struct NumberVerificationRetryTests {
    let clock = FakeClock()
    let ledger = InMemoryExchangeLedger()
    let events = RecordingEventSink()
    static let number = try! PhoneNumber("13800138000")
    static let another = try! PhoneNumber("13900139000")

    func service(_ provider: any NumberVerificationProvider, ledger: (any ExchangeLedger)? = nil, timeout: Duration = .seconds(5)) -> NumberVerificationService {
        NumberVerificationService(provider: provider, ledger: ledger ?? self.ledger, timeout: timeout, clock: clock, events: events, lifetimes: .builtIn, billing: .builtIn)
    }

    static func credential(_ token: String = "abc") -> CarrierCredential {
        CarrierCredential(flow: .mobile, token: Secret(token))
    }

    /// The last event's JSON.
    var lastEvent: String { events.recorded.last?.json() ?? "" }

    // MARK: The same token and number: the recorded verdict

    @Test(arguments: [NumberVerificationResponse(code: "000", verdict: .pass), NumberVerificationResponse(code: "001", verdict: .reject)])
    func aRetryWithTheSameNumberGetsTheRecordedVerdictUnbilled(response: NumberVerificationResponse) async throws {
        let provider = ScriptedNumberVerifier([.answer(response)])
        let service = service(provider)
        let first = try await service.verify(Self.credential(), number: Self.number, caller: "end-user")
        #expect(first.verdict == response.verdict && first.code == response.code && first.billed == true)
        // The app never got the answer and asks again with the same token and number.
        clock.advance(by: .seconds(3))
        let retry = try await service.verify(Self.credential(), number: Self.number, caller: "end-user")
        #expect(retry.verdict == response.verdict)
        #expect(retry.code == response.code)
        #expect(retry.billed == false)
        #expect(retry.description == "\(response.verdict.rawValue) \(response.code) (replayed-answer, not billed)")
        #expect(provider.tokensSent == ["abc": 1])
        #expect(lastEvent.hasSuffix(
            #""code":"\#(response.code)","verdict":"\#(response.verdict.rawValue)","billed":"no","reason":"replayed-answer"}"#))
        #expect(!lastEvent.contains("13800138000") && !lastEvent.contains("abc"))
    }

    /// An answer the gateway itself called unknown (a spent token) is replayed as it was: still unknown, not billed.
    @Test func aRecordedUnknownAnswerIsReplayedAsUnknown() async throws {
        let provider = ScriptedNumberVerifier([.answer(.init(code: "302", verdict: .unknown))])
        let service = service(provider)
        _ = try await service.verify(Self.credential(), number: Self.number, caller: "end-user")
        let retry = try await service.verify(Self.credential(), number: Self.number, caller: "end-user")
        #expect(retry.description == "unknown 302 (replayed-answer, not billed)")
        #expect(provider.tokensSent == ["abc": 1])
    }

    /// Another server instance sharing the ledger answers the retry the same way: the verdict is the ledger's.
    @Test func anotherInstanceSharingTheLedgerReplaysTheVerdict() async throws {
        let provider = ScriptedNumberVerifier([.answer(.init(code: "001", verdict: .reject))])
        _ = try await service(provider).verify(Self.credential(), number: Self.number, caller: "end-user")
        let other = service(ScriptedNumberVerifier())
        let retry = try await other.verify(Self.credential(), number: Self.number, caller: "end-user")
        #expect(retry.description == "reject 001 (replayed-answer, not billed)")
        #expect(provider.tokensSent == ["abc": 1])
    }

    // MARK: The same token with another number: refused, unsent

    @Test func theSameTokenWithAnotherNumberIsRefusedUnsent() async throws {
        let provider = ScriptedNumberVerifier([.answer(.init(code: "001", verdict: .reject))])
        let service = service(provider)
        _ = try await service.verify(Self.credential(), number: Self.number, caller: "end-user")
        let guess = try await service.verify(Self.credential(), number: Self.another, caller: "end-user")
        #expect(guess.description == "unknown (token-replayed, not billed)")
        #expect(guess.code == nil)
        #expect(provider.tokensSent == ["abc": 1])
        #expect(lastEvent.hasSuffix(#""verdict":"unknown","billed":"no","reason":"token-replayed"}"#))
        // The guess changed nothing: the honest retry still gets its verdict.
        #expect(try await service.verify(Self.credential(), number: Self.number, caller: "end-user").description == "reject 001 (replayed-answer, not billed)")
        #expect(provider.tokensSent == ["abc": 1])
    }

    /// A token first used with another number never answers for this one, whatever the order.
    @Test func aGuessBeforeTheAnswerNeverGetsIt() async throws {
        let provider = ScriptedNumberVerifier([.answer(.init(code: "000", verdict: .pass))])
        let service = service(provider)
        #expect(try await service.verify(Self.credential(), number: Self.another, caller: "end-user").verdict == .pass)
        #expect(try await service.verify(Self.credential(), number: Self.number, caller: "end-user").reason == .tokenReplayed)
        #expect(provider.tokensSent == ["abc": 1])
    }

    /// The claim's owner, pinned with Python:
    /// `base64.urlsafe_b64encode(hmac.new(b'abc', b'verify-owner:13800138000', hashlib.sha256).digest()[:16]).rstrip(b'=')`.
    @Test func theOwnerIsAnHMACOfTheNumberKeyedByTheToken() {
        #expect(NumberVerificationService.owner(of: Secret("abc"), number: Self.number).text == "e2vn0YzfZNbUYPCRNvOSgg")
        #expect(NumberVerificationService.owner(of: Secret("abc"), number: Self.another).text == "57WqtJJod8KYlTn-puK7jw")
        // With a caller: `hmac.new(b'abc', b'verify-owner:13800138000:victim', hashlib.sha256)`, the same way.
        #expect(NumberVerificationService.owner(of: Secret("abc"), number: Self.number, caller: "victim").text == "1pJaUWZeaU1oYjD5P389tQ")
    }

    // MARK: No recorded answer: unknown

    @Test func aRetryWhileTheFirstIsUnderWayIsUnknownAndUnsent() async throws {
        let provider = ScriptedNumberVerifier([.held])
        let service = service(provider)
        let first = Task { try await service.verify(Self.credential(), number: Self.number, caller: "end-user") }
        await provider.waitUntilHeld()
        let retry = try await service.verify(Self.credential(), number: Self.number, caller: "end-user")
        #expect(retry.description == "unknown (token-replayed, not billed)")
        provider.release()
        #expect(try await first.value.description == "pass 000 (billed)")
        // Once the first has recorded its answer, a retry gets it.
        #expect(try await service.verify(Self.credential(), number: Self.number, caller: "end-user").description == "pass 000 (replayed-answer, not billed)")
        #expect(provider.tokensSent == ["abc": 1])
    }

    /// The answer came but the ledger could not record it: the row stays pending, and a retry is unknown, unsent.
    @Test func anEndNeverRecordedStaysUnknown() async throws {
        let faulty = FaultyExchangeLedger(ledger)
        faulty.faults.inject(.refuse(.io, "settle failed"), into: [.settle], times: 1)
        let provider = ScriptedNumberVerifier()
        let service = service(provider, ledger: faulty)
        #expect(try await service.verify(Self.credential(), number: Self.number, caller: "end-user").verdict == .pass)
        #expect(try await service.verify(Self.credential(), number: Self.number, caller: "end-user").description == "unknown (token-replayed, not billed)")
        #expect(provider.tokensSent == ["abc": 1])
    }

    /// A call that timed out (its result unknown, maybe billed) or never left is not sent again by a retry.
    @Test func aTimedOutOrUnsentCallIsNotSentAgain() async throws {
        let provider = ScriptedNumberVerifier([.hang, .error(ExchangeNotSentError("connection refused"))])
        let service = service(provider, timeout: .seconds(5))
        let task = Task { try await service.verify(Self.credential("T-1"), number: Self.number, caller: "end-user") }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(5))
        #expect(try await task.value.reason == .timedOut)
        #expect(try await service.verify(Self.credential("T-1"), number: Self.number, caller: "end-user").description == "unknown (token-replayed, not billed)")
        #expect(try await service.verify(Self.credential("T-2"), number: Self.number, caller: "end-user").reason == .notSent)
        #expect(try await service.verify(Self.credential("T-2"), number: Self.number, caller: "end-user").description == "unknown (token-replayed, not billed)")
        #expect(provider.tokensSent == ["T-1": 1, "T-2": 1])
    }

    /// A row answered without a verdict (a ledger adapter that does not store it) gives nothing back: unknown, unsent.
    @Test func anAnswerWithoutItsVerdictIsNotReplayed() async throws {
        let key = NumberVerificationService.key(of: Secret("abc"))
        _ = try await ledger.claim(key, for: NumberVerificationService.owner(of: Secret("abc"), number: Self.number), at: clock.now())
        try await ledger.settle(key, .answered(ExchangeResponse(code: "000")), at: clock.now())
        let provider = ScriptedNumberVerifier()
        #expect(try await service(provider).verify(Self.credential(), number: Self.number, caller: "end-user").description == "unknown (token-replayed, not billed)")
        #expect(provider.tokensSent.isEmpty)
    }
}
