import OneTap

/// A gateway answered, and its answer is an error code that is not one of the caller's outcomes: a captcha
/// provider refusing the call itself (a wrong key, a signature error, its own fault), not judging the captcha.
/// It names the gateway, the code as it came and its documented meaning: never a token, a key or the body.
package struct GatewayCodeError: ProviderFault, Hashable, Sendable, CustomStringConvertible {
    /// The gateway's name: `tencent-captcha`.
    package let gateway: String
    /// The code exactly as it came: `AuthFailure.SignatureFailure`, `100`, `-50005`.
    package let code: String
    /// What the vendor's document says the code means, and the fix when it is the configuration's.
    package let meaning: String
    /// The vendor's id of the call, when it gave one (for its support).
    package let requestID: String?
    /// Whether the code says the fault is the vendor's or the configuration's (an outage, a throttle, a refused
    /// signature), not the request's (``ProviderFault``): a captcha check that ends in it counts against no one.
    package let isProviderFault: Bool

    /// An error.
    /// - Parameters:
    ///   - gateway: The gateway's name.
    ///   - code: The code as it came.
    ///   - meaning: Its documented meaning, without secrets.
    ///   - requestID: The vendor's id of the call.
    ///   - providerFault: Whether the code says the fault is the vendor's or the configuration's.
    package init(gateway: String, code: String, meaning: String, requestID: String? = nil, providerFault: Bool = false) {
        self.gateway = gateway
        self.code = code
        self.meaning = meaning
        self.requestID = requestID
        isProviderFault = providerFault
    }

    /// `tencent-captcha answered 100: …`.
    package var description: String {
        "\(gateway) answered \(code): \(meaning)\(requestID.map { " (RequestId \($0))" } ?? "")"
    }
}
