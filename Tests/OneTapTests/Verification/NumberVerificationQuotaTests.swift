import Foundation
import OneTapTesting
import Testing
@testable import OneTap

/// The number verification's own quota (issue 22 item 4): each call is a paid gateway call, so a caller driving the
/// service in a loop with fresh tokens is held to the integrator's limit per window, counted in the login quotas'
/// counter store; over it, or when the store fails, nothing is sent, nothing billed, and the token's claim is kept
/// for later.
@Suite struct NumberVerificationQuotaTests {
    let clock = FakeClock()
    let ledger = InMemoryExchangeLedger()
    let events = RecordingEventSink()
    let counters = InMemoryLoginQuotaStore()
    static let number = try! PhoneNumber("13800138000")

    func service(_ provider: any NumberVerificationProvider, quota: NumberVerificationQuota?) -> NumberVerificationService {
        NumberVerificationService(
            provider: provider, ledger: ledger, timeout: .seconds(5), clock: clock, events: events, lifetimes: .builtIn, billing: .builtIn, quota: quota)
    }

    func quota(_ limit: Int = 2, per window: Duration = .seconds(60), store: (any LoginQuotaStore)? = nil) throws -> NumberVerificationQuota {
        try NumberVerificationQuota(limit: limit, per: window, store: store ?? counters)
    }

    static func credential(_ token: String) -> CarrierCredential {
        CarrierCredential(flow: .mobile, token: Secret(token))
    }

    /// What the ledger holds for a verification token (claiming it when it holds nothing).
    func row(_ token: String) async throws -> ExchangeLedgerEntry? {
        try await ledger.claim(NumberVerificationService.key(of: Secret(token)), for: LoginSessionID("AAAAAAAAAAAAAAAAAAAAAA"), at: clock.now())
    }

    @Test func underTheLimitEveryCallIsSent() async throws {
        let provider = ScriptedNumberVerifier()
        let service = service(provider, quota: try quota())
        #expect(try await service.verify(Self.credential("T-1"), number: Self.number, caller: "account-42").description == "pass 000 (billed)")
        #expect(try await service.verify(Self.credential("T-2"), number: Self.number, caller: "account-42").description == "pass 000 (billed)")
        #expect(provider.tokensSent == ["T-1": 1, "T-2": 1])
    }

    @Test func atTheLimitNothingIsSentNothingBilledAndTheTokenStaysUnclaimed() async throws {
        let provider = ScriptedNumberVerifier()
        let service = service(provider, quota: try quota())
        for token in ["T-1", "T-2"] { _ = try await service.verify(Self.credential(token), number: Self.number, caller: "account-42") }
        clock.advance(by: .seconds(10))
        let limited = try await service.verify(Self.credential("T-3"), number: Self.number, caller: "account-42")
        #expect(limited.verdict == .unknown && limited.billed == false && limited.code == nil && limited.reason == .limited)
        // The oldest of the two calls (at 0 s) leaves the 60-second window at 60 s.
        #expect(limited.description == "unknown (limited: over the quota of 2 verifications per 60 s for this caller; try again after 2026-12-01T00:01:00.000Z, not billed)")
        #expect(provider.tokensSent == ["T-1": 1, "T-2": 1])
        #expect(events.recorded.last?.json().hasSuffix(#""verdict":"unknown","billed":"no","reason":"limited"}"#) == true)
        #expect(try await row("T-3") == nil)  // not claimed: the token is still good once the window passes
    }

    @Test func theWindowPassingLetsTheSameTokenThrough() async throws {
        let provider = ScriptedNumberVerifier()
        let service = service(provider, quota: try quota(1, per: .seconds(60)))
        _ = try await service.verify(Self.credential("T-1"), number: Self.number, caller: "account-42")
        let received = clock.now()
        clock.advance(by: .milliseconds(59_999))
        #expect(try await service.verify(Self.credential("T-2"), number: Self.number, receivedAt: received, caller: "account-42").reason == .limited)
        clock.advance(by: .milliseconds(1))
        #expect(try await service.verify(Self.credential("T-2"), number: Self.number, receivedAt: received, caller: "account-42").description == "pass 000 (billed)")
        #expect(provider.tokensSent == ["T-1": 1, "T-2": 1])
    }

    @Test func eachCallerHasAQuotaOfItsOwnAndNoCallerSharesOne() async throws {
        let provider = ScriptedNumberVerifier()
        let service = service(provider, quota: try quota(1))
        #expect(try await service.verify(Self.credential("T-1"), number: Self.number, caller: "account-42").verdict == .pass)
        #expect(try await service.verify(Self.credential("T-2"), number: Self.number, caller: "account-43").verdict == .pass)
        #expect(try await service.verify(Self.credential("T-3"), number: Self.number, caller: "account-42").reason == .limited)
        // No caller key, or an empty one, counts in one shared bucket: leaving it out never removes the limit.
        #expect(try await service.verify(Self.credential("T-4"), number: Self.number).verdict == .pass)
        #expect(try await service.verify(Self.credential("T-5"), number: Self.number).reason == .limited)
        #expect(try await service.verify(Self.credential("T-6"), number: Self.number, caller: "").reason == .limited)
        #expect(provider.tokensSent == ["T-1": 1, "T-2": 1, "T-4": 1])
    }

