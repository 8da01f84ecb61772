import Testing
import OneTapCore
@testable import OneTapInsights
import OneTapSupport

/// Intervals, against values computed apart (Python, the Wilson score formula; Newcombe 1998, table I).
@Suite struct EstimateTests {
    @Test(arguments: [
        (8, 10, 0.490_162, 0.943_318),
        (0, 10, 0.0, 0.277_533),
        (10, 10, 0.722_467, 1.0),
        (1, 1, 0.206_549, 1.0),
        (50, 100, 0.403_832, 0.596_168),
        (881, 1000, 0.859_459, 0.899_625),
    ])
    func wilson(successes: Int, trials: Int, low: Double, high: Double) {
        let estimate = Estimate.wilson(successes, of: trials)
        #expect(abs(estimate.value - Double(successes) / Double(trials)) < 1e-12)
        #expect(abs(estimate.low - low) < 1e-6)
        #expect(abs(estimate.high - high) < 1e-6)
        #expect(estimate.method == .wilson)
    }

    @Test func noTrialsIsAnExactZero() {
        #expect(Estimate.wilson(0, of: 0) == Estimate(value: 0, low: 0, high: 0, method: .exact))
    }

    @Test func anEstimatedShareAtItsEffectiveSizeIsWilsonsAtThatSize() {
        // p = 0.8 with the variance of 0.8 observed on 100 trials: the interval of 80 of 100.
        let estimate = Estimate.share(0.8, variance: 0.8 * 0.2 / 100, fallback: 5)
        let plain = Estimate.wilson(80, of: 100)
        #expect(abs(estimate.low - plain.low) < 1e-9)
        #expect(abs(estimate.high - plain.high) < 1e-9)
        #expect(estimate.method == .wilsonEffective)
        // No variance at 0 or 1: the fallback size.
        let certain = Estimate.share(1, variance: 0, fallback: 10)
        #expect(abs(certain.low - 0.722_467) < 1e-6)
        #expect(certain.high == 1)
    }

    @Test func aNormalIntervalIsTheValuePlusOrMinusTwoStandardErrorsAboveItsFloor() {
        let estimate = Estimate.normal(10, variance: 4)
        #expect(abs(estimate.low - (10 - 1.959_963_984_540_054 * 2)) < 1e-9)
        #expect(abs(estimate.high - (10 + 1.959_963_984_540_054 * 2)) < 1e-9)
        #expect(Estimate.normal(1, variance: 4).low == 0)
        #expect(Estimate.normal(5, variance: 0) == Estimate(value: 5, low: 5, high: 5, method: .exact))
        #expect(Estimate.normal(5, variance: .nan).method == .exact)
    }

    @Test func scalingKeepsTheMethod() {
        let scaled = Estimate.wilson(8, of: 10).scaled(by: 100)
        #expect(abs(scaled.value - 80) < 1e-9)
        #expect(abs(scaled.low - 49.0162) < 1e-3)
        #expect(scaled.method == .wilson)
    }
}
