/// Routes around a carrier channel that is failing, openly: a circuit breaker per (carrier, flow).
///
/// Two bodies of evidence, one opening rule (at least ``Configuration/minimumAttempts``, and a failure share of at
/// least ``Configuration/failureThreshold``, with one failure at least), either opens the circuit:
/// - **What this process saw**: a sliding window of its last ``Configuration/window`` attempts within the last
///   ``Configuration/attemptSpan`` (an hour: a device's timeouts of days ago do not add up with today's), each counted in
///   full (a device's coordinator ran the SDK itself; a server, its exchange's answers and time-outs, and the
///   carrier's success with the number, once its exchange succeeded).
/// - **Clients' words**, weighed against the users the server saw succeed: over the last
///   ``Configuration/clientSpan`` (120 s), each client holds one place, its newest outcome. A failure it told (its
///   SDK's codes, time-outs and faults, the carrier's failure answer to a token it supplied) is placed by its app
///   session, guest or account and address blocks (``ChannelClient``; sharing any is being the same client), so ten
///   fake logins from one client, or from one address block, are one word; a success the server saw is placed by the
///   user's app session and identity alone, so users behind one carrier NAT address are each a place and a
///   stranger's word from their address replaces none. The rule counts failing clients: at least
///   ``Configuration/minimumAttempts``, and (at the default threshold) as many as the users seen succeeding in that
///   span: strangers need an address block for each such user this process saw. Words are heard while the circuit is closed, and
///   while it is half open from a live probe's own client only (none in a cool-down). Past
///   ``Configuration/clientCapacity`` places the oldest failure leaves first.
///
/// An open circuit is skipped (plans go straight to the next flow) until ``Configuration/coolDown`` has passed;
/// then a few probe attempts are let through (one per distinct client, at most ``Configuration/probes`` at once,
/// each held at most ``Configuration/probeTimeout`` from the client's first probe, however often it starts again:
/// a client that starts a probe and never reports, or cancels it, or says it failed, holds one slot for a while,
/// never the channel, and takes no slot after until the circuit opens or closes again). A
/// reservation refused is advice on a server: that client's login still runs the flow, without a slot, and is not
/// heard while the circuit is half open. A probe is reserved when the
/// transition that entered it is applied, after ``admissions(at:)`` was read: logins that read the admissions
/// before the first reservation is applied (a burst of starts within a request's time) may each run the
/// channel once, so "at most ``Configuration/probes``" bounds the reservations, not such a burst.
///
/// A probe's success closes the circuit, unless clients' words still meet the rule against the clients seen
/// succeed: then probing goes on until the successes outweigh them (or the words age out), so strangers who
/// opened a circuit cannot open it again with the same addresses. A probe failure this process saw re-opens it
/// for another cool-down. A client's word that its probe failed re-opens nothing. So a client-told outage, once the
/// circuit has opened, keeps it half open (a few probes at once) until it ends. User cancellations and switches do
/// not count. Thread-safe: share one
/// across a server's requests. Time is the caller's (`at:`), so it is deterministic in tests.
///
/// The session machine never calls it: the driver reads ``admissions(at:)`` before a start or a report,
/// hands the value to the machine, and applies the transition's ``LoginTransition/channelReports`` with
/// ``apply(_:at:)`` (a coordinator) or ``apply(_:reportedBy:at:)`` (a server) once the transition is
/// stored, never before its compare-and-swap succeeded.
public final class ChannelHealth: Sendable {
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

    /// One attempt this process saw, in its window: whether it failed.
    private struct Attempt {
        var failed: Bool
        /// When it ended: an attempt older than ``Configuration/attemptSpan`` weighs no more.
        var at: Date
    }

    /// A probe under way: whose it is (nil: this process's own) and when it started.
    private struct Probe {
        var client: ChannelClient?
        var startedAt: Date

        /// Whether it is the same client's (two of this process's own probes are), by what a stranger cannot claim:
        /// a device id alone makes no two clients one here.
        func isHeld(by other: ChannelClient?) -> Bool {
            switch (client, other) {
            case (nil, nil): true
            case (let mine?, let theirs?): mine.overlapsBeyondTheDevice(theirs)
            default: false
            }
        }
    }

