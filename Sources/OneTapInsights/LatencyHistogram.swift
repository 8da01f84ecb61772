import OneTapCore
import OneTapSupport

/// Durations in milliseconds counted in log-spaced buckets, so quantiles of any number of logins take
/// fixed memory: exact below 128 ms, then 64 buckets per doubling (a bucket's width is at most 1/64 of
/// its lower bound, and a quantile is reported at the bucket's middle: within 1/128 of the true value,
/// and never outside the smallest and largest duration counted, so one duration reads back exactly),
/// up to 2^25 ms (9.3 hours); longer durations count in the last bucket.
public struct LatencyHistogram: Hashable, Sendable {
    /// Values below this are counted exactly.
    static let exact: Int64 = 128
    /// Sub-buckets per doubling above ``exact``: 2^6.
    static let subBucketBits: Int64 = 6
    /// The largest value told apart: 2^25 ms.
    static let limit: Int64 = 1 << 25
    /// 128 exact buckets, then 64 for each doubling from 2^7 to 2^25.
    static let bucketCount = Int(exact) + Int((25 - 7) * (1 << subBucketBits))

    private var buckets: [Int]
    /// How many durations were counted.
    public private(set) var count = 0
    /// The smallest and largest duration counted (after clamping to 0 ... 2^25 − 1).
    private var smallest = Int64.max, largest = Int64.min

    /// An empty histogram.
    public init() {
        buckets = []
    }

    /// The bucket of a value.
    @inline(__always)
    static func bucket(_ value: Int64) -> Int {
        let value = min(max(0, value), limit - 1)
        if value < exact { return Int(value) }
        let octave = Int64(63 - value.leadingZeroBitCount)  // 7 ... 24
        let sub = (value >> (octave - subBucketBits)) & ((1 << subBucketBits) - 1)
        return Int(exact) + Int(octave - 7) * (1 << Int(subBucketBits)) + Int(sub)
    }

    /// The lowest value of a bucket and its width.
    static func range(_ bucket: Int) -> (low: Int64, width: Int64) {
        if bucket < Int(exact) { return (Int64(bucket), 1) }
        let above = bucket - Int(exact)
        let octave = Int64(above >> Int(subBucketBits)) + 7
        let sub = Int64(above & ((1 << Int(subBucketBits)) - 1))
        let width = Int64(1) << (octave - subBucketBits)
        return ((Int64(1) << octave) + sub * width, width)
    }

    /// Counts a duration.
    /// - Parameter milliseconds: The duration; negative counts as 0.
    /// - Complexity: O(1); the first call allocates the buckets.
    public mutating func add(_ milliseconds: Int64) {
        if buckets.isEmpty { buckets = Array(repeating: 0, count: Self.bucketCount) }
        buckets[Self.bucket(milliseconds)] += 1
        count += 1
        let value = min(max(0, milliseconds), Self.limit - 1)
        smallest = min(smallest, value)
        largest = max(largest, value)
    }

    /// Adds another histogram's counts.
    /// - Parameter other: The other histogram.
    public mutating func merge(_ other: LatencyHistogram) {
        guard other.count > 0 else { return }
        if buckets.isEmpty { buckets = Array(repeating: 0, count: Self.bucketCount) }
        for index in other.buckets.indices { buckets[index] += other.buckets[index] }
        count += other.count
        smallest = min(smallest, other.smallest)
        largest = max(largest, other.largest)
    }

    /// The nearest-rank quantile: the smallest counted duration with at least `fraction` of all durations
    /// at or below it, reported at its bucket's middle.
    /// - Parameter fraction: 0 < fraction ≤ 1 (0.5 for the median, 0.95 for p95); a fraction past 1 reads as 1, one
    ///   at or below 0 as the smallest.
    /// - Returns: Milliseconds, or nil when nothing was counted or `fraction` is NaN.
    /// - Complexity: O(buckets).
    public func quantile(_ fraction: Double) -> Int64? {
        guard count > 0, !fraction.isNaN else { return nil }
        let rank = max(1, [Int].nearestRank(count: count, fraction))
        var seen = 0
        for (index, tally) in buckets.enumerated() where tally > 0 {
            seen += tally
            if seen >= rank {
                let (low, width) = Self.range(index)
                return min(largest, max(smallest, low + (width - 1) / 2))
            }
        }
        return nil
    }
}
