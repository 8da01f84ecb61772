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
public enum LoginEvent: Hashable, Sendable, CustomStringConvertible {
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

    /// Writes the event as the members of one line of the event schema, into the object being written:
    /// `event`, then the login's `session`, `carrier`, `evidence`, `platform` (when known) and
    /// `elapsedMs` (from the login's start to `at`), then the event's own members (see `OneTapEvent`).
    /// - Parameters:
    ///   - writer: The writer, inside an object.
    ///   - context: The login the event belongs to; nil to write the event's own members alone.
    ///   - at: When it happened, for `elapsedMs`.
    package func writeMembers(to writer: inout JSONWriter, context: LoginContext?, at: Date?) {
        writer.key("event")
        writer.string(name)
        if let context {
            writer.key("session")
            writer.string(context.session.text)
            writer.key("carrier")
            writer.string(context.carrier.rawValue)
            writer.key("evidence")
            writer.string(context.evidence.rawValue)
            if let platform = context.platform {
                writer.key("platform")
                writer.string(platform.rawValue)
            }
            writer.key("elapsedMs")
            writer.int(context.elapsedMilliseconds(at: at ?? context.startedAt))
        }
        switch self {
        case .planned(let plan):
            writer.key("flows")
            writer.array { writer in
                for flow in plan.flows { writer.string(flow.rawValue) }
            }
            writer.key("reason")
            writer.string(plan.reason.rawValue)
            writer.key("condition")
            writer.string(plan.condition.description)
        case .flowStarted(let flow, let attempt):
            writer.key("flow")
            writer.string(flow.rawValue)
            writer.key("attempt")
            writer.int(attempt)
        case .progress(let flow, let code):
            writer.key("flow")
            writer.string(flow.rawValue)
            writer.key("code")
            writer.string(PhoneNumber.maskingNumbers(in: code))
        case .result(let step):
            writer.key("flow")
            writer.string(step.flow.rawValue)
            writer.key("attempt")
            writer.int(step.attempt)
            writer.key("code")
            writer.string(PhoneNumber.maskingNumbers(in: step.result.code))
            writer.key("action")
            writer.string(step.action.rawValue)
            writer.key("meaning")
            writer.string(PhoneNumber.maskingNumbers(in: step.meaning))
            writer.key("next")
            writer.string(step.next.description)
        case .fallback(let from, let to, let action):
            writer.key("from")
            writer.string(from.rawValue)
            writer.key("to")
            writer.string(to.rawValue)
            writer.key("action")
            writer.string(action.rawValue)
        case .alert(let alert):
            writer.key("flow")
            writer.string(alert.flow.rawValue)
            writer.key("code")
            writer.string(PhoneNumber.maskingNumbers(in: alert.code))
            writer.key("meaning")
            writer.string(PhoneNumber.maskingNumbers(in: alert.meaning))
        case .succeeded(let flow):
            writer.key("flow")
            writer.string(flow.rawValue)
            writer.key("ending")
            writer.string(Decision.Ending.success.rawValue)
        case .cancelled(let flow):
            if let flow {
                writer.key("flow")
                writer.string(flow.rawValue)
            }
            writer.key("ending")
            writer.string(Decision.Ending.cancelled.rawValue)
        case .failed(let flow, let meaning):
            if let flow {
                writer.key("flow")
                writer.string(flow.rawValue)
            }
            writer.key("ending")
            writer.string(Decision.Ending.failed.rawValue)
            writer.key("meaning")
            writer.string(PhoneNumber.maskingNumbers(in: meaning))
        }
    }
}
