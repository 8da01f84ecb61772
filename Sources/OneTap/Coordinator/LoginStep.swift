/// One step of a login's trace: a flow attempted (or skipped), what came back, and what was decided.
/// The trace answers "why did this user get SMS?".
public struct LoginStep: Hashable, Sendable, CustomStringConvertible, Encodable {
    /// What came back from the flow.
    public enum Result: Hashable, Sendable, CustomStringConvertible {
        /// The provider's result code.
        case code(ResultCode)
        /// The provider did not answer within its time limit.
        case timeout(Duration)
        /// The provider threw.
        case providerError(String)
        /// A success code without the pieces the flow promises (a token, China Mobile's uniqueid).
        case incomplete(code: ResultCode, missing: String)
        /// The server-side token exchange failed after the flow succeeded.
        case exchangeFailed(String)
        /// The flow was not tried: its channel's circuit is open.
        case circuitOpen
        /// The flow was not tried: no provider is configured for it.
        case unavailable
        /// The user backed out of the SMS page before giving a number.
        case noPhoneNumber

        /// The code as printed in traces and JSON: the number, or `timeout`, `provider-error`, …
        public var code: String {
            switch self {
            case .code(let code), .incomplete(let code, _): code.description
            case .timeout: "timeout"
            case .providerError: "provider-error"
            case .exchangeFailed: "exchange-failed"
            case .circuitOpen: "circuit-open"
            case .unavailable: "unavailable"
            case .noPhoneNumber: "no-phone-number"
            }
        }

        /// A readable form, for messages and logs.
        public var description: String {
            switch self {
            case .code(let code): "\(code)"
            case .timeout(let limit): "timeout after \(limit.seconds) s"
            case .providerError(let message): "provider error: \(message)"
            case .incomplete(let code, let missing): "\(code) without \(missing)"
            case .exchangeFailed(let message): "token exchange failed: \(message)"
            case .circuitOpen: "skipped: circuit open"
            case .unavailable: "skipped: no provider"
            case .noPhoneNumber: "no phone number given"
            }
        }
    }

    /// The flow.
    public let flow: LoginFlow
    /// Which attempt of the flow, from 1 (0 for a skipped flow).
    public let attempt: Int
    /// What came back.
    public let result: Result
    /// The action it led to.
    public let action: OutcomeAction
    /// What the result means.
    public let meaning: String
    /// What was decided next.
    public let next: Decision.Step

    /// `mobile 200023 → retry (…) ⇒ retry mobile`.
    public var description: String { "\(flow) \(result) → \(action) (\(meaning)) ⇒ \(next)" }

    private enum CodingKeys: String, CodingKey { case flow, attempt, code, action, meaning, next }

    /// Encodes `flow`, `attempt`, `code` (a string: the number, or `timeout`, …), `action`, `meaning`, `next`.
    /// - Parameter encoder: The encoder.
    /// - Throws: What the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(flow, forKey: .flow)
        try container.encode(attempt, forKey: .attempt)
        try container.encode(result.code, forKey: .code)
        try container.encode(action, forKey: .action)
        try container.encode(meaning, forKey: .meaning)
        try container.encode(next.description, forKey: .next)
    }
}

/// An operator alert: a code said our own configuration is wrong (credentials, signature, whitelist,
/// quota). The user was moved on; someone should fix the configuration.
public struct LoginAlert: Hashable, Sendable, CustomStringConvertible, Encodable {
    /// The flow.
    public let flow: LoginFlow
    /// The code.
    public let code: ResultCode
    /// What it means.
    public let meaning: String

    /// `mobile 103101: …`.
    public var description: String { "\(flow) \(code): \(meaning)" }
}
