/// Routes around a carrier channel that is failing, openly: a circuit breaker per (carrier, flow).
///
/// Each channel keeps a sliding window of its last attempts. When at least
/// ``Configuration/minimumAttempts`` are in the window and the failure share reaches
/// ``Configuration/failureThreshold``, the circuit opens: plans skip the flow (straight to the next one)
/// until ``Configuration/coolDown`` has passed; then a few probe attempts are let through (one per
/// distinct client, at most ``Configuration/probes`` at once, each held at most
/// ``Configuration/probeTimeout`` from the client's first probe, however often it starts again: a client
/// that starts a probe and never reports holds one slot for a while, never the channel, and probes no
/// more for a cool-down after, or until the circuit opens or closes again). A probe is reserved when the
/// transition that entered it is applied, after ``admissions(at:)`` was read: logins that read the admissions
/// before the first reservation is applied (a burst of starts within a request's time) may each run the
/// channel once, so "at most ``Configuration/probes``" bounds the reservations, not such a burst. A successful
/// probe closes the circuit; a failed one opens it for another cool-down. User cancellations and switches do
/// not count. Thread-safe: share one across a server's requests. Time is the caller's (`at:`), so it is
/// deterministic in tests.
///
/// **Who may move it.** On a server the breaker is shared by every user, so no client may drive it:
/// - What the server observes counts in full: its exchange's time-outs and failed calls, and the
///   carrier's success with the number (a success counts only once its exchange succeeded).
/// - A client's word (its SDK's codes, time-outs and faults, and the carrier's failure answer to a token
///   the client supplied) counts once per distinct client (``ChannelClient``: app session, guest or
///   account, address block; sharing any of them is being the same client) in the window: a client's
///   newer report replaces its older one, so ten fake logins from one client are one failure.
/// - A probe failed by a client's word does not re-open the circuit for everyone: it frees the probe
///   slot and counts in the window like any client report; the circuit re-opens when the window's
///   distinct clients reach the opening rule again, or when the server sees a probe fail. A probe's
///   success closes it (with the server's exchange, a success is only ever the exchange's, never a
///   client's word).
/// A device's own coordinator ran the SDK itself, so its reports are observations (``apply(_:at:)``).
///
/// The session machine never calls it: the driver reads ``admissions(at:)`` before a start or a report,
/// hands the value to the machine, and applies the transition's ``LoginTransition/channelReports`` with
/// ``apply(_:at:)`` (a coordinator) or ``apply(_:reportedBy:at:)`` (a server) once the transition is
/// stored, never before its compare-and-swap succeeded.
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
        /// How many probes a half-open circuit lets through at once, each from a distinct client: 3.
        package var probes: Int
        /// How long a probe that has not reported holds its slot: 20 s (a one-tap flow's time limit, 8 s,
        /// and the exchange's, 5 s, with room to spare).
        package var probeTimeout: Duration

        /// Creates settings.
        /// - Parameters:
        ///   - window: Attempts kept; at least 1.
        ///   - minimumAttempts: Attempts needed before opening; at least 1.
        ///   - failureThreshold: The failure share that opens the circuit, 0 ... 1.
        ///   - coolDown: How long the circuit stays open.
        ///   - probes: Probes at once; at least 1.
        ///   - probeTimeout: How long a silent probe holds its slot.
        package init(
            window: Int = 20, minimumAttempts: Int = 10, failureThreshold: Double = 0.5, coolDown: Duration = .seconds(60), probes: Int = 3,
            probeTimeout: Duration = .seconds(20)
        ) {
            self.window = max(1, window)
            self.minimumAttempts = max(1, min(minimumAttempts, max(1, window)))
            self.failureThreshold = min(1, max(0, failureThreshold))
            self.coolDown = coolDown
            self.probes = max(1, probes)
            self.probeTimeout = max(.zero, probeTimeout)
        }
    }

    /// A channel's state.
    package enum CircuitState: Hashable, Sendable, CustomStringConvertible {
        /// Attempts go through.
        case closed
        /// Attempts are skipped until the instant.
        case open(until: Date)
        /// The cool-down passed; probes are (or may be) in flight.
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

    /// One attempt in a window: whether it failed, and the client whose word it is (nil: observed).
    private struct Attempt {
        var failed: Bool
        var client: ChannelClient?
    }

    /// A probe under way: whose it is (nil: this process's own) and when it started.
    private struct Probe {
        var client: ChannelClient?
        var startedAt: Date

        /// Whether it is the same client's (two of this process's own probes are).
        func isHeld(by other: ChannelClient?) -> Bool {
            switch (client, other) {
            case (nil, nil): true
            case (let mine?, let theirs?): mine.overlaps(theirs)
            default: false
            }
        }
    }

    private struct State {
        var outcomes: [Attempt] = []  // oldest first; cleared when the circuit opens
        var openUntil: Date? = nil
        var probes: [Probe] = []
        /// Clients whose probe ran out unreported, and until when they probe no more: a cool-down after the
        /// probe ran out, or until the circuit opens or closes again (the newest ``spentLimit``). Bounded in time,
        /// so that one abandoned probe never bars a whole address block (a /48 is one client) for good.
        var spent: [(client: ChannelClient, until: Date)] = []
        static let spentLimit = 256

        /// Brings back what a clock that has since gone back put further ahead than the rules allow, give or take
        /// a probe time-out (a slow request's instant, read before another request moved the channel on, is that
        /// much behind, and shortens nothing): an open circuit ends at most a cool-down and a probe time-out from
        /// now, a probe started at most a probe time-out from now, a spent client waits at most two probe
        /// time-outs and a cool-down. So a wall clock set back (a device's corrected by the network) never keeps
        /// a channel skipped for much longer than the rules say, counted from the first time the breaker is asked
        /// after it.
        mutating func settle(at now: Date, _ configuration: Configuration) {
            let ahead = now.addingTimeInterval(configuration.probeTimeout.seconds)
            let latestEnd = ahead.addingTimeInterval(configuration.coolDown.seconds)
            if let until = openUntil, until > latestEnd { openUntil = latestEnd }
            for index in probes.indices where probes[index].startedAt > ahead { probes[index].startedAt = ahead }
            let latestSpent = latestEnd.addingTimeInterval(configuration.probeTimeout.seconds)
            for index in spent.indices where spent[index].until > latestSpent { spent[index].until = latestSpent }
        }

        /// The probes still holding their slots at `now`.
        func live(at now: Date, timeout: Duration) -> [Probe] {
            probes.filter { now < $0.startedAt.addingTimeInterval(timeout.seconds) }
        }
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
    ///   - probes: How many probes a half-open circuit lets through at once, each from a distinct client;
    ///     at least 1. 3 by default.
    ///   - probeTimeout: How long a probe that has not reported holds its slot. 20 s by default.
    public init(
        window: Int = 20, minimumAttempts: Int = 10, failureThreshold: Double = 0.5, coolDown: Duration = .seconds(60), probes: Int = 3,
        probeTimeout: Duration = .seconds(20)
    ) {
        configuration = Configuration(
            window: window, minimumAttempts: minimumAttempts, failureThreshold: failureThreshold, coolDown: coolDown, probes: probes,
            probeTimeout: probeTimeout)
    }

    /// What the breaker says of every channel now, as the value the session machine takes: an open
    /// circuit is `rejected`; a half-open one is `probe` while fewer than ``Configuration/probes`` probes are
    /// under way, `rejected` while that many are. Reading reserves nothing: the probe is reserved when the
    /// transition that entered it is applied.
    /// - Parameter now: The time.
    /// - Returns: The admissions of the channels that are not plainly allowed.
    package func admissions(at now: Date) -> ChannelAdmissions {
        channels.withLock { channels in
            var admissions: [OneTapCore.Channel: ChannelAdmission] = [:]
            var index = channels.startIndex
            while index != channels.endIndex {
                defer { channels.formIndex(after: &index) }
                channels.values[index].settle(at: now, configuration)
                let (key, channel) = channels[index]
                guard let until = channel.openUntil else { continue }
                if now < until {
                    admissions[key] = .rejected
                } else if channel.live(at: now, timeout: configuration.probeTimeout).count >= configuration.probes {
                    admissions[key] = .rejected
                } else {
                    admissions[key] = .probe
                }
            }
            return ChannelAdmissions(admissions)
        }
    }

    /// Applies what a stored transition of this process's own login says of the channels (a device's
    /// coordinator, which ran the SDK itself): a probe reserved, attempts counted in full.
    /// - Parameters:
    ///   - reports: The transition's ``LoginTransition/channelReports``.
    ///   - now: The time.
    package func apply(_ reports: [ChannelReport], at now: Date) {
        apply(reports, client: nil, at: now)
    }

    /// Applies what a stored transition of a server's login says of the channels: what the server saw
    /// counts in full, the client's word once per client (see the type's notes).
    /// - Parameters:
    ///   - reports: The transition's ``LoginTransition/channelReports``.
    ///   - client: The client the report came from.
    ///   - now: The time.
    package func apply(_ reports: [ChannelReport], reportedBy client: ChannelClient, at now: Date) {
        apply(reports, client: client, at: now)
    }

    private func apply(_ reports: [ChannelReport], client: ChannelClient?, at now: Date) {
        for report in reports {
            switch report {
            case .probing(let channel): _ = admit(channel.flow, for: channel.carrier, reservedBy: client, at: now)
            case .ended(let channel, let action, let source):
                record(channel.flow, for: channel.carrier, action: action, reportedBy: source == .client ? client : nil, at: now)
            }
        }
    }

    /// Asks whether a flow may be attempted for a carrier now, reserving a half-open circuit's probe. A
    /// half-open circuit admits one probe per client (this process's own attempts are one client) and at
    /// most ``Configuration/probes`` at once; a probe that never reports frees its slot after
    /// ``Configuration/probeTimeout``.
    /// - Parameters:
    ///   - flow: The flow.
    ///   - carrier: The resolved carrier.
    ///   - client: Whose probe it is (a server's client); nil for this process's own attempt.
    ///   - now: The time.
    /// - Returns: allowed, probe or rejected. A server's reservation is applied after its transition was
    ///   stored, so its answer is advice: the client's earlier probe is replaced, never a second slot taken.
    package func admit(_ flow: LoginFlow, for carrier: Carrier, reservedBy client: ChannelClient? = nil, at now: Date) -> ChannelAdmission {
        channels.withLock { channels in
            let key = OneTapCore.Channel(carrier: carrier, flow: flow)
            channels[key]?.settle(at: now, configuration)
            guard var channel = channels[key], let until = channel.openUntil else { return .allowed }
            guard now >= until else { return .rejected }
            var live = channel.live(at: now, timeout: configuration.probeTimeout)
            for probe in channel.probes where !live.contains(where: { $0.startedAt == probe.startedAt && $0.isHeld(by: probe.client) }) {
                // Ran out unreported: no probe for that client for a cool-down after it ran out.
                let until = probe.startedAt.addingTimeInterval(configuration.probeTimeout.seconds + configuration.coolDown.seconds)
                if let spender = probe.client { channel.spent.append((spender, until)) }
            }
            channel.spent.removeAll { $0.until <= now }
            if channel.spent.count > State.spentLimit { channel.spent.removeFirst(channel.spent.count - State.spentLimit) }
            let held = live.first { $0.isHeld(by: client) }
            // Never by a device id alone: a stranger claiming the owner's would spend the owner.
            let spent = client.map { client in channel.spent.contains { $0.client.overlapsBeyondTheDevice(client) } } ?? false
            if spent || (client == nil && (held != nil || live.count >= configuration.probes)) {
                channel.probes = live
                channels[key] = channel
                return .rejected
            }
            live.removeAll { $0.isHeld(by: client) }
            let admitted = live.count < configuration.probes
            // A client starting again keeps its first probe's time: starting again never holds a slot longer.
            if admitted { live.append(Probe(client: client, startedAt: held?.startedAt ?? now)) }  // never past the limit, raced or not
            channel.probes = live
            channels[key] = channel
            return admitted ? .probe : .rejected
        }
    }

    /// Records how an attempt ended.
    /// - Parameters:
    ///   - flow: The flow.
    ///   - carrier: The resolved carrier.
    ///   - action: The action its result led to. `cancelled` and `switch` are the user's choice and are
    ///     not counted, nor is `progress`; `success` counts as a success; everything else as a failure.
    ///   - client: The client whose word it is, counted once in the window and never deciding a probe's
    ///     failure; nil for what this process observed itself.
    ///   - now: The time.
    package func record(_ flow: LoginFlow, for carrier: Carrier, action: OutcomeAction, reportedBy client: ChannelClient? = nil, at now: Date) {
        guard action != .progress else { return }
        guard action != .cancelled, action != .switch else {
            // The user's choice says nothing about the channel; a probe it answered frees its slot.
            channels.withLock { channels in
                let key = OneTapCore.Channel(carrier: carrier, flow: flow)
                channels[key]?.probes.removeAll { $0.isHeld(by: client) }
            }
            return
        }
        let attempt = Attempt(failed: action != .success, client: client)
        channels.withLock { channels in
            let key = OneTapCore.Channel(carrier: carrier, flow: flow)
            var channel = channels[key] ?? State()
            channel.settle(at: now, configuration)
            if let until = channel.openUntil, now >= until || !channel.probes.isEmpty {
                // The probe's answer decides, unless it is a client's word that it failed: that frees the
                // slot and counts in the window like any client report.
                if !attempt.failed {
                    channel = State()
                    channel.outcomes = [attempt]
                } else if client == nil {
                    channel.openUntil = now.addingTimeInterval(configuration.coolDown.seconds)
                    channel.outcomes = []
                    channel.probes = []
                    channel.spent = []
                } else {
                    channel.probes.removeAll { $0.isHeld(by: client) }
                    count(attempt, in: &channel, at: now)
                }
                channels[key] = channel
                return
            }
            if channel.openUntil != nil {
                return  // an attempt admitted before the circuit opened: already counted as open
            }
            count(attempt, in: &channel, at: now)
            channels[key] = channel
        }
    }

    /// Adds an attempt to a channel's window (a client's earlier attempt leaves it: one client, one
    /// place) and opens the circuit when the window meets the opening rule.
    private func count(_ attempt: Attempt, in channel: inout State, at now: Date) {
        if let client = attempt.client {
            channel.outcomes.removeAll { $0.client.map(client.overlaps) ?? false }
        }
        channel.outcomes.append(attempt)
        if channel.outcomes.count > configuration.window { channel.outcomes.removeFirst(channel.outcomes.count - configuration.window) }
        let failures = channel.outcomes.filter(\.failed).count
        if channel.outcomes.count >= configuration.minimumAttempts,
            Double(failures) / Double(channel.outcomes.count) >= configuration.failureThreshold
        {
            channel.openUntil = now.addingTimeInterval(configuration.coolDown.seconds)
            channel.outcomes = []
            channel.probes = []
            channel.spent = []
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
            let key = OneTapCore.Channel(carrier: carrier, flow: flow)
            channels[key]?.settle(at: now, configuration)
            guard let channel = channels[key], let until = channel.openUntil else { return .closed }
            return now < until ? .open(until: until) : .halfOpen
        }
    }
}