    private struct State {
        var outcomes: [Attempt] = []  // what this process saw, oldest first; cleared when the circuit opens
        /// Clients' words, and the successes and failures the server saw for clients (kept across openings).
        var clients = ClientLedger()
        var openUntil: Date? = nil
        var probes: [Probe] = []
        /// Clients whose probe ran out unreported, or which cancelled it or said it failed: they take no probe slot
        /// until the circuit opens or closes again. On a server that is advice: their logins still run the flow,
        /// without a slot, and a success the server sees for them still counts.
        var spent = SpentClients()

        /// Brings back what a clock that has since gone back put further ahead than the rules allow, give or take
        /// a probe time-out (a slow request's instant, read before another request moved the channel on, is that
        /// much behind, and shortens nothing): an open circuit ends at most a cool-down and a probe time-out from
        /// now, a probe started at most a probe time-out from now. So a wall clock set back (a device's corrected by the network) never keeps
        /// a channel skipped for much longer than the rules say, counted from the first time the breaker is asked
        /// after it.
        mutating func settle(at now: Date, _ configuration: Configuration) {
            let ahead = now.addingTimeInterval(configuration.probeTimeout.seconds)
            let latestEnd = ahead.addingTimeInterval(configuration.coolDown.seconds)
            if let until = openUntil, until > latestEnd { openUntil = latestEnd }
            for index in probes.indices where probes[index].startedAt > ahead { probes[index].startedAt = ahead }
        }

        /// Drops the attempts this process saw that ended before `oldest`: stale evidence (a device's timeouts of
        /// days ago) does not add up with today's.
        mutating func forgetAttempts(before oldest: Date) {
            if let first = outcomes.firstIndex(where: { $0.at >= oldest }) {
                outcomes.removeFirst(first)
            } else {
                outcomes.removeAll()
            }
        }

        /// Frees the probes a client holds, and leaves it, and every client those probes were taken by, without a slot
        /// until the circuit opens or closes again (so a probe taken from one address and given up from another spends
        /// both).
        /// - Parameter client: The client; nil for this process's own probe, which frees it and spends no one.
        mutating func giveUpProbe(of client: ChannelClient?) {
            let freed = probes.filter { $0.isHeld(by: client) }
            probes.removeAll { $0.isHeld(by: client) }
            guard let client else { return }
            spent.spend(client)
            for probe in freed { if let taker = probe.client { spent.spend(taker) } }
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
    ///   - failureThreshold: The failure share that opens the circuit, 0 ... 1, with one failure at least (0 opens at
    ///     the first failure among `minimumAttempts`). 0.5 by default, and for NaN.
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
                record(
                    channel.flow, for: channel.carrier, action: action, reportedBy: source == .client ? client : nil,
                    seenFor: source == .client ? nil : client, at: now)
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
                // Ran out unreported: no probe for that client until the circuit opens or closes again.
                if let spender = probe.client { channel.spent.spend(spender) }
            }
            let held = live.first { $0.isHeld(by: client) }
            // Never by a device id alone: a stranger claiming the owner's would spend the owner.
            let spent = client.map { channel.spent.holds($0) } ?? false
            if spent || (client == nil && (held != nil || live.count >= configuration.probes)) {
                channel.probes = live
                channels[key] = channel
                return .rejected
            }
            for probe in live where probe.isHeld(by: client) && !(probe.startedAt == held?.startedAt && probe.client == held?.client) {
                if let taker = probe.client { channel.spent.spend(taker) }   // a second probe it shares a key with: given up
            }
            live.removeAll { $0.isHeld(by: client) }
            let admitted = live.count < configuration.probes
            // A client starting again keeps its first probe, taker and time: starting again never holds a slot longer,
            // and never passes the probe to another address.
            if admitted { live.append(Probe(client: held?.client ?? client, startedAt: held?.startedAt ?? now)) }  // never past the limit, raced or not
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
    ///   - client: The client whose word it is: weighed once per client, against the clients seen succeed, never
    ///     deciding a probe's failure; nil for what this process observed itself.
    ///   - seen: For what this process observed (`client` nil), the client it observed it for (a server's); its
    ///     success weighs against clients' words.
    ///   - now: The time.
    package func record(
        _ flow: LoginFlow, for carrier: Carrier, action: OutcomeAction, reportedBy client: ChannelClient? = nil, seenFor seen: ChannelClient? = nil,
        at now: Date
    ) {
        guard action != .progress else { return }
        let key = OneTapCore.Channel(carrier: carrier, flow: flow)
        let holder = client ?? seen
        guard action != .cancelled, action != .switch else {
            // The user's choice says nothing about the channel; a probe it answered frees its slot, and a client's
            // probe so freed leaves it without one until the circuit opens or closes (else starting again at once
            // would take a fresh one).
            channels.withLock { channels in
                guard var channel = channels[key], channel.probes.contains(where: { $0.isHeld(by: holder) }) else { return }
                channel.giveUpProbe(of: holder)
                channels[key] = channel
            }
            return
        }
        let failed = action != .success
        channels.withLock { channels in
            var channel = channels[key] ?? State()
            defer { channels[key] = channel }
            channel.settle(at: now, configuration)
            channel.clients.forget(at: now, span: configuration.clientSpan)
            let probing = channel.openUntil.map { now >= $0 || !channel.probes.isEmpty } ?? false
            // The ledger takes clients' words (while closed, or a live probe's own while probing: none in a cool-down)
            // and the successes seen for clients; a failure the server saw counts in its own window, and holds no
            // client's place.
            if let client {
                let heard = channel.openUntil == nil
                    || probing && channel.live(at: now, timeout: configuration.probeTimeout).contains { $0.isHeld(by: client) }
                guard heard else { return }
                note(client, failed: failed, seen: false, in: &channel, at: now)
            } else if let seen, !failed {
                note(seen, failed: false, seen: true, in: &channel, at: now)
            }
            if probing {
                answerProbe(failed: failed, word: client, holder: holder, in: &channel, at: now)
                return
            }
            guard channel.openUntil == nil else { return }  // an attempt admitted before the circuit opened: it is open already
            channel.forgetAttempts(before: now.addingTimeInterval(-configuration.attemptSpan.seconds))
            if client == nil {
                channel.outcomes.append(Attempt(failed: failed, at: now))
                if channel.outcomes.count > configuration.window { channel.outcomes.removeFirst(channel.outcomes.count - configuration.window) }
            }
            if meetsOpeningRule(channel.outcomes) || failed && clientsMeetOpeningRule(channel) {
                open(&channel, at: now)
            }
        }
    }

