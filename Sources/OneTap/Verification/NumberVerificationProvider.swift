/// Number verification (本机号码校验): asks the carrier, through its gateway, whether a number the user typed is the
/// number of the SIM that made a one-tap token, for payments and risk checks. The gateway's adapter
/// (`OneTapGateways` ships China Mobile's and the aggregators'); call it through a guard that sends each token
/// once and never past its lifetime.
public protocol NumberVerificationProvider: Sendable {
    /// Asks whether `number` is the number of the SIM the credential came from.
    /// - Parameters:
    ///   - credential: What the one-tap SDK's verification call produced (its token).
    ///   - number: The number to check.
    /// - Returns: The gateway's answer: its code exactly as it came, and the verdict it stands for.
    /// - Throws: ``ExchangeNotSentError`` when the request never reached the gateway (nothing was billed);
    ///   anything else when no usable answer came (the verdict is then unknown and may have been billed).
    ///   Honour task cancellation.
    func verify(_ credential: CarrierCredential, number: PhoneNumber) async throws -> NumberVerificationResponse
}

/// A gateway's answer to a number verification.
public struct NumberVerificationResponse: Hashable, Sendable, CustomStringConvertible {
    /// The gateway's code, exactly as it came (`"103000"`, `"OK"`, `"9000"`).
    public let code: ResultCode
    /// What the answer says about the number.
    public let verdict: NumberVerdict

    /// Creates an answer.
    /// - Parameters:
    ///   - code: The gateway's code.
    ///   - verdict: What it says about the number.
    public init(code: ResultCode, verdict: NumberVerdict) {
        self.code = code
        self.verdict = verdict
    }

    /// `103000 pass`.
    public var description: String { "\(code) \(verdict.rawValue)" }
}

/// What a number verification says about the number.
public enum NumberVerdict: String, Hashable, Sendable, CaseIterable {
    /// The number is the SIM's own.
    case pass
    /// The number is not the SIM's own.
    case reject
    /// The gateway could not tell (an error, a spent or expired token, no answer): ask for another proof.
    case unknown
}
