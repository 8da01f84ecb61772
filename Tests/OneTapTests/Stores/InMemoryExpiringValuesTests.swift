import Foundation
import Testing
@testable import OneTap

/// Values kept until an instant: read as absent once past it, swept by what is due (the sweep's queue stays
/// as large as the table, however often a value is kept longer), removed as soon as they expire whether kept
/// longer or shorter since they were first queued.
@Suite struct InMemoryExpiringValuesTests {
    static func at(_ seconds: Double) -> Date { Date(timeIntervalSince1970: seconds) }

    @Test func aValuePastItsKeepUntilReadsAsAbsentAndIsSwept() {
        var values = InMemoryExpiringValues<String, Int>()
        values.set("a", 1, keepUntil: Self.at(100))
        values.set("b", 2, keepUntil: Self.at(200))
        #expect(values.value("a", at: Self.at(100))?.value == 1)
        #expect(values.value("a", at: Self.at(101)) == nil)
        #expect(values.sweep(before: Self.at(100), limit: .max) == 0, "kept until 100 is still kept at 100")
        #expect(values.sweep(before: Self.at(150), limit: .max) == 1)
        #expect(values.count == 1)
        #expect(values.value("b", at: Self.at(150))?.value == 2)
    }

    /// A value kept longer since it was queued is not removed when its first time passes, and is when its new one does.
    @Test func aValueKeptLongerIsSweptAtItsNewTime() {
        var values = InMemoryExpiringValues<String, Int>()
        values.set("a", 1, keepUntil: Self.at(100))
        values.set("a", 2, keepUntil: Self.at(300))
        #expect(values.sweep(before: Self.at(200), limit: .max) == 0)
        #expect(values.value("a", at: Self.at(200))?.value == 2)
        #expect(values.sweep(before: Self.at(301), limit: .max) == 1)
        #expect(values.count == 0)
    }

    /// A value kept until the distant future is never queued (the review of 2026-12-04: each running merge's
    /// journal left one entry in the queue that no sweep ever reached), and is queued once it is kept until a
    /// time that comes, whichever way it got there.
    @Test func aValueKeptUntilTheDistantFutureIsNeverQueued() {
        var values = InMemoryExpiringValues<String, Int>()
        values.set("running", 1, keepUntil: .distantFuture)
        #expect(values.queued == 0)
        values.set("running", 2, keepUntil: Self.at(100))
        #expect(values.queued == 1)
        #expect(values.sweep(before: Self.at(101), limit: .max) == 1)
        #expect(values.queued == 0 && values.count == 0)
        // Queued at a time, then kept until the distant future: its entry goes at that time and is not put back.
        values.set("reopened", 1, keepUntil: Self.at(100))
        values.set("reopened", 2, keepUntil: .distantFuture)
        #expect(values.sweep(before: Self.at(200), limit: .max) == 0)
        #expect(values.queued == 0 && values.value("reopened", at: Self.at(200))?.value == 2)
    }

    /// A value kept shorter than it was queued is swept at its shorter time.
    @Test func aValueKeptShorterIsSweptAtItsShorterTime() {
        var values = InMemoryExpiringValues<String, Int>()
        values.set("a", 1, keepUntil: Self.at(300))
        values.set("a", 2, keepUntil: Self.at(100))
        #expect(values.sweep(before: Self.at(150), limit: .max) == 1)
        #expect(values.count == 0)
        #expect(values.sweep(before: Self.at(400), limit: .max) == 0, "the first queue entry is dropped, not counted")
        #expect(values.queued == 0)
    }

    /// A value removed and kept again is swept once, at its new time.
    @Test func aValueRemovedAndKeptAgainIsSweptOnce() {
        var values = InMemoryExpiringValues<String, Int>()
        values.set("a", 1, keepUntil: Self.at(100))
        values.set("a", nil, keepUntil: Self.at(100))
        values.set("a", 2, keepUntil: Self.at(200))
        #expect(values.sweep(before: Self.at(150), limit: .max) == 0)
        #expect(values.value("a", at: Self.at(150))?.value == 2)
        #expect(values.sweep(before: Self.at(250), limit: .max) == 1)
        #expect(values.count == 0 && values.queued == 0)
    }

    @Test func theLimitBoundsOneSweep() {
        var values = InMemoryExpiringValues<Int, Int>()
        for key in 0..<10 { values.set(key, key, keepUntil: Self.at(Double(key))) }
        #expect(values.sweep(before: Self.at(100), limit: 4) == 4)
        #expect(values.count == 6)
        #expect(values.value(3, at: Self.at(0)) == nil && values.value(4, at: Self.at(0))?.value == 4, "the soonest went first")
        #expect(values.sweep(before: Self.at(100), limit: .max) == 6)
    }

    /// One counter updated 10,000 times, each keeping it a second longer: the queue holds one entry for it.
    @Test func aValueKeptLongerOverAndOverIsQueuedOnce() {
        var values = InMemoryExpiringValues<String, Int>()
        for second in 0..<10_000 { values.set("hot", second, keepUntil: Self.at(Double(second) + 60)) }
        #expect(values.queued == 1)
        #expect(values.sweep(before: Self.at(5_000), limit: .max) == 0)
        #expect(values.queued == 1)
    }
}
