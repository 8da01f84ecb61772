#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Something a login did, for logs and counters. Events carry codes and meanings, never a token, and
/// any phone number in their text is masked (`138****8000`).
///
/// A login emits, in order: `planned`; `flow-started` for each attempt of each flow; one `result` for
/// every step of its trace (a result code, a timeout, a provider fault, a flow skipped because its
/// circuit is open or it has no provider, the user switching to SMS or backing out, each answer of the
/// server's token exchange), so the events tell the whole trace; `progress` for codes that are no
/// result yet; `fallback` when it moves to another flow; `alert` for a misconfiguration; and one of
/// `succeeded`, `cancelled`, `failed` at the end. ``OneTapEvent`` writes them with the login's
/// ``LoginContext`` as lines of the versioned event schema (`v` 2).
public enum LoginEvent: Hashable, Sendable, CustomStringConvertible, Encodable {
    /// A plan was made.
    case planned(LoginPlan)
    /// A flow started (attempt from 1).
    case flowStarted(flow: LoginFlow, attempt: Int)
    /// A flow reported progress (a code that is no result yet, such as 200087: the page is shown).
    case progress(flow: LoginFlow, code: String)
    /// A step of the trace: what came back from a flow (or from the exchange of its token, or why it
    /// was skipped), the action it led to and what was decided next.
    case result(LoginStep)
    /// The login moved from one flow to another.
    case fallback(from: LoginFlow, to: LoginFlow, action: OutcomeAction)
    /// A code said our configuration is wrong: alert operators.
    case alert(LoginAlert)
    /// The login succeeded.
    case succeeded(flow: LoginFlow)
    /// The user backed out.
    case cancelled(flow: LoginFlow?)
    /// The login failed.
    case failed(flow: LoginFlow?, meaning: String)

    /// The event's name, e.g. `flow-started`.
    public var name: String {
        switch self {
        case .planned: "planned"
        case .flowStarted: "flow-started"
        case .progress: "progress"
        case .result: "result"
        case .fallback: "fallback"
        case .alert: "alert"
        case .succeeded: "succeeded"
        case .cancelled: "cancelled"
        case .failed: "failed"
        }
    }

    /// How the login ended, for the three ending events; nil for the others.
    public var ending: Decision.Ending? {
        switch self {
        case .succeeded: .success
        case .cancelled: .cancelled
        case .failed: .failed
        default: nil
        }
    }

    /// A readable form, for messages and logs.
    public var description: String {
        switch self {
        case .planned(let plan): "planned \(plan)"
        case .flowStarted(let flow, let attempt): "flow-started \(flow) attempt \(attempt)"
        case .progress(let flow, let code): "progress \(flow) \(code)"
        case .result(let step): "result \(step)"
        case .fallback(let from, let to, let action): "fallback \(from) → \(to) (\(action))"
        case .alert(let alert): "alert \(alert)"
        case .succeeded(let flow): "succeeded \(flow)"
        case .cancelled(let flow): "cancelled\(flow.map { " \($0)" } ?? "")"
        case .failed(let flow, let meaning): "failed\(flow.map { " \($0)" } ?? ""): \(meaning)"
        }
    }

    private enum CodingKeys: String, CodingKey {
        case event, session, carrier, evidence, platform, elapsedMs, flow, attempt, code, action, meaning, next, ending, from, to, flows, reason, condition
    }

    /// Encodes `{"event": name, …}`: the event's own fields, without the login's context.
    /// - Parameter encoder: The encoder.
    /// - Throws: What the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        try encode(to: encoder, context: nil, at: nil)
    }

    /// Encodes the event as the fields of one line of the event schema: `event`, then the login's
    /// `session`, `carrier`, `evidence`, `platform` (when known) and `elapsedMs` (from the login's start
    /// to `at`), then the event's own fields (see ``OneTapEvent``).
    /// - Parameters:
    ///   - encoder: The encoder.
    ///   - context: The login the event belongs to; nil to write the event's own fields alone.
    ///   - at: When it happened, for `elapsedMs`.
    /// - Throws: What the encoder throws.
    public func encode(to encoder: any Encoder, context: LoginContext?, at: Date?) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .event)
        if let context {
            try container.encode(context.session, forKey: .session)
            try container.encode(context.carrier, forKey: .carrier)
            try container.encode(context.evidence, forKey: .evidence)
            try container.encodeIfPresent(context.platform, forKey: .platform)
            try container.encode(context.elapsedMilliseconds(at: at ?? context.startedAt), forKey: .elapsedMs)
        }
        switch self {
        case .planned(let plan):
            try container.encode(plan.flows, forKey: .flows)
            try container.encode(plan.reason, forKey: .reason)
            try container.encode(plan.condition.description, forKey: .condition)
        case .flowStarted(let flow, let attempt):
            try container.encode(flow, forKey: .flow)
            try container.encode(attempt, forKey: .attempt)
        case .progress(let flow, let code):
            try container.encode(flow, forKey: .flow)
            try container.encode(PhoneNumber.maskingNumbers(in: code), forKey: .code)
        case .result(let step):
            try container.encode(step.flow, forKey: .flow)
            try container.encode(step.attempt, forKey: .attempt)
            try container.encode(PhoneNumber.maskingNumbers(in: step.result.code), forKey: .code)
            try container.encode(step.action, forKey: .action)
            try container.encode(PhoneNumber.maskingNumbers(in: step.meaning), forKey: .meaning)
            try container.encode(step.next, forKey: .next)
        case .fallback(let from, let to, let action):
            try container.encode(from, forKey: .from)
            try container.encode(to, forKey: .to)
            try container.encode(action, forKey: .action)
        case .alert(let alert):
            try container.encode(alert.flow, forKey: .flow)
            try container.encode(PhoneNumber.maskingNumbers(in: alert.code), forKey: .code)
            try container.encode(PhoneNumber.maskingNumbers(in: alert.meaning), forKey: .meaning)
        case .succeeded(let flow):
            try container.encode(flow, forKey: .flow)
            try container.encode(Decision.Ending.success, forKey: .ending)
        case .cancelled(let flow):
            try container.encodeIfPresent(flow, forKey: .flow)
            try container.encode(Decision.Ending.cancelled, forKey: .ending)
        case .failed(let flow, let meaning):
            try container.encodeIfPresent(flow, forKey: .flow)
            try container.encode(Decision.Ending.failed, forKey: .ending)
            try container.encode(PhoneNumber.maskingNumbers(in: meaning), forKey: .meaning)
        }
    }
}
