import Testing
@testable import OneTap

@Suite struct RefreshBackoffTests {
    @Test(arguments: [(1, 30.0), (2, 60.0), (3, 120.0), (7, 1920.0), (8, 3600.0), (50, 3600.0), (1000, 3600.0), (0, 30.0), (-3, 30.0)])
    func cappedExponential(attempt: Int, seconds: Double) {
        let backoff = RefreshBackoff(jitter: { 1.0 })
        #expect(backoff.delay(afterFailure: attempt) == seconds)
    }

    @Test func jitterScalesAndIsClamped() {
        #expect(RefreshBackoff(jitter: { 0.5 }).delay(afterFailure: 2) == 30)
        #expect(RefreshBackoff(jitter: { 0.0 }).delay(afterFailure: 1) == 15)   // clamped to 0.5
        #expect(RefreshBackoff(jitter: { 9.0 }).delay(afterFailure: 1) == 30)   // clamped to 1.0
        let random = RefreshBackoff()
        for attempt in 1...10 {
            let delay = random.delay(afterFailure: attempt)
            #expect(delay >= 15 && delay <= 3600)
        }
    }
}

extension RefreshBackoffTests {
    /// Jitter drawn from `SplitMix64(seed: 0)` as `0.5 + 0.5 × uniform()`. The expected waits were
    /// computed outside the project (Python's IEEE doubles, from the reference `splitmix64.c` sequence,
    /// whose first output is 0xE220A8397B1DCDAF): jitter 0.9416554041068212 × 30 s, 0.715763998524255
    /// × 60 s, … , then the 1-hour cap from the eighth failure on.
    @Test func aSeededJitterGivesTheseWaits() {
        let generator = LockedValue(SplitMix64(seed: 0))
        let backoff = RefreshBackoff(jitter: { generator.withLock { 0.5 + 0.5 * $0.uniform() } })
        let expected = [
            28.249662123204637, 42.9458399114553, 61.58602629555587, 236.50583737845943, 265.523205976131,
            637.1163668247003, 1126.9131513212956, 3188.7838013968203, 2242.2401079122365,
        ]
        #expect((1...9).map { backoff.delay(afterFailure: $0) } == expected)
    }

    /// Scripted jitter, waits worked out by hand: 30 × 0.5, 60 × 0.75, 120 × 1, 240 × 0.6, 480 × 0.9, and
    /// the cap's 3600 × 0.5 at the eighth failure.
    @Test func scriptedJitterWaitsWorkedOutByHand() {
        let jitters = LockedValue([0.5, 0.75, 1.0, 0.6, 0.9, 0.5])
        let backoff = RefreshBackoff(jitter: { jitters.withLock { $0.removeFirst() } })
        #expect([1, 2, 3, 4, 5, 8].map { backoff.delay(afterFailure: $0) } == [15, 45, 120, 144, 432, 1800])
    }
}
