/// What to do after a flow returned a result code: the engine's answer to
/// ``LoginDecisionEngine/next(after:code:in:attempt:)``.
public struct Decision: Hashable, Sendable, CustomStringConvertible {
    /// The next step.
    public enum Step: Hashable, Sendable, CustomStringConvertible {
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
        /// - Complexity: O(1): one lookup among every step's text.
        package init?(_ text: String) {
            guard let step = Self.byText[text] else { return nil }
            self = step
        }

        /// Every step, by its text.
        private static let byText: [String: Step] = {
            var steps = Decision.Ending.allCases.map { Step.finish($0) }
            for flow in LoginFlow.allCases {
                steps += [.attempt(flow), .retry(flow), .wait(flow), .exchange(flow)]
            }
            return Dictionary(uniqueKeysWithValues: steps.map { ($0.description, $0) })
        }()

        /// The message for text that is no step.
        static func unknown(_ text: String) -> String { "not a step: \(QuotedInput(text))" }
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
    package enum Note: String, Hashable, Sendable, Codable, DescribedByID {
        /// The code's action applied as it stands.
        case asClassified = "as-classified"
        /// A `retry` code after the retry was used up: treated as `fallback`.
        case retriesExhausted = "retries-exhausted"
        /// A fallback (or switch) with no flow left in the plan: the login fails.
        case planExhausted = "plan-exhausted"
    }

    /// The next step.
    public let step: Step
    /// What the code means (flow, code, action, meaning, source).
    package let outcome: Outcome
    /// Why the step differs from the action, if it does.
    package let note: Note
    /// Whether operators should be alerted: the code says our own configuration is wrong
    /// (``OutcomeAction/misconfigured``).
    package var alert: Bool { outcome.action == .misconfigured }

    /// `mobile 200023 → retry: … ⇒ retry mobile`.
    public var description: String {
        "\(outcome) ⇒ \(step)\(note == .asClassified ? "" : " (\(note))")"
    }
}
