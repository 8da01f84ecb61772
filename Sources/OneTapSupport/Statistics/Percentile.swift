extension RandomAccessCollection where Index == Int {
    /// A percentile of values sorted in ascending order, by the nearest rank below: the value at
    /// `Int(count × fraction)` (the last for 1), or nil when there are none. What the flood checks and
    /// the benchmarks report latencies with.
    /// - Parameter fraction: 0.5 for the median, 0.99 for the 99th percentile; 0 ... 1.
    /// - Returns: The value, or nil for an empty collection.
    /// - Complexity: O(1).
    package func percentile(_ fraction: Double) -> Element? {
        guard !isEmpty else { return nil }
        return self[startIndex + Swift.min(count - 1, Swift.max(0, Int(Double(count) * fraction)))]
    }
}
