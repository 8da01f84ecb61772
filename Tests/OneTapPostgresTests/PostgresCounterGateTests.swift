import Foundation
import OneTap
@testable import OneTapPostgres
import OneTapTesting
import Testing

/// The gate that keeps one process's updates of a counter off the pool's connections while they wait: no database.
/// A waiting update sleeps on the fake clock until its limit, so `waitForSleepers` says when it stands in line.
@Suite struct PostgresCounterGateTests {
    struct TimedOut: Error {}

    /// An update runs under the gate, says it entered, and holds its keys until `release` yields.
    static func update(
        _ name: String, _ keys: [Int64], _ gate: PostgresCounterGate, _ clock: FakeClock, entered: AsyncStream<String>.Continuation,
        release: AsyncStream<Void>? = nil
    ) async throws {
        try await gate.withKeys(keys, waitingUpTo: .seconds(5), on: clock, timeout: { TimedOut() }) {
            entered.yield(name)
            if let release { for await _ in release { break } }
        }
    }

    /// A gate, a fake clock, the stream the updates say they entered on, and the one that lets the first holder go.
    static func scene() -> (PostgresCounterGate, FakeClock, (AsyncStream<String>, AsyncStream<String>.Continuation), (AsyncStream<Void>, AsyncStream<Void>.Continuation)) {
        (PostgresCounterGate(), FakeClock(), AsyncStream.makeStream(of: String.self), AsyncStream.makeStream(of: Void.self))
    }

