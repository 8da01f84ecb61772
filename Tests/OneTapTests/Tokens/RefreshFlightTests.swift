import Foundation
import OneTapTesting
import Testing
@testable import OneTap

extension TokenVaultTests {
    /// One flight on its own: callers join and all get the one answer; a cancelled caller leaves alone;
    /// the first answer wins; a bounded wait ends empty at its limit.
    @Suite struct RefreshFlightTests {
        let clock = FakeClock()

        func flight(background: Bool = false) -> RefreshFlight {
            RefreshFlight("u1", from: .sample(), background: background)
        }

        @Test func everyCallerGetsTheOneAnswer() async throws {
            let flight = flight()
            let answers = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<100 { group.addTask { try await flight.answer().value.reveal() } }
                await flight.waitForCallers(100)
                flight.resolve(.success(.sample(value: "A1")))
                var answers: [String] = []
                for try await answer in group { answers.append(answer) }
                return answers
            }
            #expect(answers == Array(repeating: "A1", count: 100))
        }

        @Test func anErrorReachesEveryCaller() async throws {
            let flight = flight()
            let callers = (0..<3).map { _ in Task { try await flight.answer() } }
            await flight.waitForCallers(3)
            flight.resolve(.failure(TokenError(.refreshFailed, account: "u1", message: "503")))
            for caller in callers {
                await #expect { try await caller.value } throws: { ($0 as? TokenError)?.kind == .refreshFailed }
            }
        }

        @Test func aCancelledCallerLeavesAloneAndTheFlightGoesOn() async throws {
            let flight = flight()
            let cancelled = Task { try await flight.answer() }
            let other = Task { try await flight.answer() }
            await flight.waitForCallers(2)
            cancelled.cancel()
            await #expect(throws: CancellationError.self) { try await cancelled.value }   // at once, before any answer
            #expect(!flight.isResolved)
            flight.resolve(.success(.sample(value: "A1")))
            #expect(try await other.value.value.reveal() == "A1")
        }

        @Test func aCallerCancelledBeforeItParksLeavesAtOnce() async throws {
            let flight = flight()
            let gate = Gate()
            let caller = Task {
                await gate.wait()
                return try await flight.answer()
            }
            caller.cancel()
            gate.open()
            await #expect(throws: CancellationError.self) { try await caller.value }
            #expect(!flight.isResolved)
        }

        @Test func theFirstAnswerWinsAndLaterCallersGetItAtOnce() async throws {
            let flight = flight()
            flight.resolve(.success(.sample(value: "A1")))
            flight.resolve(.success(.sample(value: "LATE")))   // a late answer never reaches the callers
            flight.resolve(.failure(TokenError(.notRunning, account: "u1", message: "stopped")))
            #expect(flight.isResolved)
            #expect(try await flight.answer().value.reveal() == "A1")
        }

        @Test func aBoundedWaitEndsEmptyAtItsLimit() async throws {
            let flight = flight()
            let caller = Task { try await flight.answer(within: .seconds(30), on: clock) }
            await clock.waitForSleepers(1)
            clock.advance(by: .seconds(30))
            #expect(try await caller.value == nil)
            #expect(!flight.isResolved)   // the flight goes on without that caller
        }

        @Test func aBoundedWaitGetsAnAnswerThatComesInTime() async throws {
            let flight = flight()
            let caller = Task { try await flight.answer(within: .seconds(30), on: clock) }
            await flight.waitForCallers(1)
            flight.resolve(.success(.sample(value: "A1")))
            #expect(try await caller.value?.value.reveal() == "A1")
            #expect(clock.sleeperCount == 0)   // its limit was cancelled
        }

        @Test func flagsAndTheBackgroundSlot() {
            let flight = flight(background: true)
            #expect(!flight.loggedOut && !flight.timedOut && !flight.isResolved)
            flight.markLoggedOut()
            flight.markTimedOut()
            #expect(flight.loggedOut && flight.timedOut)
            #expect(flight.giveUpBackgroundSlot())
            #expect(!flight.giveUpBackgroundSlot())   // once
            #expect(!self.flight(background: false).giveUpBackgroundSlot())   // a caller's flight holds none
        }
    }
}
