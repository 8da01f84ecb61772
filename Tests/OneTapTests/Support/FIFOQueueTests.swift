import Testing
@testable import OneTap

/// The queue under the server's bounded memories: first in, first out, across the compaction of its front.
@Suite struct FIFOQueueTests {
    @Test func elementsLeaveInTheOrderTheyCame() {
        var queue = FIFOQueue<Int>()
        #expect(queue.first == nil)
        #expect(queue.popFirst() == nil)
        for value in [3, 1, 2] { queue.append(value) }
        #expect(queue.count == 3)
        #expect(queue.first == 3)
        #expect(queue.popFirst() == 3)
        #expect(queue.popFirst() == 1)
        queue.append(9)
        #expect(queue.popFirst() == 2)
        #expect(queue.popFirst() == 9)
        #expect(queue.popFirst() == nil)
        #expect(queue.count == 0)
    }

    /// 5,000 in, 3,000 out (past the 1,024 at which the front is let go), 1,000 more in: the 3,000 left come out
    /// in order, 3,000 to 5,999.
    @Test func theOrderSurvivesLettingGoOfTheFront() {
        var queue = FIFOQueue<Int>()
        for value in 0..<5_000 { queue.append(value) }
        for expected in 0..<3_000 { #expect(queue.popFirst() == expected) }
        for value in 5_000..<6_000 { queue.append(value) }
        #expect(queue.count == 3_000)
        var out: [Int] = []
        while let value = queue.popFirst() { out.append(value) }
        #expect(out == Array(3_000..<6_000))
    }

    @Test func keepDropsWhatIsNoLongerLiveAndKeepsTheOrder() {
        var queue = FIFOQueue<Int>()
        for value in 0..<10 { queue.append(value) }
        _ = queue.popFirst()
        _ = queue.popFirst()
        queue.keep { $0 % 3 != 0 }
        #expect(queue.count == 5)
        var out: [Int] = []
        while let value = queue.popFirst() { out.append(value) }
        #expect(out == [2, 4, 5, 7, 8])
    }

    @Test func updateChangesOnlyWhatIsStillQueued() {
        var queue = FIFOQueue<(name: String, at: Int)>()
        for name in ["a", "b", "c"] { queue.append((name, 1)) }
        _ = queue.popFirst()
        queue.update { $0.at = 7 }
        #expect(queue.popFirst().map { "\($0.name)\($0.at)" } == "b7")
        #expect(queue.popFirst().map { "\($0.name)\($0.at)" } == "c7")
    }

    @Test func removeAllEmptiesIt() {
        var queue = FIFOQueue<Int>()
        for value in 0..<3 { queue.append(value) }
        queue.removeAll()
        #expect(queue.count == 0)
        #expect(queue.first == nil)
        queue.append(4)
        #expect(queue.popFirst() == 4)
    }
}
