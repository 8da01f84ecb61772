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
package enum LoginEvent: Hashable, Sendable, CustomStringConvertible {
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
    package var name: String {
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
    package var ending: Decision.Ending? {
        switch self {
        case .succeeded: .success
        case .cancelled: .cancelled
        case .failed: .failed
        default: nil
        }
    }

    /// A readable form, for messages and logs.
    package var description: String {
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
        writer.member("event", name)
        if let context {
            writer.member("session", context.session.text)
            writer.member("carrier", context.carrier.rawValue)
            writer.member("evidence", context.evidence.rawValue)
            writer.member("platform", context.platform?.rawValue)
            writer.member("elapsedMs", context.elapsedMilliseconds(at: at ?? context.startedAt))
        }
        switch self {
        case .planned(let plan):
            writer.key("flows")
            writer.array { writer in
                for flow in plan.flows { writer.string(flow.rawValue) }
            }
            writer.member("reason", plan.reason.rawValue)
            writer.member("condition", plan.condition.description)
        case .flowStarted(let flow, let attempt):
            writer.member("flow", flow.rawValue)
            writer.member("attempt", attempt)
        case .progress(let flow, let code):
            writer.member("flow", flow.rawValue)
            writer.member("code", PhoneNumber.maskingNumbers(in: code))
        case .result(let step):
            writer.member("flow", step.flow.rawValue)
            writer.member("attempt", step.attempt)
            writer.member("code", PhoneNumber.maskingNumbers(in: step.result.code))
            writer.member("action", step.action.rawValue)
            writer.member("meaning", PhoneNumber.maskingNumbers(in: step.meaning))
            writer.member("next", step.next.description)
        case .fallback(let from, let to, let action):
            writer.member("from", from.rawValue)
            writer.member("to", to.rawValue)
            writer.member("action", action.rawValue)
        case .alert(let alert):
            writer.member("flow", alert.flow.rawValue)
            writer.member("code", PhoneNumber.maskingNumbers(in: alert.code))
            writer.member("meaning", PhoneNumber.maskingNumbers(in: alert.meaning))
        case .succeeded(let flow):
            writer.member("flow", flow.rawValue)
            writer.member("ending", Decision.Ending.success.rawValue)
        case .cancelled(let flow):
            writer.member("flow", flow?.rawValue)
            writer.member("ending", Decision.Ending.cancelled.rawValue)
        case .failed(let flow, let meaning):
            writer.member("flow", flow?.rawValue)
            writer.member("ending", Decision.Ending.failed.rawValue)
            writer.member("meaning", PhoneNumber.maskingNumbers(in: meaning))
        }
    }
}
