import Foundation
import OneTap

/// An independent reading of a session's JSON, for the `session-json` and `session` targets: the
/// document's members decoded by Foundation's `JSONDecoder` into plain values (a mirror of the format
/// kept here, not the library's reader), then compared member by member with the session
/// `LoginSession(json:)` made of the same bytes. A session the library reads must be what Foundation
/// reads there.
struct SessionOracle: Decodable {
    struct Plan: Decodable {
        let carrier, evidence, reason, condition: String
        let flows: [String]
    }

    struct Step: Decodable {
        let flow: String
        let attempt: Int
        let code: String
        let detail: String?
        let action, meaning, next: String
    }

    struct Alert: Decodable {
        let flow, code, meaning: String
    }

    struct Unknown: Decodable {
        let flow, token: String
        let at: Double?
        let atMs: Int64?
    }

    struct Verified: Decodable {
        let phoneNumber: String
        let account: String?
    }

    struct Pending: Decodable {
        let key, action: String
        let payload: JSONValue?
        let createdAt, expiresAt: Double?
        let createdAtMs, expiresAtMs: Int64?
    }

    let format, id, stage: String
    let version: Int
    let plan: Plan
    let flow: String?
    let attempt: Int?
    let token: String?
    let receivedAt: Double?
    let receivedAtMs: Int64?
    let ending: String?
    let trace: [Step]
    let alerts: [Alert]
    let createdAt, expiresAt: Double?
    let createdAtMs, expiresAtMs: Int64?
    let exchangedTokens: [String]
    let unknownExchanges: [Unknown]
    let verified: Verified?
    let pending: Pending?
    let platform: String?

    /// Reads the bytes with Foundation (zeroes written with an exponent, which it refuses, written plain).
    static func read(_ bytes: [UInt8]) -> SessionOracle? {
        try? JSONDecoder().decode(SessionOracle.self, from: Data(Targets.zeroesWithAnExponentWrittenPlain(bytes) ?? bytes))
    }

    /// Whether the session holds what Foundation read, member by member; the first difference if not.
    func difference(from session: LoginSession) -> String? {
        let seconds = format == "onetap-session/1"
        func instant(_ secondsValue: Double?, _ milliseconds: Int64?) -> Date? {
            seconds ? secondsValue.map { Date(timeIntervalSince1970: $0).roundedToMilliseconds } : milliseconds.map(Date.init(millisecondsSince1970:))
        }
        func digest(_ hex: String?) -> SHA256Digest? { hex.flatMap(SHA256Digest.init(hex:)) }
        guard format == "onetap-session/1" || format == "onetap-session/2" else { return "format \(format)" }
        guard (try? LoginSessionID(id)) == session.id else { return "id" }
        guard version == session.version else { return "version" }
        guard plan.carrier == session.plan.carrier.rawValue, plan.evidence == session.plan.evidence.rawValue, plan.reason == session.plan.reason.rawValue,
            RoutingPolicy.Condition.named(plan.condition) == session.plan.condition, plan.flows == session.plan.flows.map(\.rawValue)
        else { return "plan" }
        switch session.stage {
        case .flow(let sessionFlow, let sessionAttempt):
            guard stage == "flow", flow == sessionFlow.rawValue, attempt == sessionAttempt else { return "stage" }
        case .exchange(let sessionFlow, let sessionAttempt, let sessionToken, let sessionReceivedAt):
            guard stage == "exchange", flow == sessionFlow.rawValue, attempt == sessionAttempt, digest(token) == sessionToken,
                instant(receivedAt, receivedAtMs) == sessionReceivedAt
            else { return "stage" }
        case .ended(let sessionEnding, let sessionFlow):
            guard stage == "ended", ending == sessionEnding.rawValue, flow == sessionFlow?.rawValue else { return "stage" }
        }
        guard trace.count == session.trace.count else { return "trace" }
        for (read, step) in zip(trace, session.trace) {
            // The code's text read as the library reads a result (its marks, `code:timeout`, are its own).
            guard read.flow == step.flow.rawValue, read.attempt == step.attempt, LoginStep.Answer(code: read.code, detail: read.detail) == step.result,
                read.action == step.action.rawValue, read.meaning == step.meaning, Decision.Step(read.next) == step.next
            else { return "a step" }
        }
        guard alerts.map({ [$0.flow, $0.code, $0.meaning] }) == session.alerts.map({ [$0.flow.rawValue, $0.code, $0.meaning] }) else { return "alerts" }
        guard instant(createdAt, createdAtMs) == session.createdAt, instant(expiresAt, expiresAtMs) == session.expiresAt else { return "instants" }
        guard exchangedTokens.map(digest) == session.exchangedTokens else { return "exchanged tokens" }
        guard unknownExchanges.count == session.unknownExchanges.count else { return "unknown exchanges" }
        for (read, unknown) in zip(unknownExchanges, session.unknownExchanges) {
            guard read.flow == unknown.flow.rawValue, digest(read.token) == unknown.token, instant(read.at, read.atMs) == unknown.at else { return "an unknown exchange" }
        }
        guard (try? verified.map { try PhoneNumber($0.phoneNumber) }) == session.verified?.phoneNumber,
            (try? verified?.account.map { try AccountID($0) }) == session.verified?.account
        else { return "verified" }
        guard pending?.key == session.pending?.key, pending?.action == session.pending?.action, (pending?.payload ?? nil) == session.pending?.payload ?? nil,
            pending.flatMap({ instant($0.createdAt, $0.createdAtMs) }) == session.pending?.createdAt,
            pending.flatMap({ instant($0.expiresAt, $0.expiresAtMs) }) == session.pending?.expiresAt
        else { return "pending" }
        guard (try? platform.map { try Platform($0) }) == session.platform else { return "platform" }
        return nil
    }
}
