/// One step of a login's trace: a flow attempted (or skipped), what came back, and what was decided.
/// The trace answers "why did this user get SMS?".
public struct LoginStep: Hashable, Sendable, Codable, CustomStringConvertible {
    /// What came back from the flow, or from the server's exchange of its token.
    public enum Result: Hashable, Sendable, CustomStringConvertible {
        /// The SDK's result code.
        case code(ResultCode)
        /// The flow did not answer within its time limit.
        case timeout
        /// The provider failed (it threw, or its answer made no sense).
        case providerError(String)
        /// A success code without the pieces the flow promises (a token, China Mobile's uniqueid).
        case incomplete(code: ResultCode, missing: String)
        /// The user chose SMS ("other login method") without a code saying so.
        case switched
        /// The login was abandoned without a code.
        case abandoned(CancelReason)
        /// The flow was not tried: its channel's circuit is open.
        case circuitOpen
        /// The flow was not tried: no provider is configured for it.
        case unavailable
        /// The server's exchange of the flow's token answered with a code.
        case exchangeCode(ResultCode)
        /// The exchange gave no answer in time: its result is unknown (it may have been billed and spent).
        case exchangeTimeout
        /// The exchange call failed (network, provider fault).
        case exchangeFailed(String)
        /// The token was older than its lifetime, so it was not sent to the paid exchange.
        case tokenExpired
        /// The token had been exchanged already (a replay), so it was not sent again.
        case tokenReplayed

        /// The code as printed in traces and JSON: the SDK's code, or `timeout`, `provider-error`,
        /// `exchange-104201`, `exchange-timeout`, …
        public var code: String {
            switch self {
            case .code(let code), .incomplete(let code, _): code.text
            case .timeout: "timeout"
            case .providerError: "provider-error"
            case .switched: "switch"
            case .abandoned(let reason): reason == .user ? "cancelled" : reason == .caller ? "caller-cancelled" : "no-phone-number"
            case .circuitOpen: "circuit-open"
            case .unavailable: "unavailable"
            case .exchangeCode(let code): "exchange-\(code.text)"
            case .exchangeTimeout: "exchange-timeout"
            case .exchangeFailed: "exchange-failed"
            case .tokenExpired: "token-expired"
            case .tokenReplayed: "token-replayed"
            }
        }

        /// A readable form, for messages and logs.
        public var description: String {
            switch self {
            case .code(let code): "\(code)"
            case .timeout: "timeout"
            case .providerError(let message): "provider error: \(message)"
            case .incomplete(let code, let missing): "\(code) without \(missing)"
            case .switched: "the user chose SMS"
            case .abandoned(.user): "the user backed out"
            case .abandoned(.noPhoneNumber): "no phone number given"
            case .abandoned(.caller): "the caller stopped waiting"
            case .circuitOpen: "skipped: circuit open"
            case .unavailable: "skipped: no provider"
            case .exchangeCode(let code): "exchange answered \(code)"
            case .exchangeTimeout: "exchange timed out"
            case .exchangeFailed(let message): "exchange failed: \(message)"
            case .tokenExpired: "token too old to exchange"
            case .tokenReplayed: "token already exchanged"
            }
        }

        /// The text a result carries beside its code (a provider's message, what was missing).
        var detail: String? {
            switch self {
            case .providerError(let message), .exchangeFailed(let message): message
            case .incomplete(_, let missing): missing
            default: nil
            }
        }

        /// The message for a code that is no step result.
        static func unknown(_ code: String) -> String { "not a step result: \(QuotedInput(code))" }

        /// Reads back what ``code`` and ``detail`` wrote.
        init?(code: String, detail: String?) {
            switch code {
            case "timeout": self = .timeout
            case "provider-error": self = .providerError(detail ?? "")
            case "switch": self = .switched
            case "cancelled": self = .abandoned(.user)
            case "no-phone-number": self = .abandoned(.noPhoneNumber)
            case "caller-cancelled": self = .abandoned(.caller)
            case "circuit-open": self = .circuitOpen
            case "unavailable": self = .unavailable
            case "exchange-timeout": self = .exchangeTimeout
            case "exchange-failed": self = .exchangeFailed(detail ?? "")
            case "token-expired": self = .tokenExpired
            case "token-replayed": self = .tokenReplayed
            default:
                if code.hasPrefix("exchange-"), let value = try? ResultCode(String(code.dropFirst(9))) {
                    self = .exchangeCode(value)
                } else if let value = try? ResultCode(code) {
                    self = detail.map { .incomplete(code: value, missing: $0) } ?? .code(value)
                } else {
                    return nil
                }
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

    /// Creates a step.
    package init(flow: LoginFlow, attempt: Int, result: Result, action: OutcomeAction, meaning: String, next: Decision.Step) {
        self.flow = flow
        self.attempt = attempt
        self.result = result
        self.action = action
        self.meaning = meaning
        self.next = next
    }

    /// `mobile 200023 → retry (…) ⇒ retry mobile`.
    public var description: String { "\(flow) \(result) → \(action) (\(meaning)) ⇒ \(next)" }

    private enum CodingKeys: String, CodingKey { case flow, attempt, code, detail, action, meaning, next }

    /// Encodes `flow`, `attempt`, `code` (a string: the code, or `timeout`, …), `detail` when the result
    /// carries text, `action`, `meaning`, `next`.
    /// - Parameter encoder: The encoder.
    /// - Throws: What the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(flow, forKey: .flow)
        try container.encode(attempt, forKey: .attempt)
        try container.encode(result.code, forKey: .code)
        try container.encodeIfPresent(result.detail, forKey: .detail)
        try container.encode(action, forKey: .action)
        try container.encode(meaning, forKey: .meaning)
        try container.encode(next, forKey: .next)
    }

    /// Decodes what ``encode(to:)`` writes.
    /// - Parameter decoder: The decoder.
    /// - Throws: `DecodingError` for unknown values.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        flow = try container.decode(LoginFlow.self, forKey: .flow)
        attempt = try container.decode(Int.self, forKey: .attempt)
        let code = try container.decode(String.self, forKey: .code)
        guard let result = Result(code: code, detail: try container.decodeIfPresent(String.self, forKey: .detail)) else {
            throw DecodingError.dataCorruptedError(forKey: .code, in: container, debugDescription: Result.unknown(code))
        }
        self.result = result
        action = try container.decode(OutcomeAction.self, forKey: .action)
        meaning = try container.decode(String.self, forKey: .meaning)
        next = try container.decode(Decision.Step.self, forKey: .next)
    }
}

/// An operator alert: a code said our own configuration is wrong (credentials, signature, whitelist,
/// quota). The user was moved on; someone should fix the configuration.
public struct LoginAlert: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The flow.
    public let flow: LoginFlow
    /// The code: the SDK's, or `exchange-…` for the server's exchange.
    public let code: String
    /// What it means.
    public let meaning: String

    /// Creates an alert.
    package init(flow: LoginFlow, code: String, meaning: String) {
        self.flow = flow
        self.code = code
        self.meaning = meaning
    }

    /// `mobile 103101: …`.
    public var description: String { "\(flow) \(code): \(meaning)" }
}
