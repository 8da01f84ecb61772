import Foundation
import OneTapTesting
import Testing
@testable import OneTap

extension TokenVaultTests {
    // MARK: Single flight through the vault

    /// Two vaults in one process sharing one in-memory store (which the store's documentation allows) refresh an
    /// account one at a time: the second waits for the first's refresh lock, then finds the refreshed token, so
    /// the carrier is asked once and one refresh token is never sent twice (an attacker's read: the in-memory
    /// store took no lock at all).
    @Test(.timeLimit(.minutes(3))) func twoVaultsSharingAnInMemoryStoreRefreshOneAtATime() async throws {
        let refresher = MockRefresher()
        refresher.hold()
        let (first, second) = (vault(refresher), vault(refresher))
        try await first.store(expired())
        try await running(first) { first in
            try await running(second) { second in
                async let one = first.validToken(for: "u1")
                await refresher.waitForCalls(1)
                async let two = second.validToken(for: "u1")
                await second.flights.flight(for: "u1")?.waitForCallers(1)
                refresher.release()
                let tokens = try await [one, two].map { $0.value.reveal() }
                #expect(tokens == ["refreshed-1", "refreshed-1"])
            }
        }
        #expect(refresher.calls == 1)
    }

    @Test(arguments: [true, false])
    func thousandCallersOnAnExpiredTokenShareOneRefresh(succeeds: Bool) async throws {
        let refresher = MockRefresher(succeeds ? [] : [.failure(TokenError(.refreshFailed, message: "503"))])
        refresher.hold()
        let results = try await running(vault(refresher)) { vault in
            try await vault.store(expired())
            return await withTaskGroup(of: Result<String, TokenError>.self) { group in
                for _ in 0..<1000 {
                    group.addTask {
                        do {
                            return .success(try await vault.validToken(for: "u1").value.reveal())
                        } catch let error as TokenError {
                            return .failure(error)
                        } catch {
                            return .failure(TokenError(.storeFailed, account: "u1", message: "unexpected \(error)"))
                        }
                    }
                }
                await refresher.waitForCalls(1)
                let flight = await vault.flights.flight(for: "u1")
                #expect(flight != nil)
                await flight?.waitForCallers(1000)   // every caller joined before the answer
                refresher.release()
                var results: [Result<String, TokenError>] = []
                for await result in group { results.append(result) }
                return results
            }
        }
        #expect(refresher.calls == 1)
        #expect(results.count == 1000)
        if succeeds {
            #expect(Set(results.map { if case .success(let token) = $0 { token } else { "failed: \($0)" } }) == ["refreshed-1"])
            #expect(events.names.filter { $0 == "refreshed" }.count == 1)
        } else {
            let kinds = Set(results.map { result -> String in
                if case .failure(let error) = result { return error.kind.id }
                return "token"
            })
            // Joined the flight (refresh-failed) or arrived after it, during the back-off (backing-off).
            #expect(kinds.isSubset(of: ["refresh-failed", "backing-off"]) && kinds.contains("refresh-failed"), "\(kinds)")
            #expect(events.names.filter { $0 == "refresh-failed" }.count == 1)
        }
    }

    /// 10,000 callers on an expired token, half of them cancelled while waiting: one refresh, and every
    /// caller that was not cancelled gets its token.
    @Test func tenThousandCallersHalfCancelledShareOneRefresh() async throws {
        let refresher = MockRefresher()
        refresher.hold()
        let (tokens, cancelled) = try await running(vault(refresher)) { vault in
            try await vault.store(expired())
            let tasks = (0..<10_000).map { _ in Task { try await vault.validToken(for: "u1").value.reveal() } }
            await refresher.waitForCalls(1)
            for (index, task) in tasks.enumerated() where index % 2 == 0 { task.cancel() }
            refresher.release()
            var tokens = 0
            var cancelled = 0
            for task in tasks {
                do {
                    if try await task.value == "refreshed-1" { tokens += 1 }
                } catch is CancellationError {
                    cancelled += 1
                }
            }
            return (tokens, cancelled)
        }
        #expect(refresher.calls == 1)
        #expect(tokens + cancelled == 10_000 && tokens >= 5000)
    }

