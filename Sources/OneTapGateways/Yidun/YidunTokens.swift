import OneTap

/// The two tokens Yidun's quick-login SDK gives for one login: Yidun's own `token` and the carrier's
/// `accessToken`, both needed by `oneclick/check` and `check`. A ``CarrierCredential`` carries one token, so the
/// app sends the pair as one: `token:accessToken` (Yidun's token is 32 hexadecimal characters and holds no colon).
public struct YidunTokens: Sendable {
    /// Yidun's `token`.
    public let token: Secret
    /// The carrier's `accessToken` (运营商预取号获取到的token).
    public let accessToken: Secret

    /// Two tokens.
    /// - Parameters:
    ///   - token: Yidun's `token`.
    ///   - accessToken: The carrier's `accessToken`.
    public init(token: Secret, accessToken: Secret) {
        self.token = token
        self.accessToken = accessToken
    }

    /// Reads the pair from a credential's token, `token:accessToken`.
    /// - Parameter joined: The credential's token.
    /// - Throws: ``GatewayError/Kind/refusedCredential(_:)`` when it is not two non-empty parts around a colon.
    public init(joined: Secret) throws(GatewayError) {
        let text = joined.reveal()
        guard let colon = text.firstIndex(of: ":"), colon != text.startIndex, text.index(after: colon) != text.endIndex else {
            throw GatewayError(gateway: YidunGateway.name, .refusedCredential(
                "the credential's token must be Yidun's token and the carrier's accessToken joined as token:accessToken (YidunTokens.joined)"))
        }
        self.init(token: Secret(String(text[..<colon])), accessToken: Secret(String(text[text.index(after: colon)...])))
    }

    /// The pair as one credential token: `token:accessToken`.
    public var joined: Secret { Secret("\(token.reveal()):\(accessToken.reveal())") }
}
