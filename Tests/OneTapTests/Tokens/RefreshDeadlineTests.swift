import Foundation
import OneTapTesting
import Testing
@testable import OneTap

extension TokenVaultTests {
    // MARK: Time limits and late answers through the vault

    @Test func aRefreshAnswerAfterTheTimeLimitIsStillKept() async throws {
        let refresher = MockRefresher([.success(RefreshResponse(accessToken: Secret("LATE"), refreshToken: Secret("ROTATED")))])
        refresher.hold()
        try await running(vault(refresher)) { vault in
            try await vault.store(expired())
            let call = Task { try await vault.validToken(for: "u1") }
            await refresher.waitForCalls(1)
            await clock.waitForSleepers(2)   // the scan's and the refresh's time limit
            clock.advance(by: .seconds(30))
            await #expect { try await call.value } throws: { ($0 as? TokenError)?.kind == .refreshFailed }
            refresher.release()
            #expect(await events.wait(for: "refreshed"))
        }
        let stored = try await store.load("u1")
        #expect(stored?.token.value.reveal() == "LATE" && stored?.token.refreshToken?.reveal() == "ROTATED")
        #expect(events.names.suffix(2) == ["refresh-failed", "refreshed"])
    }

    /// A graceful shutdown waits for a late answer too: the callers were answered at the time limit, but the
    /// carrier's answer may carry a rotated refresh token, the only one it still takes. Cancelling the call
    /// to stop sooner would lose it on every deploy while the carrier is slow.
    @Test(.timeLimit(.minutes(3))) func aShutdownWaitsForALateAnswerAndKeepsIt() async throws {
        let refresher = MockRefresher([.success(RefreshResponse(accessToken: Secret("LATE"), refreshToken: Secret("ROTATED")))])
        refresher.hold()
        let vault = vault(refresher)
        try await vault.store(expired())
        let stopped = LockedValue(false)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await vault.run()
                stopped.withLock { $0 = true }
            }
            // Started first, as `running` does: a call to a vault not yet started bounds its own wait on the clock too
            // (a third sleeper), and the advance below then ended it `not-running` (seen once in a loaded run).
            await clock.waitForSleepers(1)   // the background scan ran once and waits for the next
            let call = Task { try await vault.validToken(for: "u1") }
            await refresher.waitForCalls(1)
            await clock.waitForSleepers(2)   // the scan's and the refresh's time limit
            clock.advance(by: .seconds(30))
            await #expect { try await call.value } throws: { ($0 as? TokenError)?.kind == .refreshFailed }
            await vault.shutdown()
            await vault.drained.waitForAWaiter()   // run() waits for the late answer (before, it cancelled the call)
            refresher.release()
            try await group.waitForAll()
        }
        #expect(stopped.withLock { $0 })
        let stored = try await store.load("u1")
        #expect(stored?.token.value.reveal() == "LATE" && stored?.token.refreshToken?.reveal() == "ROTATED")
    }

    @Test func aHungRefresherTimesOutAndIsCancelledAfterTheLateLimit() async throws {
        let refresher = MockRefresher([.hang])
        try await running(vault(refresher)) { vault in
            try await vault.store(expired())
            let call = Task { try await vault.validToken(for: "u1") }
            await clock.waitForSleepers(2)
            clock.advance(by: .seconds(30))
            await #expect { try await call.value } throws: { ($0 as? TokenError)?.kind == .refreshFailed }
            // While the hung call goes on, the account has no second refresh call.
            await #expect { try await vault.validToken(for: "u1") } throws: { ($0 as? TokenError)?.kind == .backingOff }
            await clock.waitForSleepers(2)   // the late limit
            clock.advance(by: .seconds(300))
            #expect(await events.wait(for: "refresh-abandoned"))
            // The hung call was cancelled; a new refresh runs.
            #expect(try await vault.validToken(for: "u1").value.reveal() == "refreshed-2")
        }
        #expect(refresher.calls == 2)
        #expect(events.names.filter { $0 == "refresh-failed" }.count == 1)   // counted once, at the limit
    }

    /// A refresher whose first call never returns and ignores its cancellation (a carrier SDK's callback with no
    /// cancellation handler); later calls answer.
    final class DeafRefresher: TokenRefresher, @unchecked Sendable {
        let held = LockedValue<(calls: Int, continuation: CheckedContinuation<Void, Never>?)>((0, nil))
        let firstCalled = Gate()
        func refresh(_ token: AccessToken) async throws -> RefreshResponse {
            let call = held.withLock { $0.calls += 1; return $0.calls }
            if call == 1 {
                await withCheckedContinuation { continuation in
                    held.withLock { $0.continuation = continuation }
                    firstCalled.open()
                }
                throw CancellationError()
            }
            return RefreshResponse(accessToken: Secret("refreshed-\(call)"), refreshToken: Secret("R\(call)"))
        }
    }

    /// An attacker's read: past the late-answer limit the vault cancelled a refresh call and awaited it; a call that
    /// ignores its cancellation held the vault's shutdown for ever (`run()` never returned) and every later caller
    /// of the account waited on its flight. It is abandoned and left: later callers are answered at their time
    /// limit (on the in-memory store the deaf call still holds the account's refresh lock, as its refresh token
    /// may still be in use), and the vault stops.
    @Test(.timeLimit(.minutes(3))) func aRefreshCallThatIgnoresItsCancellationIsAbandonedAndTheVaultStops() async throws {
        let refresher = DeafRefresher()
        try await running(vault(refresher)) { vault in
            try await vault.store(expired())
            let call = Task { try await vault.validToken(for: "u1") }
            await refresher.firstCalled.wait()
            await clock.waitForSleepers(2)
            clock.advance(by: .seconds(30))
            await #expect { try await call.value } throws: { ($0 as? TokenError)?.kind == .refreshFailed }
            await clock.waitForSleepers(2)   // the late limit
            clock.advance(by: .seconds(300))
            #expect(await events.wait(for: "refresh-abandoned"))
            let later = Task { try await vault.validToken(for: "u1") }
            await clock.waitForSleepers(2)
            clock.advance(by: .seconds(30))
            await #expect { try await later.value } throws: { ($0 as? TokenError)?.kind == .refreshFailed }
            await clock.waitForSleepers(2)   // its late limit: past it, the vault can stop
            clock.advance(by: .seconds(300))
        }
        #expect(events.names.filter { $0 == "refresh-abandoned" }.count == 2)
        refresher.held.withLock { $0.continuation }?.resume()   // the SDK calls back at last
    }

    @Test func withoutATimeLimitCallersWaitForTheAnswer() async throws {
        let refresher = MockRefresher()
        refresher.hold()
        try await running(vault(refresher, refreshTimeout: nil)) { vault in
            try await vault.store(expired())
            let call = Task { try await vault.validToken(for: "u1") }
            await refresher.waitForCalls(1)
            #expect(clock.sleeperCount == 1)   // the scan's only: no time limit runs
            clock.advance(by: .seconds(3600))
            refresher.release()
            #expect(try await call.value.value.reveal() == "refreshed-1")
        }
    }
}

