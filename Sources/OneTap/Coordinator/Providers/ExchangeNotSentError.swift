/// What a ``TokenExchangeProvider`` throws when its request for a token's exchange never reached the
/// carrier: no connection was made (DNS failure, connection refused, a TLS handshake that failed), or the
/// adapter refused to send it. Nothing can have been billed and the token is not spent, so
/// ``ExchangeGuard`` records the exchange as `failed` (not sent again, not listed for reconciliation).
///
/// Anything else a provider throws (a malformed body, a connection reset after the request was written)
/// may follow a billed answer: the guard records it as `unknown`, listed by
/// ``ExchangeLedger/unknownExchanges(since:pendingClaimedBefore:after:limit:)`` and `onetap db reconcile`, and the
/// login that sent the token may resend it once to learn the result. Throw this only when you know the
/// request did not leave.
public struct ExchangeNotSentError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Why the request was not sent, e.g. `"connection refused by 10.0.0.7:443"`; never a token.
    public let reason: String
    /// Whether the adapter refused the credential the client supplied (its token cannot go into the vendor's
    /// request): the client's doing, so the circuit breaker counts it as the client's word, once per client, and
    /// never as a failure the server saw reaching the carrier. False for a failure of the way to the carrier. (Set
    /// through ``init(_:refusedCredential:)``; the guard reads it.)
    package let refusedCredential: Bool

    /// Says that the exchange request never reached the carrier.
    /// - Parameters:
    ///   - reason: Why it was not sent; never a token (the guard scrubs the token out of it anyway).
    ///   - refusedCredential: Whether it was the client's credential that could not be sent.
    public init(_ reason: String, refusedCredential: Bool = false) {
        self.reason = reason
        self.refusedCredential = refusedCredential
    }

    /// `not sent: connection refused by 10.0.0.7:443`.
    public var description: String { "not sent: \(reason)" }
}