    @Test func cancellingOneWaiterCancelsNeitherTheRefreshNorTheOthers() async throws {
        let refresher = MockRefresher()
        refresher.hold()
        try await running(vault(refresher)) { vault in
            try await vault.store(expired())
            let cancelled = Task { try await vault.validToken(for: "u1") }
            let other = Task { try await vault.validToken(for: "u1") }
            await refresher.waitForCalls(1)
            cancelled.cancel()
            await #expect(throws: CancellationError.self) { try await cancelled.value }   // leaves at once
            refresher.release()
            #expect(try await other.value.value.reveal() == "refreshed-1")
        }
        #expect(refresher.calls == 1)
        #expect(try await stored() == "refreshed-1")
    }
}

extension TokenVaultTests {
    /// The table of flights on its own: one per account, background ones counted until they give up their
    /// slot, a replaced flight kept when the old one ends, everything answered when the vault stops.
    @Suite struct SingleFlightTests {
        @Test func oneFlightPerAccountAndAccountsApart() {
            var flights = SingleFlight()
            #expect(flights.isEmpty && flights.flight(for: "u1") == nil)
            let first = flights.begin("u1", from: .sample(), background: false)
            let other = flights.begin("u2", from: .sample("u2"), background: false)
            #expect(flights.flight(for: "u1") === first && flights.flight(for: "u2") === other)
            #expect(flights.unresolvedCount == 2)
            first.resolve(.success(.sample()))
            #expect(flights.unresolvedCount == 1)
            #expect(flights.flight(for: "u1") === first)   // answered, but its call still runs: it keeps its place
            flights.end(first)
            #expect(flights.flight(for: "u1") == nil && flights.flight(for: "u2") === other)
        }

        @Test func aReplacedFlightIsNotRemovedByItsOwnEnd() {
            var flights = SingleFlight()
            let old = flights.begin("u1", from: .sample(), background: false)
            let new = flights.begin("u1", from: .sample(version: 2), background: false)
            flights.end(old)
            #expect(flights.flight(for: "u1") === new)
        }

        @Test func backgroundFlightsAreCountedUntilTheyGiveUpTheirSlotOnce() {
            var flights = SingleFlight()
            let first = flights.begin("a", from: .sample("a"), background: true)
            _ = flights.begin("b", from: .sample("b"), background: true)
            let caller = flights.begin("c", from: .sample("c"), background: false)
            #expect(flights.backgroundUnderWay == 2)
            flights.releaseBackgroundSlot(of: first)
            flights.releaseBackgroundSlot(of: first)   // answered, then ended: counted down once
            flights.releaseBackgroundSlot(of: caller)   // a caller's flight held no slot
            #expect(flights.backgroundUnderWay == 1)
        }

        @Test func logoutMarksTheAccountsFlightOnly() {
            var flights = SingleFlight()
            let mine = flights.begin("u1", from: .sample(), background: false)
            let other = flights.begin("u2", from: .sample("u2"), background: false)
            flights.markLoggedOut("u1")
            flights.markLoggedOut("nobody")
            #expect(mine.loggedOut && !other.loggedOut)
        }

        @Test func stoppingAnswersEveryWaitingCallerAndForgetsEveryFlight() async throws {
            var flights = SingleFlight()
            let waiting = flights.begin("u1", from: .sample(), background: true)
            let answered = flights.begin("u2", from: .sample("u2"), background: false)
            answered.resolve(.success(.sample("u2", value: "A1")))
            let caller = Task { try await waiting.answer() }
            await waiting.waitForCallers(1)
            flights.resolveAll(TokenError(.notRunning, account: nil, message: "stopped"))
            await #expect { try await caller.value } throws: { ($0 as? TokenError)?.kind == .notRunning }
            #expect(try await answered.answer().value.reveal() == "A1")   // its answer stands
            #expect(flights.isEmpty && flights.backgroundUnderWay == 0)
        }
    }
}