    @Test(.timeLimit(.minutes(3))) func updatesGoWhenTheirKeysAreFreeFirstComeFirstServedForEachKey() async throws {
        let (gate, clock, (entered, enter), (releaseA, freeA)) = Self.scene()
        var order = entered.makeAsyncIterator()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await Self.update("a", [1, 2], gate, clock, entered: enter, release: releaseA) }
            #expect(await order.next() == "a")
            group.addTask { try await Self.update("b", [2], gate, clock, entered: enter) }
            await clock.waitForSleepers(1)  // b waits for key 2
            group.addTask { try await Self.update("c", [3], gate, clock, entered: enter) }
            #expect(await order.next() == "c")  // key 3 is nobody's: c goes by
            group.addTask { try await Self.update("d", [3, 2], gate, clock, entered: enter) }
            await clock.waitForSleepers(2)  // d waits behind b for key 2, though b holds nothing yet
            group.addTask { try await Self.update("e", [3], gate, clock, entered: enter) }
            await clock.waitForSleepers(3)  // e waits behind d, who wants key 3 first
            freeA.yield()
            #expect(await order.next() == "b")
            #expect(await order.next() == "d")
            #expect(await order.next() == "e")
            try await group.waitForAll()
        }
    }

    @Test(.timeLimit(.minutes(3))) func anUpdatePastItsLimitOrCancelledLeavesTheLineAndTheNextGoes() async throws {
        let (gate, clock, (entered, enter), (releaseHolder, freeHolder)) = Self.scene()
        var order = entered.makeAsyncIterator()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await Self.update("holder", [7], gate, clock, entered: enter, release: releaseHolder) }
            #expect(await order.next() == "holder")
            let late = Task { try await Self.update("late", [7], gate, clock, entered: enter) }
            await clock.waitForSleepers(1)
            clock.advance(by: .seconds(5))
            await #expect(throws: TimedOut.self) { try await late.value }
            let cancelled = Task { try await Self.update("cancelled", [7], gate, clock, entered: enter) }
            await clock.waitForSleepers(1)
            cancelled.cancel()
            await #expect(throws: CancellationError.self) { try await cancelled.value }
            group.addTask { try await Self.update("next", [7], gate, clock, entered: enter) }
            await clock.waitForSleepers(1)
            freeHolder.yield()
            #expect(await order.next() == "next")  // neither left a key held
            try await group.waitForAll()
        }
        // And the key is free again.
        try await gate.withKeys([7], waitingUpTo: .seconds(5), on: clock, timeout: { TimedOut() }) {}
    }

    /// An update that leaves the line lets through the one behind it whose keys are free, at once: X waits for key 1
    /// (held) and 2, Y behind X for key 2 only; X past its limit, Y goes while key 1 is still held.
    @Test(.timeLimit(.minutes(3))) func anUpdateLeavingTheLineLetsTheNextGoWhenItsKeysAreFree() async throws {
        let (gate, clock, (entered, enter), (releaseHolder, freeHolder)) = Self.scene()
        var order = entered.makeAsyncIterator()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await Self.update("holder", [1], gate, clock, entered: enter, release: releaseHolder) }
            #expect(await order.next() == "holder")
            let x = Task { try await Self.update("x", [1, 2], gate, clock, entered: enter) }
            await clock.waitForSleepers(1)
            clock.advance(by: .seconds(1))
            group.addTask { try await Self.update("y", [2], gate, clock, entered: enter) }
            await clock.waitForSleepers(2)  // y waits behind x, who wants key 2 first
            clock.advance(by: .seconds(4))  // x's limit; y's is a second later
            await #expect(throws: TimedOut.self) { try await x.value }
            #expect(await order.next() == "y")  // key 1 still held
            freeHolder.yield()
            try await group.waitForAll()
        }
    }

    /// Runs `check` while an update of `held` holds its keys.
    static func whileHeld(_ held: [Int64], _ gate: PostgresCounterGate, _ clock: FakeClock, _ check: () -> Void) async throws {
        let (entered, enter) = AsyncStream.makeStream(of: String.self)
        let (release, free) = AsyncStream.makeStream(of: Void.self)
        var order = entered.makeAsyncIterator()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await Self.update("holder", held, gate, clock, entered: enter, release: release) }
            _ = await order.next()
            check()
            free.yield()
            try await group.waitForAll()
        }
    }

    /// A review of the unlocked answers (`PostgresSMSStore`): a take-back of an update whose `COMMIT` lost its answer
    /// (its transaction may still be committing, holding the locks) was answered from an unlocked read that could not
    /// yet see what it wrote, so it found nothing to take back. An update of keys another update holds may answer
    /// without the locks; not after an update of them left its outcome unknown, until one of them goes through (each
    /// key on its own) or the limit passes. A failure whose outcome is known unsettles nothing.
    @Test(.timeLimit(.minutes(3))) func anUpdateWhoseOutcomeIsUnknownLeavesItsKeysToTheLocks() async throws {
        let (gate, clock, _, _) = Self.scene()
        let limit = Duration.seconds(5)
        func answers(_ keys: [Int64]) -> Bool { gate.answersWithoutLocks(keys, on: clock, within: limit) }
        func fail(_ keys: [Int64], unknown: Bool) async {
            await #expect(throws: TimedOut.self) {
                try await gate.withKeys(keys, waitingUpTo: limit, on: clock, timeout: { TimedOut() }, unsettling: { _ in unknown }) { throw TimedOut() }
            }
        }
        #expect(!answers([1]), "nobody holds key 1: an update takes the locks")
        try await Self.whileHeld([1], gate, clock) { #expect(answers([1, 2]), "another holds key 1") }
        await fail([1, 2], unknown: false)
        try await Self.whileHeld([1], gate, clock) { #expect(answers([1]), "a failure whose outcome is known unsettles nothing") }
        await fail([1, 2], unknown: true)
        try await Self.whileHeld([1], gate, clock) { #expect(!answers([1]) && !answers([2, 1]), "keys 1 and 2 are unsettled") }
        try await Self.whileHeld([1, 2], gate, clock) {
            #expect(answers([1]), "an update of key 1 went through: key 1 is settled")
            #expect(!answers([2]) && !answers([1, 2]), "key 2 is not, until an update of it goes through")
        }
        try await Self.whileHeld([2], gate, clock) { #expect(answers([1, 2])) }
        await fail([3], unknown: true)
        try await Self.whileHeld([3], gate, clock) { #expect(!answers([3])) }
        clock.advance(by: .seconds(5))
        try await Self.whileHeld([3], gate, clock) { #expect(answers([3]), "past the limit the failed transaction has ended") }
    }
}