extension TokenVaultTests {
    /// The time limits on their own, on a fake clock: a call in time cancels its limit; at the limit the
    /// callers are answered once and the late answer is awaited; past the late-answer limit the call is
    /// cancelled; without a limit nothing sleeps.
    @Suite struct RefreshDeadlineTests {
        let clock = FakeClock()

        func deadline(_ limit: Duration? = .seconds(30)) -> RefreshDeadline {
            RefreshDeadline(limit: limit, lateAnswerLimit: .seconds(300), clock: clock)
        }

        /// Lets the callers' limit (30 s) and then the late-answer limit (300 s) pass, each once its sleep began.
        func passBothLimits() async {
            await clock.waitForSleepers(1)
            clock.advance(by: .seconds(30))
            await clock.waitForSleepers(1)
            clock.advance(by: .seconds(300))
        }

        @Test func aCallThatAnswersInTimeEndsItsLimit() async {
            let limits = LockedValue(0)
            let ending = await deadline().run({}, atLimit: { limits.withLock { $0 += 1 } })
            #expect(ending == .answered)
            #expect(limits.withLock { $0 } == 0 && clock.sleeperCount == 0)
        }

        @Test func atTheLimitTheCallersAreAnsweredOnceAndTheLateAnswerIsAwaited() async {
            let gate = Gate()
            let limits = LockedValue(0)
            let deadline = deadline()
            async let ending = deadline.run({ await gate.wait() }, atLimit: { limits.withLock { $0 += 1 } })
            await clock.waitForSleepers(1)
            clock.advance(by: .seconds(30))
            await clock.waitForSleepers(1)   // the late-answer limit: the callers were answered
            #expect(limits.withLock { $0 } == 1)
            gate.open()   // the late answer
            #expect(await ending == .answered)
            #expect(limits.withLock { $0 } == 1 && clock.sleeperCount == 0)
        }

        @Test func aCallPastTheLateAnswerLimitIsCancelledAndAbandoned() async {
            let cancelled = LockedValue(false)
            let gaveUp = Gate()
            let deadline = deadline()
            async let ending = deadline.run({
                do { try await Hang.forever() } catch { cancelled.withLock { $0 = error is CancellationError } }
                gaveUp.open()
            }, atLimit: {})
            await passBothLimits()
            #expect(await ending == .abandoned)
            await gaveUp.wait()   // the abandoned call was cancelled (it is no longer awaited)
            #expect(cancelled.withLock { $0 })
        }

        /// An attacker's read: a call that ignores its cancellation (a carrier SDK's callback wrapped with no
        /// cancellation handler) held the limits' task group for ever past the late-answer limit, and with it
        /// the account's refresh and the vault's shutdown. It is abandoned at the limit and left behind.
        @Test(.timeLimit(.minutes(3))) func aCallThatIgnoresItsCancellationIsAbandonedNotAwaited() async {
            let held = LockedValue<CheckedContinuation<Void, Never>?>(nil)
            let called = Gate()
            let deadline = deadline()
            async let ending = deadline.run({
                await withCheckedContinuation { continuation in
                    held.withLock { $0 = continuation }
                    called.open()
                }
            }, atLimit: {})
            await passBothLimits()
            #expect(await ending == .abandoned)
            // The SDK calls back at last: the left call ends on its own.
            await called.wait()
            held.withLock { $0 }?.resume()
        }

        @Test func withoutALimitNothingSleeps() async {
            let started = Gate()
            let answer = Gate()
            let deadline = deadline(nil)
            async let ending = deadline.run({
                started.open()
                await answer.wait()
            }, atLimit: { Issue.record("no limit was set") })
            await started.wait()
            #expect(clock.sleeperCount == 0)
            answer.open()
            #expect(await ending == .answered)
        }

        @Test func cancellingTheRunCancelsTheCallAndItsLimit() async {
            let deadline = deadline()
            let run = Task {
                await deadline.run({
                    do { try await Hang.forever() } catch {}
                }, atLimit: { Issue.record("cancelled before the limit") })
            }
            await clock.waitForSleepers(1)
            run.cancel()
            #expect(await run.value == .answered)
            #expect(clock.sleeperCount == 0)
        }
    }
}
