import Foundation

extension ChannelHealth {
    /// The breaker's settings.
    package struct Configuration: Hashable, Sendable {
        /// How many recent attempts the window holds: 20.
        package var window: Int
        /// The fewest attempts before the circuit may open: 10.
        package var minimumAttempts: Int
        /// The failure share that opens the circuit: 0.5.
        package var failureThreshold: Double
        /// How long an open circuit stays open before a probe: 60 s.
        package var coolDown: Duration
        /// How many probes a half-open circuit lets through at once, each from a distinct client: 3.
        package var probes: Int
        /// How long a probe that has not reported holds its slot: 20 s (a one-tap flow's time limit, 8 s,
        /// and the exchange's, 5 s, with room to spare).
        package var probeTimeout: Duration
        /// How long a client's word, and a success the server saw for a client, weigh: 120 s.
        package var clientSpan: Duration
        /// How long an attempt this process saw weighs: an hour (a device's timeouts of days ago do not add up with
        /// today's, while logins minutes apart that all fail still open the circuit).
        package var attemptSpan: Duration
        /// The most clients weighed at once per channel: 4,096 (the oldest leave first).
        package var clientCapacity: Int

        /// Creates settings.
        /// - Parameters:
        ///   - window: Attempts kept; at least 1.
        ///   - minimumAttempts: Attempts needed before opening; at least 1.
        ///   - failureThreshold: The failure share that opens the circuit, 0 ... 1 (with one failure at least); NaN
        ///     counts as the default, 0.5.
        ///   - coolDown: How long the circuit stays open.
        ///   - probes: Probes at once; at least 1.
        ///   - probeTimeout: How long a silent probe holds its slot.
        ///   - clientSpan: How long a client's word and a success seen for a client weigh.
        ///   - attemptSpan: How long an attempt this process saw weighs.
        ///   - clientCapacity: The most clients weighed at once per channel, 1 ... 2²⁰.
        package init(
            window: Int = 20, minimumAttempts: Int = 10, failureThreshold: Double = 0.5, coolDown: Duration = .seconds(60), probes: Int = 3,
            probeTimeout: Duration = .seconds(20), clientSpan: Duration = .seconds(120),
            attemptSpan: Duration = .seconds(3_600), clientCapacity: Int = 4_096
        ) {
            self.window = max(1, window)
            self.minimumAttempts = max(1, min(minimumAttempts, max(1, window)))
            self.failureThreshold = failureThreshold.isNaN ? 0.5 : min(1, max(0, failureThreshold))
            self.coolDown = coolDown
            self.probes = max(1, probes)
            self.probeTimeout = max(.zero, probeTimeout)
            self.clientSpan = max(.zero, clientSpan)
            self.attemptSpan = max(.zero, attemptSpan)
            self.clientCapacity = min(max(1, clientCapacity), 1 << 20)
        }
    }
}
