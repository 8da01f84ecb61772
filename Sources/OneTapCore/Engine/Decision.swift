/// What to do after a flow returned a result code: the engine's answer to
/// ``LoginDecisionEngine/next(after:code:in:attempt:)``.
public struct Decision: Hashable, Sendable, CustomStringConvertible {
    /// The next step.
    public enum Step: Hashable, Sendable, Codable, CustomStringConvertible {
        /// Try this flow next (the plan's next flow, or SMS after a `switch`).
        case attempt(LoginFlow)
        /// Try the same flow once more.
        case retry(LoginFlow)
        /// The login is over.
        case finish(Ending)
        /// A progress event: keep waiting for the same attempt's result.
        case wait(LoginFlow)
        /// A one-tap flow succeeded: the server exchanges its token for the number before the login is done.
        case exchange(LoginFlow)

        /// `attempt sms`, `retry mobile`, `finish success`.
        public var description: String {
            switch self {
            case .attempt(let flow): "attempt \(flow)"
            case .retry(let flow): "retry \(flow)"
            case .finish(let ending): "finish \(ending)"
            case .wait(let flow): "wait \(flow)"
            case .exchange(let flow): "exchange \(flow)"
            }
        }

        /// Reads ``description``'s text back.
        /// - Parameter text: `attempt sms`, `retry mobile`, `finish success`, `wait mobile`, `exchange mobile`.
        public init?(_ text: String) {
            let parts = text.split(separator: " ", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { return nil }
            if parts[0] == "finish" {
                guard let ending = Ending(rawValue: parts[1]) else { return nil }
                self = .finish(ending)
                return
            }
            guard let flow = LoginFlow(rawValue: parts[1]) else { return nil }
            switch parts[0] {
            case "attempt": self = .attempt(flow)
            case "retry": self = .retry(flow)
            case "wait": self = .wait(flow)
            case "exchange": self = .exchange(flow)
            default: return nil
            }
        }

        /// Decodes ``description``'s text.
        /// - Parameter decoder: The decoder.
        /// - Throws: `DecodingError.dataCorrupted` for text that is no step.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let step = Step(text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a step: \(QuotedInput(text))")
            }
            self = step
        }

        /// Encodes ``description``.
        /// - Parameter encoder: The encoder.
        /// - Throws: What the encoder throws.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(description)
        }
    }

    /// How a login ended.
    public enum Ending: String, Hashable, Sendable, CaseIterable, Codable, CustomStringConvertible {
        /// A flow produced a login token.
        case success
        /// The user backed out.
        case cancelled
        /// The login failed: a carrier error to show, or every flow of the plan failed.
        case failed

        /// The id, e.g. `"success"`.
        public var description: String { rawValue }
    }

    /// Why the step was chosen, beyond the code's own action.
    public enum Note: String, Hashable, Sendable, Codable, CustomStringConvertible {
        /// The code's action applied as it stands.
        case asClassified = "as-classified"
        /// A `retry` code after the retry was used up: treated as `fallback`.
        case retriesExhausted = "retries-exhausted"
        /// A fallback (or switch) with no flow left in the plan: the login fails.
        case planExhausted = "plan-exhausted"

        /// The id, e.g. `"retries-exhausted"`.
        public var description: String { rawValue }
    }

    /// The next step.
    public let step: Step
    /// What the code means (flow, code, action, meaning, source).
    public let outcome: Outcome
    /// Why the step differs from the action, if it does.
    public let note: Note
    /// Whether operators should be alerted: the code says our own configuration is wrong
    /// (``OutcomeAction/misconfigured``).
    public var alert: Bool { outcome.action == .misconfigured }

    /// `mobile 200023 → retry: … ⇒ retry mobile`.
    public var description: String {
        "\(outcome) ⇒ \(step)\(note == .asClassified ? "" : " (\(note))")"
    }
}
