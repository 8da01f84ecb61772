/// What an ``SMSSender`` throws when its gateway answered but did not take the message, so that
/// ``SMSCodeService`` answers in the gateway's terms: a number the gateway will not send to is refused, a gateway
/// that throttles is a limit with a time to wait, anything else is `senderFailed`. Any other error a sender throws
/// counts as `failed`.
public struct SMSDeliveryError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Why the gateway did not take the message.
    public enum Reason: String, Hashable, Sendable {
        /// The gateway will not send to this number (invalid, blacklisted, unsubscribed, a landline): asking
        /// again does not help.
        case numberRejected = "number-rejected"
        /// The gateway's own rate limit for the number, the template or the account was reached: wait.
        case throttled
        /// Anything else (a configuration fault, the account's balance, an outage).
        case failed
    }

    /// Why the gateway did not take the message.
    public let reason: Reason
    /// The gateway's name (`aliyun-sms`, `tencent-sms`).
    public let gateway: String
    /// The gateway's code exactly as it came (`isv.BUSINESS_LIMIT_CONTROL`), if it gave one.
    public let code: String?
    /// An explanation, without the code sent, the number or a secret.
    public let message: String

    /// Creates the error.
    /// - Parameters:
    ///   - reason: Why the message was not taken.
    ///   - gateway: The gateway's name.
    ///   - code: The gateway's code, if any.
    ///   - message: An explanation without secrets or the number.
    public init(_ reason: Reason, gateway: String, code: String? = nil, message: String) {
        self.reason = reason
        self.gateway = gateway
        self.code = code
        self.message = message
    }

    /// `aliyun-sms throttled (isv.BUSINESS_LIMIT_CONTROL): …`.
    public var description: String { "\(gateway) \(reason.rawValue)\(code.map { " (\($0))" } ?? ""): \(message)" }
}
