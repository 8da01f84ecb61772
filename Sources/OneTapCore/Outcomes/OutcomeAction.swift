/// What happens after a flow returned a result code.
public enum OutcomeAction: String, Hashable, Sendable, CaseIterable, Codable, CustomStringConvertible {
    /// The flow produced a login token: done.
    case success
    /// The user backed out (closed the carrier page): stop, and push no SMS page on them.
    case cancelled
    /// An environment, network, SIM, carrier or gateway problem: go to the plan's next flow, finally SMS.
    case fallback
    /// Transient: retry the same flow once, then fall back.
    case retry
    /// The user chose "other login method" on the carrier page: SMS now.
    case `switch`
    /// End the login and show the carrier's error, without forcing SMS (the carrier's own page already
    /// offers other ways in).
    case failed
    /// Our app's credentials, signature, whitelist or quota are wrong: fall back for the user, and alert
    /// the operators.
    case misconfigured
    /// Not a result: an event on the way to one (China Mobile's 200087, the authorisation page is shown).
    /// The login goes on waiting for the same attempt's result.
    case progress

    /// The id, e.g. `"fallback"`.
    public var description: String { rawValue }

    /// Whether the action moves on to another flow (and so counts against the channel, for health).
    package var movesOn: Bool { self == .fallback || self == .misconfigured || self == .switch }
}
