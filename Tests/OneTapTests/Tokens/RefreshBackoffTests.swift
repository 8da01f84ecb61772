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
