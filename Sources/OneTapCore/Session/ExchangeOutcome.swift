/// What the server's exchange of one token came to, bound to that token: made only by the exchange path
/// (`ExchangeGuard`, `LoginServer.exchanged(_:token:session:version:from:address:device:)`, the device-side coordinator), never
/// by a request. A login session at its exchange takes an outcome only when it is bound to the digest of
/// the token the session is exchanging, so an answer cannot be forged, replayed from another login, or
/// made up by a request decoder.
public struct ExchangeOutcome: Hashable, Sendable, CustomStringConvertible {
    /// What came of the exchange.
    package let answer: ExchangeAnswer
    /// The SHA-256 of the token exchanged; nil for an answer not yet bound (the package's simulations bind
    /// it with ``LoginReport/bound(to:)`` before it reaches a session).
    package let token: SHA256Digest?
    /// Whether a ``ExchangeAnswer/fault(_:)`` is the carrier left unreached (the integrator's adapter said
    /// the request never left): the server's own observation for the circuit breaker. Any other fault (a
    /// malformed body, a reset after sending) may come of the token the client supplied, and counts as
    /// the client's word.
    package let carrierUnreached: Bool
    /// Whether the answer says nothing of the channel: a ``ExchangeAnswer/timeout`` or fault that came of the
    /// caller (it went away while the carrier had the token, or its retry found the token already resent), or
    /// a fault of OneTap's own before any send (the device's exchange ledger failing on its claim). The circuit
    /// breaker counts nothing of it and only frees a probe the caller held (as for a cancel of the flow
    /// itself): a client disconnecting on purpose, a user leaving a device's login, or a store that is down
    /// must not count as the carrier failing.
    package let saysNothingOfTheChannel: Bool

    /// Binds an answer to the digest of the token exchanged.
    package init(_ answer: ExchangeAnswer, token: SHA256Digest?, carrierUnreached: Bool = false, saysNothingOfTheChannel: Bool = false) {
        self.answer = answer
        self.token = token
        self.carrierUnreached = carrierUnreached
        self.saysNothingOfTheChannel = saysNothingOfTheChannel
    }

    /// Binds an answer to the credential whose token was exchanged.
    /// - Parameters:
    ///   - answer: The answer.
    ///   - credential: The credential.
    ///   - saysNothingOfTheChannel: Whether it says nothing of the channel (see ``saysNothingOfTheChannel``).
    package init(_ answer: ExchangeAnswer, for credential: CarrierCredential, saysNothingOfTheChannel: Bool = false) {
        self.init(answer, token: credential.tokenDigest, saysNothingOfTheChannel: saysNothingOfTheChannel)
    }

    /// The answer: `103000 138****8000`, `timeout`, …
    public var description: String { answer.description }
}

extension LoginReport {
    /// An exchange answer not yet bound to a token, for the package's simulations and tests: a session
    /// takes it only after ``bound(to:)``.
    /// - Parameter answer: The answer.
    /// - Returns: The report.
    package static func exchanged(_ answer: ExchangeAnswer) -> LoginReport {
        .exchange(ExchangeOutcome(answer, token: nil))
    }

    /// This report with an unbound exchange answer bound to the token a session is exchanging (what a
    /// simulation of the server's exchange does); any other report unchanged.
    /// - Parameter session: The session the report goes to.
    /// - Returns: The report.
    package func bound(to session: LoginSession) -> LoginReport {
        guard case .exchange(let outcome) = self, outcome.token == nil, case .exchange(_, _, let digest, _) = session.stage else { return self }
        return .exchange(ExchangeOutcome(outcome.answer, token: digest, carrierUnreached: outcome.carrierUnreached, saysNothingOfTheChannel: outcome.saysNothingOfTheChannel))
    }
}
