import Foundation
@testable import OneTap
import OneTapTesting
import Testing

/// The test doubles' waits end when their task is cancelled: a test that fails (or hits its time limit) and
/// cancels its tasks finishes, instead of hanging the run with no timer left to end it.
@Suite struct TestDoubleCancellationTests {
    /// Whether `task` finished within `seconds` of real time (polled, so a task that never ends is not awaited). A
    /// cancelled wait ends at once; the bound is for a loaded machine, which once starved a wait past 10 s in CI.
    static func ends<T: Sendable>(_ task: Task<T, Never>, within seconds: Double, flag: LockedValue<Bool>) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while !flag.withLock({ $0 }), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        return flag.withLock { $0 }
    }

    @Test func aCancelledWaitForAnEventThatNeverComesEndsAtOnce() async throws {
        let events = RecordingEventSink()
        let done = LockedValue(false)
        let started = LockedValue(false)
        let task = Task {
            started.withLock { $0 = true }
            let came = await events.wait(for: "never", count: 1, limit: .seconds(3600))
            done.withLock { $0 = true }
            return came
        }
        while !started.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(1)) }
        try await Task.sleep(for: .milliseconds(20))   // most runs: parked by now; the others test the race
        task.cancel()
        #expect(try await Self.ends(task, within: 60, flag: done), "the wait outlived its task's cancellation")
        if done.withLock({ $0 }) { #expect(await task.value == false) }
    }

    /// The limit passes first: the wait ends with false (and its watcher leaves), the task not cancelled.
    @Test func aWaitWhoseLimitPassesEndsWithFalse() async {
        let events = RecordingEventSink()
        #expect(await events.wait(for: "never", count: 1, limit: .milliseconds(20)) == false)
    }

    @Test func aHeldRefreshThatIsCancelledThrows() async throws {
        let refresher = MockRefresher()
        refresher.hold()
        let done = LockedValue(false)
        let token = AccessToken(
            value: Secret("old"), refreshToken: Secret("r"), flow: .tianyi, account: "acct-1", issuedAt: Date(timeIntervalSince1970: 1_796_000_000),
            expiresAt: Date(timeIntervalSince1970: 1_798_592_000))
        let task = Task { () -> String in
            defer { done.withLock { $0 = true } }
            do {
                _ = try await refresher.refresh(token)
                return "answered"
            } catch is CancellationError {
                return "cancelled"
            } catch {
                return "\(error)"
            }
        }
        await refresher.waitForCalls(1)
        task.cancel()
        #expect(try await Self.ends(task, within: 60, flag: done), "the held call outlived its cancellation")
        if done.withLock({ $0 }) { #expect(await task.value == "cancelled") }
        refresher.release()
    }

    /// Waiting for sleepers or calls that never come, or at a gate never opened, ends when the task is cancelled.
    @Test func waitsForSleepersAndCallsEndWhenCancelled() async throws {
        let clock = FakeClock()
        let refresher = MockRefresher()
        let gate = Gate()
        for wait in [{ await clock.waitForSleepers(1) }, { await refresher.waitForCalls(1) }, { await gate.wait() }] as [@Sendable () async -> Void] {
            let done = LockedValue(false)
            let task = Task {
                await wait()
                done.withLock { $0 = true }
            }
            try await Task.sleep(for: .milliseconds(20))
            task.cancel()
            #expect(try await Self.ends(task, within: 60, flag: done), "the wait outlived its task's cancellation")
        }
    }
}
