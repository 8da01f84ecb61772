/// How long to wait before refreshing again after transient failures: capped exponential back-off with
/// jitter. The jitter source is injected, so tests and benchmarks are deterministic.
public struct RefreshBackoff: Sendable {
    /// The wait after the first failure: 30 seconds.
    package var base: Duration
    /// The longest wait: 1 hour.
    package var cap: Duration
    /// Returns a factor in `0.5 ... 1.0` to scale each wait by (full jitter over the upper half).
    package var jitter: @Sendable () -> Double

    /// Creates a back-off.
    /// - Parameters:
    ///   - base: The wait after the first failure; 30 seconds.
    ///   - cap: The longest wait; 1 hour.
    ///   - jitter: A factor in `0.5 ... 1.0`; random by default. Values outside are clamped.
    public init(
        base: Duration = .seconds(30), cap: Duration = .seconds(3600),
        jitter: @escaping @Sendable () -> Double = { Double.random(in: 0.5...1.0) }
    ) {
        self.base = base
        self.cap = cap
        self.jitter = jitter
    }

    /// The wait after the `attempt`-th failure in a row (1-based): min(cap, base × 2^(attempt−1)) × jitter.
    /// - Parameter attempt: Failures in a row, from 1.
    /// - Returns: The wait in seconds.
    package func delay(afterFailure attempt: Int) -> Double {
        let exponent = Double(min(max(attempt, 1) - 1, 62))
        let raw = min(cap.seconds, base.seconds * pow2(exponent))
        return raw * min(1.0, max(0.5, jitter()))
    }

    private func pow2(_ exponent: Double) -> Double {
        var value = 1.0
        var remaining = Int(exponent)
        while remaining > 0 {
            value *= 2
            remaining -= 1
            if value > 1e18 { break }
        }
        return value
    }
}
