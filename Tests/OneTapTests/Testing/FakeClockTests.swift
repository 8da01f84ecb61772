import Foundation
@testable import OneTap
import OneTapTesting
import Testing

@Suite struct FakeClockTests {
    /// A sleep cancelled while it is starting must still end: cancelled at any moment, the sleeper is
    /// either never parked or taken out again. (A sleeper parked after the cancellation handler had run
    /// slept until the clock moved, so a vault's `run()` never returned from `shutdown()`.)
    @Test func aSleepCancelledAtAnyMomentEnds() async throws {
        let clock = FakeClock()
        let ended = LockedValue(0)
        let rounds = 50, sleeps = 500
        var parked = 0
        for _ in 0..<rounds {
            let tasks = (0..<sleeps).map { _ in
                Task {
                    do { try await clock.sleep(for: .seconds(60)) } catch is CancellationError {} catch { Issue.record(error) }
                    ended.withLock { $0 += 1 }
                }
            }
            for task in tasks { task.cancel() }
            // A real-time bound, so a parked sleeper fails the test instead of hanging it; the tasks are
            // unstructured, so a parked one is not awaited. First every task must have run to its end or its
            // park (on a loaded machine some may not have run yet, which is no parked sleeper), then a parked
            // one has 10 s to end.
            let settled = ContinuousClock.now + .seconds(120)
            while ended.withLock({ $0 }) + clock.sleeperCount < sleeps, ContinuousClock.now < settled { try await Task.sleep(for: .milliseconds(1)) }
            let deadline = ContinuousClock.now + .seconds(10)
            while ended.withLock({ $0 }) < sleeps, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
            parked = sleeps - ended.withLock { $0 }
            if parked > 0 { break }
            ended.withLock { $0 = 0 }
        }
        #expect(parked == 0, "\(parked) cancelled sleeps were still parked after 10 s of real time")
        #expect(clock.sleeperCount == parked)
        clock.advance(by: .seconds(61))   // frees whatever was parked
    }

    /// The moment the cancellation used to be lost, every time: the task is cancelled after the sleep's first check
    /// and before it parks.
    @Test func aSleepCancelledJustBeforeItParksThrowsAndParksNothing() async throws {
        let clock = FakeClock()
        clock.whenASleepStarts { withUnsafeCurrentTask { $0?.cancel() } }
        let done = LockedValue(false)
        let task = Task { () -> String in
            defer { done.withLock { $0 = true } }
            do {
                try await clock.sleep(for: .seconds(1))
                return "slept"
            } catch {
                return error is CancellationError ? "cancelled" : "\(error)"
            }
        }
        #expect(try await TestDoubleCancellationTests.ends(task, within: 60, flag: done), "the sleep was parked after its cancellation")
        if done.withLock({ $0 }) { #expect(await task.value == "cancelled") }
        #expect(clock.sleeperCount == 0 && clock.totalSleeps == 0)
        clock.whenASleepStarts(nil)
        clock.advance(by: .seconds(2))   // frees a parked sleeper, if the test failed
    }

    @Test func aSleepByACancelledTaskThrowsAndParksNothing() async {
        let clock = FakeClock()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await clock.sleep(for: .seconds(1))
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(clock.sleeperCount == 0)
        #expect(clock.totalSleeps == 0)
    }
}
