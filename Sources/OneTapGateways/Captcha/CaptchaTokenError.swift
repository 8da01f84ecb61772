/// A captcha token from the client that cannot be what the widget gives: not the JSON object the gateway's
/// documentation asks the client to send, a member missing or empty, or too long. Thrown before any request is
/// sent; its words name the member and the expected form, never the token's values.
package struct CaptchaTokenError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The gateway's name: `tencent-captcha`, `geetest`.
    package let gateway: String
    /// What is wrong and the form expected.
    package let reason: String

    /// An error.
    /// - Parameters:
    ///   - gateway: The gateway's name.
    ///   - reason: What is wrong, without the token's values.
    package init(gateway: String, _ reason: String) {
        self.gateway = gateway
        self.reason = reason
    }

    /// `geetest: malformed captcha token: …`.
    package var description: String { "\(gateway): malformed captcha token: \(reason)" }
}
