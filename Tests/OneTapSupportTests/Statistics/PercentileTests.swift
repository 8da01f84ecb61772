import Testing
@testable import OneTapSupport

/// The nearest-rank percentile, against ranks counted by hand: the value of rank ⌈n × p⌉ from 1.
@Suite struct PercentileTests {
    static let hundred = Array(1...100)

    /// The p99 of 1…100 is 99, not the largest (a benchmark review: the index `Int(n × p)` gave the rank above, so a
    /// p99 of 100 samples was their maximum).
    @Test(arguments: [(0.99, 99), (0.5, 50), (0.9, 90), (1.0, 100), (0.0, 1), (0.001, 1), (0.995, 100), (0.07, 7), (0.55, 55), (0.29, 29)])
    func ranksCountedByHand(fraction: Double, expected: Int) {
        #expect(Self.hundred.percentile(fraction) == expected)
    }

    @Test func aShortList() {
        #expect([10, 20, 30].percentile(0.5) == 20)   // rank ⌈1.5⌉ = 2
        #expect([10, 20, 30].percentile(0.34) == 20)  // rank ⌈1.02⌉ = 2
        #expect([10, 20, 30].percentile(0.33) == 10)  // rank ⌈0.99⌉ = 1
        #expect([7].percentile(0.99) == 7)
    }

    /// Nothing to read, or no fraction: nil, never a trap (`Int(.nan)` traps); a fraction past an end reads as that end.
    @Test func emptyNaNAndOutOfRange() {
        #expect([Int]().percentile(0.5) == nil)
        #expect(Self.hundred.percentile(.nan) == nil)
        #expect(Self.hundred.percentile(.infinity) == 100)
        #expect(Self.hundred.percentile(-.infinity) == 1)
        #expect(Self.hundred.percentile(7) == 100)
    }
}
