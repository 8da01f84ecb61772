/// Routes around a carrier channel that is failing, openly: a circuit breaker per (carrier, flow).
///
/// Each channel keeps a sliding window of its last attempts. When at least
/// ``Configuration/minimumAttempts`` are in the window and the failure share reaches
/// ``Configuration/failureThreshold``, the circuit opens: plans skip the flow (straight to the next one)
/// until ``Configuration/coolDown`` has passed; then one probe attempt is let through. A successful probe
/// closes the circuit; a failed one opens it for another cool-down. User cancellations and switches do
/// not count. Thread-safe: share one across a server's requests. Time is the caller's (`at:`), so it is
/// deterministic in tests.
///
/// The session machine never calls it: the driver reads ``admissions(at:)`` before a start or a report,
/// hands the value to the machine, and applies the transition's ``LoginTransition/channelReports`` with
/// ``apply(_:at:)`` once the transition is stored.
public final class ChannelHealth: Sendable {
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

        /// Creates settings.
        /// - Parameters:
        ///   - window: Attempts kept; at least 1.
        ///   - minimumAttempts: Attempts needed before opening; at least 1.
        ///   - failureThreshold: The failure share that opens the circuit, 0 ... 1.
        ///   - coolDown: How long the circuit stays open.
        package init(window: Int = 20, minimumAttempts: Int = 10, failureThreshold: Double = 0.5, coolDown: Duration = .seconds(60)) {
            self.window = max(1, window)
            self.minimumAttempts = max(1, min(minimumAttempts, max(1, window)))
            self.failureThreshold = min(1, max(0, failureThreshold))
            self.coolDown = coolDown
        }
    }

    /// A channel's state.
    package enum CircuitState: Hashable, Sendable, CustomStringConvertible {
        /// Attempts go through.
        case closed
        /// Attempts are skipped until the instant.
        case open(until: Date)
        /// The cool-down passed; one probe is (or may be) in flight.
        case halfOpen

        /// A readable form, for messages and logs.
        package var description: String {
            switch self {
            case .closed: "closed"
            case .open(let until): "open until \(until)"
            case .halfOpen: "half-open"
            }
        }
    }

    private struct State {
        var outcomes: [Bool] = []  // true = failure, oldest first
        var openUntil: Date? = nil
        var probeStartedAt: Date? = nil
    }

    /// The settings.
    package let configuration: Configuration
    private let channels = LockedValue<[OneTapCore.Channel: State]>([:])

    /// Creates a tracker.
    /// - Parameters:
    ///   - window: How many recent attempts of a channel count; at least 1. 20 by default.
    ///   - minimumAttempts: The fewest attempts before the circuit may open; at least 1, at most `window`.
    ///     10 by default.
    ///   - failureThreshold: The failure share that opens the circuit, 0 ... 1. 0.5 by default.
    ///   - coolDown: How long an open circuit stays open before a probe. 60 s by default.
    public init(window: Int = 20, minimumAttempts: Int = 10, failureThreshold: Double = 0.5, coolDown: Duration = .seconds(60)) {
        configuration = Configuration(window: window, minimumAttempts: minimumAttempts, failureThreshold: failureThreshold, coolDown: coolDown)
    }

    /// What the breaker says of every channel now, as the value the session machine takes: an open
    /// circuit is `rejected`; a half-open one is `probe` while no probe is under way, `rejected` while one
    /// is. Reading reserves nothing: the probe is reserved when the transition that entered it is applied.
    /// - Parameter now: The time.
    /// - Returns: The admissions of the channels that are not plainly allowed.
    package func admissions(at now: Date) -> ChannelAdmissions {
        channels.withLock { channels in
            var admissions: [OneTapCore.Channel: ChannelAdmission] = [:]
            for (key, channel) in channels {
                guard let until = channel.openUntil else { continue }
                if now < until {
                    admissions[key] = .rejected
                } else if let started = channel.probeStartedAt, now < started.addingTimeInterval(configuration.coolDown.seconds) {
                    admissions[key] = .rejected
                } else {
                    admissions[key] = .probe
                }
            }
            return ChannelAdmissions(admissions)
        }
    }

    /// Applies what a stored transition says of the channels: a probe reserved, attempts counted.
    /// - Parameters:
    ///   - reports: The transition's ``LoginTransition/channelReports``.
    ///   - now: The time.
    package func apply(_ reports: [ChannelReport], at now: Date) {
        for report in reports {
            switch report {
            case .probing(let channel): _ = admit(channel.flow, for: channel.carrier, at: now)
            case .ended(let channel, let action): record(channel.flow, for: channel.carrier, action: action, at: now)
            }
        }
    }

    /// Asks whether a flow may be attempted for a carrier now, reserving a half-open circuit's probe. A
    /// half-open circuit admits one probe at a time (a probe that never reports is replaced after a
    /// cool-down).
    /// - Parameters:
    ///   - flow: The flow.
    ///   - carrier: The resolved carrier.
    ///   - now: The time.
    /// - Returns: allowed, probe or rejected.
    package func admit(_ flow: LoginFlow, for carrier: Carrier, at now: Date) -> ChannelAdmission {
        channels.withLock { channels in
            let key = OneTapCore.Channel(carrier: carrier, flow: flow)
            guard var channel = channels[key], let until = channel.openUntil else { return .allowed }
            guard now >= until else { return .rejected }
            if let started = channel.probeStartedAt, now < started.addingTimeInterval(configuration.coolDown.seconds) {
                return .rejected
            }
            channel.probeStartedAt = now
            channels[key] = channel
            return .probe
        }
    }

    /// Records how an attempt ended.
    /// - Parameters:
    ///   - flow: The flow.
    ///   - carrier: The resolved carrier.
    ///   - action: The action its result led to. `cancelled` and `switch` are the user's choice and are
    ///     not counted, nor is `progress`; `success` counts as a success; everything else as a failure.
    ///   - now: The time.
    package func record(_ flow: LoginFlow, for carrier: Carrier, action: OutcomeAction, at now: Date) {
        guard action != .progress else { return }
        guard action != .cancelled, action != .switch else {
            // The user's choice says nothing about the channel; a probe it answered frees the slot.
            channels.withLock { channels in
                let key = OneTapCore.Channel(carrier: carrier, flow: flow)
                if channels[key]?.probeStartedAt != nil { channels[key]?.probeStartedAt = nil }
            }
            return
        }
        let failed = action != .success
        channels.withLock { channels in
            let key = OneTapCore.Channel(carrier: carrier, flow: flow)
            var channel = channels[key] ?? State()
            if let until = channel.openUntil, now >= until || channel.probeStartedAt != nil {
                // The probe's answer decides.
                if failed {
                    channel.openUntil = now.addingTimeInterval(configuration.coolDown.seconds)
                } else {
                    channel = State()
                    channel.outcomes = [false]
                }
                channel.probeStartedAt = nil
                channels[key] = channel
                return
            }
            if channel.openUntil != nil {
                return  // an attempt admitted before the circuit opened: already counted as open
            }
            channel.outcomes.append(failed)
            if channel.outcomes.count > configuration.window { channel.outcomes.removeFirst(channel.outcomes.count - configuration.window) }
            let failures = channel.outcomes.filter { $0 }.count
            if channel.outcomes.count >= configuration.minimumAttempts,
                Double(failures) / Double(channel.outcomes.count) >= configuration.failureThreshold
            {
                channel.openUntil = now.addingTimeInterval(configuration.coolDown.seconds)
            }
            channels[key] = channel
        }
    }

    /// A channel's state now.
    /// - Parameters:
    ///   - flow: The flow.
    ///   - carrier: The carrier.
    ///   - now: The time.
    /// - Returns: closed, open or half-open.
    package func state(of flow: LoginFlow, for carrier: Carrier, at now: Date) -> CircuitState {
        channels.withLock { channels in
            guard let channel = channels[OneTapCore.Channel(carrier: carrier, flow: flow)], let until = channel.openUntil else { return .closed }
            return now < until ? .open(until: until) : .halfOpen
        }
    }
}
