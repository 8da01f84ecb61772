import Testing
import OneTapCore
@testable import OneTapInsights
import OneTapSupport

@Suite struct LatencyHistogramTests {
    /// The nearest-rank quantile of a list: the smallest value with at least `fraction` of them at or below.
    static func nearestRank(_ values: [Int64], _ fraction: Double) -> Int64 {
        let sorted = values.sorted()
        let rank = max(1, Int((fraction * Double(sorted.count)).rounded(.up)))
        return sorted[rank - 1]
    }

    @Test(arguments: [0.5, 0.9, 0.95, 0.99, 1.0])
    func quantilesAreWithinABucketOfTheExactOnes(fraction: Double) {
        var random = SplitMix64(seed: 7)
        var histogram = LatencyHistogram()
        var values: [Int64] = []
        for _ in 0..<5000 {
            // Log-uniform from 1 ms to about 10 minutes.
            let value = Int64(pow2(Double(random.next() % 10_000) / 10_000 * 19.2))
            values.append(value)
            histogram.add(value)
        }
        let exact = Self.nearestRank(values, fraction)
        let reported = try! #require(histogram.quantile(fraction))
        #expect(abs(Double(reported - exact)) <= Double(exact) / 128 + 1, "p\(fraction): \(reported) vs \(exact)")
    }

    @Test func smallValuesAreExact() {
        var histogram = LatencyHistogram()
        for value in [3, 1, 4, 1, 5, 9, 2, 6] as [Int64] { histogram.add(value) }
        #expect(histogram.count == 8)
        #expect(histogram.quantile(0.5) == 3)  // sorted 1 1 2 3 4 5 6 9: rank 4
        #expect(histogram.quantile(1) == 9)
        #expect(histogram.quantile(0.01) == 1)
    }

    /// A fraction that is no number answers nil, one beyond an end reads as that end (a standards audit: `Int(.nan)`
    /// trapped inside this public call).
    @Test func aFractionThatIsNoNumberAnswersNil() {
        var histogram = LatencyHistogram()
        for value in [3, 1, 4] as [Int64] { histogram.add(value) }
        #expect(histogram.quantile(.nan) == nil)
        #expect(histogram.quantile(.infinity) == 4)
        #expect(histogram.quantile(-1) == 1)
        #expect(histogram.quantile(1e300) == 4)
    }

    @Test func aQuantileNeverLeavesTheCountedRange() {
        var one = LatencyHistogram()
        one.add(38_000)
        #expect(one.quantile(0.5) == 38_000)
        #expect(one.quantile(0.95) == 38_000)
        var two = LatencyHistogram()
        two.add(2000)
        two.add(2001)
        #expect(two.quantile(0.5).map { (2000...2001).contains($0) } == true)
    }

    @Test func emptyHasNoQuantileAndMergeAddsCounts() {
        var empty = LatencyHistogram()
        #expect(empty.quantile(0.5) == nil)
        var other = LatencyHistogram()
        for value in [100, 200, 300] as [Int64] { other.add(value) }
        empty.merge(other)
        empty.merge(LatencyHistogram())
        #expect(empty.count == 3)
        #expect(abs(Double(empty.quantile(0.5)! - 200)) <= 2)
    }

    @Test func outOfRangeValuesAreClampedNotTrapped() {
        var histogram = LatencyHistogram()
        histogram.add(-5)
        histogram.add(.max)
        #expect(histogram.quantile(0.5) == 0)
        #expect(histogram.quantile(1)! >= (1 << 25) - (1 << 19))
    }

    @Test func everyBucketCoversItsValues() {
        for value in [0, 127, 128, 129, 255, 256, 1000, 4095, 4096, 1 << 20, (1 << 25) - 1] as [Int64] {
            let (low, width) = LatencyHistogram.range(LatencyHistogram.bucket(value))
            #expect(low <= value && value < low + width, "\(value) in [\(low), \(low + width))")
            #expect(Double(width) <= max(1, Double(low) / 64))
        }
    }
}

private func pow2(_ exponent: Double) -> Double {
    var result = 1.0
    var remaining = exponent
    while remaining >= 1 { result *= 2; remaining -= 1 }
    // 2^f for 0 ≤ f < 1 by its series: accurate enough for test data.
    let ln2 = 0.693_147_180_559_945
    var term = 1.0, sum = 1.0
    for n in 1..<20 { term *= remaining * ln2 / Double(n); sum += term }
    return result * sum
}