    /// Strangers who give no caller key fill the one shared bucket; a caller who proved a key is counted apart and is
    /// never refused for their calls, even when its key spells the shared bucket's name (the key is hashed first).
    @Test func aProvenCallerIsNeverLimitedByTheSharedBucket() async throws {
        let provider = ScriptedNumberVerifier()
        let service = service(provider, quota: try quota(1))
        #expect(try await service.verify(Self.credential("T-1"), number: Self.number).verdict == .pass)
        for index in 2...4 { #expect(try await service.verify(Self.credential("T-\(index)"), number: Self.number).reason == .limited) }
        #expect(try await service.verify(Self.credential("T-5"), number: Self.number, caller: "account-42").verdict == .pass)
        #expect(try await service.verify(Self.credential("T-6"), number: Self.number, caller: "(not given)").verdict == .pass)
        #expect(provider.tokensSent == ["T-1": 1, "T-5": 1, "T-6": 1])
    }

    /// The counter is keyed by the SHA-256 of the caller key (an API key may serve; no store holds it). Pinned with
    /// python3 -c "import hashlib; print(hashlib.sha256(b'account-42').hexdigest())".
    @Test func theCounterHoldsTheCallerKeysDigestOnly() throws {
        #expect(NumberVerificationQuota.counter(for: "account-42").description
            == "exchanges:session:verify:be781897291dcfd5c58baa17cd0602b427af04efd3a67d7f4f9bb13b68fd01ce")
        #expect(NumberVerificationQuota.counter(for: nil).description == "exchanges:session:verify:(not given)")
        #expect(NumberVerificationQuota.counter(for: "") == NumberVerificationQuota.counter(for: nil))
    }

    @Test func aFailingCounterStoreFailsClosed() async throws {
        let faulty = FaultyLoginQuotaStore(counters)
        faulty.faults.inject(.refuse(.io, "counters down"), into: [.update], times: nil)
        let provider = ScriptedNumberVerifier()
        let service = service(provider, quota: try quota(store: faulty))
        let answer = try await service.verify(Self.credential("T-1"), number: Self.number, caller: "account-42")
        #expect(answer.verdict == .unknown && answer.billed == false && answer.code == nil && answer.reason == .quotaStoreFailed)
        #expect(answer.description.hasPrefix("unknown (quota-store-failed: "))
        #expect(answer.description.contains("counters down"))
        #expect(provider.tokensSent.isEmpty)
        #expect(try await row("T-1") == nil)
        #expect(events.recorded.last?.json().hasSuffix(#""verdict":"unknown","billed":"no","reason":"quota-store-failed"}"#) == true)
    }

    /// An update computed but never written (a lost commit) counts nothing and sends nothing either.
    @Test func aLostCounterWriteFailsClosed() async throws {
        let faulty = FaultyLoginQuotaStore(counters)
        faulty.faults.inject(.lose(.io, "commit lost"), into: [.update], times: 1)
        let provider = ScriptedNumberVerifier()
        let service = service(provider, quota: try quota(store: faulty))
        #expect(try await service.verify(Self.credential("T-1"), number: Self.number, caller: "account-42").reason == .quotaStoreFailed)
        #expect(provider.tokensSent.isEmpty)
        #expect(try await service.verify(Self.credential("T-1"), number: Self.number, caller: "account-42").verdict == .pass)
    }

    /// An attacker's read of the verification: a ledger that failed on the claim sent nothing, yet its call stayed
    /// counted, so an honest caller retrying through a database outage was `limited` for the whole window after the
    /// database came back. The login's quotas give such a call back; the verification's do now too.
    @Test func aClaimTheLedgerRefusedGivesItsCountBack() async throws {
        let faulty = FaultyExchangeLedger(ledger)
        faulty.faults.inject(.refuse(.io, "ledger down"), into: [.claim], times: 2)
        let provider = ScriptedNumberVerifier()
        let service = NumberVerificationService(
            provider: provider, ledger: faulty, timeout: .seconds(5), clock: clock, events: events, lifetimes: .builtIn, billing: .builtIn,
            quota: try quota(1))
        await #expect { _ = try await service.verify(Self.credential("T-1"), number: Self.number, caller: "account-42") } throws: {
            ($0 as? StoreError)?.kind == .io
        }
        #expect(provider.tokensSent.isEmpty)
        let answer = try await service.verify(Self.credential("T-1"), number: Self.number, caller: "account-42")
        #expect(answer.verdict == .pass && answer.reason == .answered, "\(answer)")
        // Counted once it was sent: the next call is over the quota of one.
        #expect(try await service.verify(Self.credential("T-2"), number: Self.number, caller: "account-42").reason == .limited)
    }

    /// An expired token is refused before the quota: it costs nothing, so it is not counted.
    @Test func anExpiredTokenIsNotCounted() async throws {
        let provider = ScriptedNumberVerifier()
        let service = service(provider, quota: try quota(1))
        #expect(try await service.verify(Self.credential("T-1"), number: Self.number, receivedAt: clock.now().addingTimeInterval(-120), caller: "a").reason == .tokenExpired)
        #expect(try await service.verify(Self.credential("T-2"), number: Self.number, caller: "a").verdict == .pass)
    }

    @Test(arguments: [(0, 60.0), (1_000_001, 60), (1, 0.5), (1, 31_536_001)])
    func aQuotaOutOfRangeIsRefusedNamingTheInput(limit: Int, seconds: Double) throws {
        #expect {
            _ = try NumberVerificationQuota(limit: limit, per: .milliseconds(Int64(seconds * 1000)), store: counters)
        } throws: { error in
            guard let error = error as? ParseError else { return false }
            return error.subject == .quota && error.kind == .outOfRange
        }
    }

    @Test func theQuotaIsOptional() async throws {
        let provider = ScriptedNumberVerifier()
        let service = service(provider, quota: nil)
        for index in 0..<5 { #expect(try await service.verify(Self.credential("T-\(index)"), number: Self.number, caller: "a").verdict == .pass) }
        #expect(counters.count == 0)
    }
}
