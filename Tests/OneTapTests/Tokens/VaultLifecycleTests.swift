import Foundation
import OneTapTesting
import Testing
@testable import OneTap

extension TokenVaultTests {
    // MARK: Running through the vault

    /// Before `run` starts, usable tokens are served and refreshes wait for it; a caller on an expired
    /// token waits at most the refresh time limit, then hears that the vault is not running.
    @Test func aVaultThatIsNotRunningServesUsableTokensAndSaysWhyItCannotRefresh() async throws {
        let refresher = MockRefresher()
        let vault = vault(refresher)
        try await vault.store(token("stale", age: 2 * Self.day))
        try await vault.store(expired("expired"))
        #expect(try await vault.validToken(for: "stale").value.reveal() == "A0")
        let call = Task { try await vault.validToken(for: "expired") }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(30))
        await #expect { try await call.value } throws: { ($0 as? TokenError)?.kind == .notRunning }
        #expect(refresher.calls == 0)
        await vault.shutdown()
        await #expect { try await vault.validToken(for: "expired") } throws: { ($0 as? TokenError)?.kind == .notRunning }
    }

    /// With no limit on refresh calls (`refreshTimeout: nil`), a caller of a vault that never runs still hears,
    /// after the default 30 s, that it is not running (it waited for ever).
    @Test(.timeLimit(.minutes(3))) func aVaultWithNoRefreshLimitThatIsNotRunningStillAnswers() async throws {
        let vault = vault(MockRefresher(), refreshTimeout: nil)
        try await vault.store(expired("expired"))
        let call = Task { try await vault.validToken(for: "expired") }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(30))
        await #expect { try await call.value } throws: { ($0 as? TokenError)?.kind == .notRunning }
        await vault.shutdown()
    }

    /// A refresh asked for just before `run` starts is run once it does.
    @Test func aRefreshAskedForBeforeRunStartsRunsWhenItDoes() async throws {
        let vault = vault(MockRefresher())
        try await vault.store(expired())
        let call = Task { try await vault.validToken(for: "u1") }
        await clock.waitForSleepers(1)   // the caller's bound while the vault has not started
        try await running(vault) { _ async throws in
            #expect(try await call.value.value.reveal() == "refreshed-1")
        }
    }

    @Test func aVaultRunsOnce() async throws {
        let vault = vault(MockRefresher())
        try await running(vault) { vault in
            await #expect { try await vault.run() } throws: { ($0 as? TokenError)?.kind == .alreadyRunning }
        }
        await #expect { try await vault.run() } throws: { ($0 as? TokenError)?.kind == .alreadyRunning }
    }

    /// Shutdown lets the refresh a caller waits for finish and answer, then `run` returns.
    @Test func gracefulShutdownFinishesTheRefreshUnderWay() async throws {
        let refresher = MockRefresher()
        refresher.hold()
        let vault = vault(refresher)
        try await vault.store(expired())
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await vault.run() }
            await clock.waitForSleepers(1)
            let waiter = Task { try await vault.validToken(for: "u1") }
            await refresher.waitForCalls(1)
            await vault.shutdown()
            refresher.release()
            #expect(try await waiter.value.value.reveal() == "refreshed-1")
            try await group.waitForAll()   // run returned
        }
        #expect(try await vault.validToken(for: "u1").value.reveal() == "refreshed-1")   // fresh now: served by a stopped vault
    }

    /// Cancelling `run` cancels the refreshes under way; their callers hear why.
    @Test func cancellingRunAnswersWaitersWithNotRunning() async throws {
        let refresher = MockRefresher([.hang])
        let vault = vault(refresher)
        try await vault.store(expired())
        let run = Task { try await vault.run() }
        await clock.waitForSleepers(1)
        let waiter = Task { try await vault.validToken(for: "u1") }
        await refresher.waitForCalls(1)
        run.cancel()
        await #expect { try await waiter.value } throws: { ($0 as? TokenError)?.kind == .notRunning }
        try await run.value
        #expect(!events.names.contains("refresh-failed"))   // a stop is not a failure of the carrier
    }

    @Test func aShutdownBeforeRunMakesRunReturnAtOnceAndOnlyOnce() async throws {
        let vault = TokenVault(refresher: MockRefresher(), events: DiscardingEventSink())
        await vault.shutdown()
        try await vault.run()   // returns: a service group stopped before the task started
        await #expect { try await vault.run() } throws: { ($0 as? TokenError)?.kind == .alreadyRunning }
    }
}

extension TokenVaultTests {
    /// The vault's phases on their own: idle, running, stopping, stopped; a shutdown before the run; the
    /// queue in order, closed by the shutdown.
    @Suite struct VaultLifecycleTests {
        func expectAlreadyRunning(_ lifecycle: inout VaultLifecycle) {
            do {
                _ = try lifecycle.startRunning()
                Issue.record("a vault ran twice")
            } catch {
                #expect(error.kind == .alreadyRunning)
            }
        }

        @Test func idleRunningStoppingStopped() throws {
            var lifecycle = VaultLifecycle()
            #expect(lifecycle.phase == .idle && lifecycle.isIdle && lifecycle.startsRefreshes && !lifecycle.isRunning)
            #expect(try lifecycle.startRunning())
            #expect(lifecycle.phase == .running && lifecycle.isRunning && lifecycle.startsRefreshes && !lifecycle.isIdle)
            expectAlreadyRunning(&lifecycle)
            #expect(lifecycle.shutdown() == .drain)
            #expect(lifecycle.phase == .stopping && !lifecycle.isRunning && !lifecycle.startsRefreshes)
            #expect(lifecycle.shutdown() == .nothing)
            lifecycle.stopped()
            #expect(lifecycle.phase == .stopped && !lifecycle.startsRefreshes)
            #expect(lifecycle.shutdown() == .nothing)
            expectAlreadyRunning(&lifecycle)
        }

        @Test func aShutdownBeforeTheRunLetsOneRunReturnAtOnce() throws {
            var lifecycle = VaultLifecycle()
            #expect(lifecycle.shutdown() == .answerQueued)
            #expect(lifecycle.phase == .stopped && !lifecycle.startsRefreshes)
            #expect(try lifecycle.startRunning() == false)
            expectAlreadyRunning(&lifecycle)
        }

        @Test func aRunThatIsCancelledStops() throws {
            var lifecycle = VaultLifecycle()
            #expect(try lifecycle.startRunning())
            lifecycle.stopped()
            #expect(lifecycle.phase == .stopped)
            #expect(lifecycle.shutdown() == .nothing)
        }

        @Test func theQueueKeepsItsOrderAndEndsAtTheShutdown() async throws {
            var lifecycle = VaultLifecycle()
            let first = RefreshFlight("a", from: .sample("a"), background: false)
            let second = RefreshFlight("b", from: .sample("b"), background: true)
            #expect(lifecycle.enqueue(first))   // before the run: kept for it
            #expect(try lifecycle.startRunning())
            #expect(lifecycle.enqueue(second))
            _ = lifecycle.shutdown()
            #expect(!lifecycle.enqueue(RefreshFlight("c", from: .sample("c"), background: false)), "the queue has closed")
            var seen: [RefreshFlight] = []
            for await flight in lifecycle.queue { seen.append(flight) }
            #expect(seen.count == 2 && seen[0] === first && seen[1] === second)
        }
    }
}
