import OneTap

/// A gateway that shows what it signs, for `onetap gateway sign`: the signed text (secrets as `<fieldName>`) and
/// the signature for the fields given.
package protocol SignPreviewing: Sendable, CustomStringConvertible {
    /// The signed text and the signature for the fields given (the gateway defaults the rest).
    /// - Parameter fields: The request's values the user gives (`token`, `timestamp`, …).
    /// - Returns: The preview.
    /// - Throws: ``GatewayError`` `misconfigured` for a field the call does not sign.
    func signPreview(fields: [String: String]) throws(GatewayError) -> SignPreview
}

extension BuiltGateway {
    /// A built gateway described and previewed by itself; set the roles it plays.
    /// - Parameter gateway: The gateway.
    package init(_ gateway: some SignPreviewing) {
        self.init(summary: gateway.description)
        signPreview = { fields throws(GatewayError) in try gateway.signPreview(fields: fields) }
    }

    /// An aggregator's one-tap gateway: the exchange and number verification, each of the flow given.
    /// - Parameters:
    ///   - gateway: The gateway.
    ///   - flow: The flow whose tokens `onetap gateway exchange` and `verify` hand it.
    /// - Returns: The built gateway.
    package static func oneTap(_ gateway: some SignPreviewing & TokenExchangeProvider & NumberVerificationProvider, flow: LoginFlow) -> BuiltGateway {
        var built = BuiltGateway(gateway)
        built.exchange = (gateway, flow)
        built.verification = (gateway, flow)
        built.flows = LoginFlow.allCases.filter(\.isOneTap)
        return built
    }

    /// An SMS gateway.
    /// - Parameter sender: The sender.
    /// - Returns: The built gateway.
    package static func sms(_ sender: some SignPreviewing & SMSSender) -> BuiltGateway {
        var built = BuiltGateway(sender)
        built.sms = sender
        return built
    }

    /// A captcha gateway.
    /// - Parameter verifier: The verifier.
    /// - Returns: The built gateway.
    package static func captcha(_ verifier: some SignPreviewing & CaptchaVerifier) -> BuiltGateway {
        var built = BuiltGateway(verifier)
        built.captcha = verifier
        return built
    }
}
