import OneTap

/// An aggregator's answer (JVerification, Shanyan, Yidun) to a token exchange or a number verification: its code
/// as it came, the number or the verdict, and the aggregator's id of the call, kept for billing reconciliation.
public struct AggregatorAnswer: Hashable, Sendable, CustomStringConvertible {
    /// The gateway's configuration name: `jverification`, `shanyan`, `yidun`.
    public let gateway: String
    /// The aggregator's code exactly as it came (`8000`, `200000`, `200`).
    public let code: ResultCode
    /// The number, on an exchange's success.
    public let phoneNumber: PhoneNumber?
    /// The verdict, on a number verification (nil for an exchange).
    public let verdict: NumberVerdict?
    /// The aggregator's id of the call (`id`, `tradeNo`), when the answer had one: for billing reconciliation.
    public let serial: String?

    /// Creates an answer.
    /// - Parameters:
    ///   - gateway: The gateway's name.
    ///   - code: The code as it came.
    ///   - phoneNumber: The number, on an exchange's success.
    ///   - verdict: The verdict, on a number verification.
    ///   - serial: The aggregator's id of the call.
    public init(gateway: String, code: ResultCode, phoneNumber: PhoneNumber? = nil, verdict: NumberVerdict? = nil, serial: String? = nil) {
        self.gateway = gateway
        self.code = code
        self.phoneNumber = phoneNumber
        self.verdict = verdict
        self.serial = serial
    }

    /// What a login needs of an exchange's answer.
    public var exchangeResponse: ExchangeResponse { ExchangeResponse(code: code, phoneNumber: phoneNumber) }

    /// What a number verification needs of the answer (no verdict reads as `unknown`).
    public var verificationResponse: NumberVerificationResponse { NumberVerificationResponse(code: code, verdict: verdict ?? .unknown) }

    /// `jverification 8000 138****8000 id 117270465679982592`: the number masked.
    public var description: String {
        var text = "\(gateway) \(code)"
        if let phoneNumber { text += " \(phoneNumber.masked)" }
        if let verdict { text += " \(verdict.rawValue)" }
        if let serial { text += " id \(serial)" }
        return text
    }
}
