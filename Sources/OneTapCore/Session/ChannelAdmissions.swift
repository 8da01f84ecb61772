/// What a circuit breaker says of a carrier channel: whether to attempt its flow now.
package enum ChannelAdmission: Hashable, Sendable {
    /// Go ahead.
    case allowed
    /// Go ahead: this attempt is the probe of a half-open circuit.
    case probe
    /// Skip the flow: its circuit is open.
    case rejected
}

/// What a circuit breaker says of every (carrier, flow) channel at one instant, as a value: the layer
/// above the session machine reads it from its breaker (`ChannelHealth` in `OneTap`) and hands it to
/// ``LoginSessionMachine/start(_:at:id:pending:channels:)`` or
/// ``LoginSessionMachine/advance(_:_:version:at:channels:)``, which stay pure.
///
/// A channel not listed is allowed.
package struct ChannelAdmissions: Hashable, Sendable {
    private var entries: [Channel: ChannelAdmission]

    /// Every channel allowed: what a machine without a breaker is given.
    package static let allAllowed = ChannelAdmissions()

    /// Admissions for the channels that are not plainly allowed.
    /// - Parameter entries: An admission per channel; a channel left out is allowed.
    package init(_ entries: [Channel: ChannelAdmission] = [:]) {
        self.entries = entries.filter { $0.value != .allowed }
    }

    /// The admission of one channel.
    /// - Parameters:
    ///   - flow: The one-tap flow.
    ///   - carrier: The carrier.
    /// - Returns: Its admission; `allowed` when not listed.
    package subscript(_ flow: LoginFlow, for carrier: Carrier) -> ChannelAdmission {
        entries[Channel(carrier: carrier, flow: flow)] ?? .allowed
    }
}

/// A carrier channel: one flow for the SIMs of one carrier, which a circuit breaker tracks on its own.
package struct Channel: Hashable, Sendable, CustomStringConvertible {
    /// The carrier.
    package let carrier: Carrier
    /// The flow.
    package let flow: LoginFlow

    /// A channel.
    /// - Parameters:
    ///   - carrier: The carrier.
    ///   - flow: The flow.
    package init(carrier: Carrier, flow: LoginFlow) {
        self.carrier = carrier
        self.flow = flow
    }

    /// `mobile/mobile`: carrier, then flow.
    package var description: String { "\(carrier)/\(flow)" }
}

/// What a start or a report tells the circuit breaker, as a value in its ``LoginTransition``: the layer
/// above applies it (`ChannelHealth.apply`) once the transition is stored, so a report that lost its
/// compare-and-swap tells the breaker nothing.
package enum ChannelReport: Hashable, Sendable, CustomStringConvertible {
    /// Who saw how an attempt ended, which is what the breaker weighs.
    package enum Source: String, Hashable, Sendable {
        /// The server itself: its exchange of a token timed out or never reached the carrier (the
        /// adapter said so), or the carrier answered success with the number. No client can make these up.
        case server
        /// The client's word: a code, time-out or fault its SDK reported, or the carrier's answer to a
        /// token the client supplied (a made-up token earns a failure code, or a body the adapter cannot
        /// read: any exchange fault but an unreached carrier). A server counts each client
        /// once (`ChannelHealth`); a device's own coordinator, which ran the SDK itself, counts it fully.
        case client
    }

    /// The login entered a flow whose circuit is half open: this attempt is the circuit's probe.
    case probing(Channel)
    /// An attempt of a one-tap flow ended with an action (`cancelled` and `switch` are the user's
    /// choice; the breaker decides what counts), seen by the server or told by the client.
    case ended(Channel, OutcomeAction, Source)

    /// `probing mobile/mobile`, `mobile/mobile: fallback (client)`.
    package var description: String {
        switch self {
        case .probing(let channel): "probing \(channel)"
        case .ended(let channel, let action, let source): "\(channel): \(action) (\(source))"
        }
    }
}
