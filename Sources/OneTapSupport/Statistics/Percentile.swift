extension RandomAccessCollection where Index == Int {
    /// A percentile of values sorted in ascending order, by the nearest rank: the smallest value with at least
    /// `fraction` of the values at or below it, the value of rank ⌈count × fraction⌉ counted from 1 (the first for 0,
    /// the last for 1; the 99th of 100 values for 0.99, not the largest). What the flood checks and the benchmarks
    /// report latencies with.
    /// - Parameter fraction: 0.5 for the median, 0.99 for the 99th percentile; 0 ... 1 (beyond, the nearest end).
    /// - Returns: The value, or nil for an empty collection or a NaN fraction.
    /// - Complexity: O(1).
    package func percentile(_ fraction: Double) -> Element? {
        guard !isEmpty, !fraction.isNaN else { return nil }
        return self[startIndex + Swift.max(0, Self.nearestRank(count: count, fraction) - 1)]
    }

    /// ⌈count × fraction⌉ with `fraction` clamped to 0 ... 1, a product within a few ulps of a whole number taken as
    /// that number (0.07 × 100 is 7.000000000000001 in binary, rank 7, not 8).
    /// - Parameters:
    ///   - count: How many values.
    ///   - fraction: The fraction (not NaN).
    /// - Returns: The rank, 0 ... count.
    package static func nearestRank(count: Int, _ fraction: Double) -> Int {
        let product = Double(count) * Swift.min(1, Swift.max(0, fraction))
        let whole = product.rounded()
        return Int(abs(product - whole) <= whole.ulp * 4 ? whole : product.rounded(.up))
    }
}