    /// What an attempt's end does to a half-open circuit (or one whose probes are still under way).
    private func answerProbe(failed: Bool, word client: ChannelClient?, holder: ChannelClient?, in channel: inout State, at now: Date) {
        if !failed {
            // A success closes the circuit, unless clients' words still outweigh the clients seen succeed: then
            // probing goes on (its slot freed) until they no longer do.
            if clientsMeetOpeningRule(channel) {
                channel.probes.removeAll { $0.isHeld(by: holder) }
            } else {
                channel.openUntil = nil
                channel.outcomes = client == nil ? [Attempt(failed: false, at: now)] : []
                channel.probes = []
                channel.spent.removeAll()
            }
        } else if client == nil {
            open(&channel, at: now)  // the probe failed as this process saw it
        } else if let client {
            // A client's word that its probe failed (only a live probe's own is heard) re-opens nothing: it frees the
            // slot, and that client takes no other until the circuit opens or closes (starting again at once would).
            channel.giveUpProbe(of: client)
        }
    }

    /// Whether what this process saw meets the opening rule: enough attempts, enough of them failures (one at
    /// least, whatever the threshold).
    private func meetsOpeningRule(_ outcomes: [Attempt]) -> Bool {
        let failures = outcomes.reduce(0) { $0 + ($1.failed ? 1 : 0) }
        return failures >= 1 && outcomes.count >= configuration.minimumAttempts
            && Double(failures) / Double(outcomes.count) >= configuration.failureThreshold
    }

    /// Whether clients' words meet the opening rule against the clients seen succeed: enough failing clients, and
    /// enough of the clients weighed failing.
    private func clientsMeetOpeningRule(_ channel: State) -> Bool {
        channel.clients.meets(minimum: configuration.minimumAttempts, threshold: configuration.failureThreshold)
    }

    private func note(_ client: ChannelClient, failed: Bool, seen: Bool, in channel: inout State, at now: Date) {
        channel.clients.note(client, failed: failed, seen: seen, at: now, span: configuration.clientSpan, capacity: configuration.clientCapacity)
    }

    /// Opens the circuit for a cool-down: what this process saw and the probes start afresh; clients' words and the
    /// successes seen stay, each for its span.
    private func open(_ channel: inout State, at now: Date) {
        channel.openUntil = now.addingTimeInterval(configuration.coolDown.seconds)
        channel.outcomes = []
        channel.probes = []
        channel.spent.removeAll()
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
