import OneTapCore
import OneTapSupport

/// A value with its 95 % interval, and the method that made the interval.
public struct Estimate: Hashable, Sendable, CustomStringConvertible {
    /// How an interval was made.
    public enum Method: String, Hashable, Sendable, CustomStringConvertible {
        /// The Wilson score interval of an observed share (successes of trials).
        case wilson
        /// The Wilson score interval of an estimated share, at its effective sample size p(1 − p) / Var,
        /// with the variance by the delta method from the sample sizes the estimate was made from.
        case wilsonEffective = "wilson-effective"
        /// The value ± 1.96 standard errors (a mean, a sum), the standard error by the delta method for an
        /// estimate.
        case normal
        /// No interval: the value is exact (nothing varies), or there was nothing to count.
        case exact

        /// The id, e.g. `"wilson"`.
        public var description: String { rawValue }
    }

    /// The value.
    public let value: Double
    /// The interval's lower end.
    public let low: Double
    /// The interval's upper end.
    public let high: Double
    /// How the interval was made.
    public let method: Method

    /// The two-sided 95 % normal quantile.
    public static let z = 1.959_963_984_540_054

    /// Creates an estimate.
    /// - Parameters:
    ///   - value: The value.
    ///   - low: The interval's lower end.
    ///   - high: The interval's upper end.
    ///   - method: How the interval was made.
    public init(value: Double, low: Double, high: Double, method: Method) {
        self.value = value
        self.low = min(low, value)
        self.high = max(high, value)
        self.method = method
    }

    /// An observed share, `successes` of `trials`, with its Wilson score interval.
    /// - Parameters:
    ///   - successes: How many succeeded.
    ///   - trials: Of how many; 0 gives the share 0 with no interval.
    /// - Returns: The share and its interval, within 0 ... 1.
    public static func wilson(_ successes: Int, of trials: Int) -> Estimate {
        guard trials > 0 else { return Estimate(value: 0, low: 0, high: 0, method: .exact) }
        let share = Double(successes) / Double(trials)
        let (low, high) = wilsonBounds(share, Double(trials))
        return Estimate(value: share, low: low, high: high, method: .wilson)
    }

    /// An estimated share with its variance, as a Wilson interval at the effective sample size
    /// p(1 − p) / variance (the sample size a plain share this certain would have had).
    /// - Parameters:
    ///   - share: The estimate, 0 ... 1.
    ///   - variance: Its variance.
    ///   - fallback: The sample size to use when the variance is 0 (the share is 0 or 1, or exact).
    /// - Returns: The share and its interval, within 0 ... 1.
    public static func share(_ share: Double, variance: Double, fallback: Double) -> Estimate {
        let share = min(1, max(0, share))
        let size = variance > 0 && share > 0 && share < 1 ? share * (1 - share) / variance : fallback
        guard size > 0, size.isFinite else { return Estimate(value: share, low: share, high: share, method: .exact) }
        let (low, high) = wilsonBounds(share, size)
        return Estimate(value: share, low: low, high: high, method: .wilsonEffective)
    }

    /// A value ± 1.96 standard errors.
    /// - Parameters:
    ///   - value: The value.
    ///   - variance: Its variance.
    ///   - floor: The lowest the interval may go (0 for a time or a cost).
    /// - Returns: The estimate.
    public static func normal(_ value: Double, variance: Double, floor: Double = 0) -> Estimate {
        guard variance > 0, variance.isFinite else { return Estimate(value: value, low: value, high: value, method: .exact) }
        let half = z * variance.squareRoot()
        return Estimate(value: value, low: max(floor, value - half), high: value + half, method: .normal)
    }

    /// The estimate scaled: a share of logins made a count or a cost.
    /// - Parameter factor: The factor (≥ 0).
    /// - Returns: Value and interval times the factor, by the same method.
    public func scaled(by factor: Double) -> Estimate {
        Estimate(value: value * factor, low: low * factor, high: high * factor, method: method)
    }

    static func wilsonBounds(_ share: Double, _ size: Double) -> (Double, Double) {
        let z2 = z * z
        let denominator = 1 + z2 / size
        let center = (share + z2 / (2 * size)) / denominator
        let half = z * (share * (1 - share) / size + z2 / (4 * size * size)).squareRoot() / denominator
        return (max(0, center - half), min(1, center + half))
    }

    /// `0.825 (0.776–0.865, wilson)`.
    public var description: String { "\(value) (\(low)–\(high), \(method))" }
}
