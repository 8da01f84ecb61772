import Foundation
import Testing
@testable import OneTap

/// The sweep's queue: entries come out soonest first, whatever order they went in.
@Suite struct ExpiryQueueTests {
    @Test func entriesComeOutSoonestFirst() {
        var queue = ExpiryQueue<String>()
        #expect(queue.first == nil)
        #expect(queue.removeFirst() == nil)
        for (key, seconds) in [("c", 30.0), ("a", 10), ("e", 50), ("b", 20), ("d", 40), ("a2", 10)] {
            queue.insert(key, due: Date(timeIntervalSince1970: seconds))
        }
        #expect(queue.count == 6)
        #expect(queue.first?.due == Date(timeIntervalSince1970: 10))
        var out: [Double] = []
        while let entry = queue.removeFirst() { out.append(entry.due.timeIntervalSince1970) }
        #expect(out == [10, 10, 20, 30, 40, 50])
        #expect(queue.count == 0)
    }

    /// 2,000 random instants, taken out between insertions: always the smallest of those still in.
    @Test func randomInsertionsAndRemovalsKeepTheOrder() {
        var generator = SystemRandomNumberGenerator()
        var queue = ExpiryQueue<Int>()
        var still: [Double] = []
        for index in 0..<2000 {
            let seconds = Double(Int.random(in: 0..<500, using: &generator))
            queue.insert(index, due: Date(timeIntervalSince1970: seconds))
            still.append(seconds)
            if index % 3 == 2 {
                let smallest = still.min()!
                still.remove(at: still.firstIndex(of: smallest)!)
                #expect(queue.removeFirst()?.due.timeIntervalSince1970 == smallest)
            }
        }
        var rest: [Double] = []
        while let entry = queue.removeFirst() { rest.append(entry.due.timeIntervalSince1970) }
        #expect(rest == still.sorted())
    }
}
