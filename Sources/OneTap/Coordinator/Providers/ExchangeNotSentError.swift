/// What a ``TokenExchangeProvider`` throws when its request for a token's exchange never reached the
/// carrier: no connection was made (DNS failure, connection refused, a TLS handshake that failed), or the
/// adapter refused to send it. Nothing can have been billed and the token is not spent, so
/// ``ExchangeGuard`` records the exchange as `failed` (not sent again, not listed for reconciliation).
///
/// Anything else a provider throws (a malformed body, a connection reset after the request was written)
/// may follow a billed answer: the guard records it as `unknown`, listed by
/// ``ExchangeLedger/unknownExchanges(since:pendingClaimedBefore:)`` and `onetap db reconcile`, and the
/// login that sent the token may resend it once to learn the result. Throw this only when you know the
/// request did not leave.
public struct ExchangeNotSentError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Why the request was not sent, e.g. `"connection refused by 10.0.0.7:443"`; never a token.
    public let reason: String

    /// Says that the exchange request never reached the carrier.
    /// - Parameter reason: Why it was not sent; never a token (the guard scrubs the token out of it anyway).
    public init(_ reason: String) {
        self.reason = reason
    }

    /// `not sent: connection refused by 10.0.0.7:443`.
    public var description: String { "not sent: \(reason)" }
}
