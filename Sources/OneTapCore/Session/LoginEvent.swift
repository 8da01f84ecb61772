#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Something a login did, for logs and counters. Events carry codes and meanings, never a token.
public enum LoginEvent: Hashable, Sendable, CustomStringConvertible, Encodable {
    /// A plan was made.
    case planned(LoginPlan)
    /// A flow started (attempt from 1).
    case flowStarted(flow: LoginFlow, attempt: Int)
    /// A flow answered.
    case result(flow: LoginFlow, code: String, action: OutcomeAction, meaning: String)
    /// A flow did not answer in time.
    case timeout(flow: LoginFlow)
    /// A flow reported progress (a code that is no result yet, such as 200087: the page is shown).
    case progress(flow: LoginFlow, code: String)
    /// The server's exchange of a flow's token answered (or did not, for `exchange-timeout`).
    case exchange(flow: LoginFlow, code: String, action: OutcomeAction, meaning: String)
    /// The login moved from one flow to another.
    case fallback(from: LoginFlow, to: LoginFlow, action: OutcomeAction)
    /// A flow was skipped (circuit open, no provider).
    case skipped(flow: LoginFlow, reason: String)
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
        case .result: "result"
        case .timeout: "timeout"
        case .progress: "progress"
        case .exchange: "exchange"
        case .fallback: "fallback"
        case .skipped: "skipped"
        case .alert: "alert"
        case .succeeded: "succeeded"
        case .cancelled: "cancelled"
        case .failed: "failed"
        }
    }

    /// A readable form, for messages and logs.
    public var description: String {
        switch self {
        case .planned(let plan): "planned \(plan)"
        case .flowStarted(let flow, let attempt): "flow-started \(flow) attempt \(attempt)"
        case .result(let flow, let code, let action, let meaning): "result \(flow) \(code) → \(action): \(meaning)"
        case .timeout(let flow): "timeout \(flow)"
        case .progress(let flow, let code): "progress \(flow) \(code)"
        case .exchange(let flow, let code, let action, let meaning): "exchange \(flow) \(code) → \(action): \(meaning)"
        case .fallback(let from, let to, let action): "fallback \(from) → \(to) (\(action))"
        case .skipped(let flow, let reason): "skipped \(flow): \(reason)"
        case .alert(let alert): "alert \(alert)"
        case .succeeded(let flow): "succeeded \(flow)"
        case .cancelled(let flow): "cancelled\(flow.map { " \($0)" } ?? "")"
        case .failed(let flow, let meaning): "failed\(flow.map { " \($0)" } ?? ""): \(meaning)"
        }
    }

    private enum CodingKeys: String, CodingKey { case event, flow, attempt, code, action, meaning, from, to, reason, plan }

    /// Encodes `{"event": name, …}`.
    /// - Parameter encoder: The encoder.
    /// - Throws: What the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .event)
        switch self {
        case .planned(let plan):
            try container.encode(plan, forKey: .plan)
        case .flowStarted(let flow, let attempt):
            try container.encode(flow, forKey: .flow)
            try container.encode(attempt, forKey: .attempt)
        case .result(let flow, let code, let action, let meaning):
            try container.encode(flow, forKey: .flow)
            try container.encode(code, forKey: .code)
            try container.encode(action, forKey: .action)
            try container.encode(meaning, forKey: .meaning)
        case .timeout(let flow):
            try container.encode(flow, forKey: .flow)
        case .progress(let flow, let code):
            try container.encode(flow, forKey: .flow)
            try container.encode(code, forKey: .code)
        case .exchange(let flow, let code, let action, let meaning):
            try container.encode(flow, forKey: .flow)
            try container.encode(code, forKey: .code)
            try container.encode(action, forKey: .action)
            try container.encode(meaning, forKey: .meaning)
        case .fallback(let from, let to, let action):
            try container.encode(from, forKey: .from)
            try container.encode(to, forKey: .to)
            try container.encode(action, forKey: .action)
        case .skipped(let flow, let reason):
            try container.encode(flow, forKey: .flow)
            try container.encode(reason, forKey: .reason)
        case .alert(let alert):
            try container.encode(alert.flow, forKey: .flow)
            try container.encode(alert.code, forKey: .code)
            try container.encode(alert.meaning, forKey: .meaning)
        case .succeeded(let flow):
            try container.encode(flow, forKey: .flow)
        case .cancelled(let flow):
            try container.encodeIfPresent(flow, forKey: .flow)
        case .failed(let flow, let meaning):
            try container.encodeIfPresent(flow, forKey: .flow)
            try container.encode(meaning, forKey: .meaning)
        }
    }
}
