#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a login session asks before it sends a user down a carrier channel, and tells after: the
/// circuit breaker's interface (`ChannelHealth` in `OneTap` is the one OneTap ships).
///
/// The session machine stays pure: it asks the gate it was given, with the time it was given.
public protocol ChannelGate: Sendable {
    /// Whether a flow may be attempted for a carrier now.
    /// - Parameters:
    ///   - flow: A one-tap flow.
    ///   - carrier: The resolved carrier.
    ///   - now: The time.
    /// - Returns: allowed, probe (the one attempt a half-open circuit lets through) or rejected.
    func admit(_ flow: LoginFlow, for carrier: Carrier, at now: Date) -> ChannelAdmission

    /// How an attempt of a flow ended.
    /// - Parameters:
    ///   - flow: The one-tap flow.
    ///   - carrier: The resolved carrier.
    ///   - action: The action its result led to (the user's own choices, `cancelled` and `switch`, say
    ///     nothing about the channel).
    ///   - now: The time.
    func record(_ flow: LoginFlow, for carrier: Carrier, action: OutcomeAction, at now: Date)
}

/// A gate's answer: whether to attempt a flow now.
public enum ChannelAdmission: Hashable, Sendable {
    /// Go ahead.
    case allowed
    /// Go ahead: this attempt is the probe of a half-open circuit.
    case probe
    /// Skip the flow: its circuit is open.
    case rejected
}
