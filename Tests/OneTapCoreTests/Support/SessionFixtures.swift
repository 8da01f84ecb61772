import Foundation
import Testing
@testable import OneTapCore

/// What the session tests share: devices, plans, credentials, and short written forms of what a
/// session did, so expectations read as the rules are written (`mobile:200023:retry`).
enum Fixture {
    /// 2026-12-01T00:00:00Z.
    static let now = Date(timeIntervalSince1970: 1_796_083_200)
    /// The sessions' id in scenarios (so an SMS verdict can name it).
    static let id = try! LoginSessionID("Session-ID-for-tests_0")
    /// Another session's id.
    static let otherID = try! LoginSessionID("Another-session-id_001")
    /// The number the exchange and SMS verify.
    static let number = try! PhoneNumber("13800138000")

    /// A China Mobile SIM: the policy plans mobile → sms.
    static let mobileSIM = DeviceSnapshot(sim: .present, plmn: try! PLMN("46000"))
    /// A China Telecom SIM: tianyi → sms.
    static let telecomSIM = DeviceSnapshot(sim: .present, plmn: try! PLMN("46011"))
    /// No SIM: sms only.
    static let noSIM = DeviceSnapshot(sim: .absent)

    /// Every flow, one-tap first.
    static let fourFlows = plan([.mobile, .tianyi, .unicom, .sms])

    /// A plan with these flows on a China Mobile SIM.
    static func plan(_ flows: FlowSequence, carrier: Carrier = .mobile) -> LoginPlan {
        LoginPlan(carrier: carrier, evidence: .plmn, flows: flows, reason: .policy, condition: .carrier(carrier))
    }

    /// A complete credential for a flow (China Mobile's with a uniqueid).
    static func credential(_ flow: LoginFlow, _ token: String, uniqueID: String? = "uid-1") -> CarrierCredential {
        CarrierCredential(flow: flow, token: Secret(token), uniqueID: flow == .mobile ? uniqueID : nil)
    }

    /// The success report of a flow (China Mobile 103000, the others 0) with a complete credential.
    static func success(_ flow: LoginFlow, _ token: String) -> LoginReport {
        .result(flow, code: flow == .mobile ? "103000" : "0", credential: credential(flow, token))
    }

    /// An exchange answer with a code; the number comes with the success codes.
    static func exchange(_ code: ResultCode) -> LoginReport {
        .exchange(.answered(code, phoneNumber: code == "103000" || code == "0" ? number : nil))
    }

    /// The SMS code service's verdict for a session.
    static func verdict(for session: LoginSessionID? = id) -> LoginReport {
        .smsVerified(SMSVerdict(phoneNumber: number, session: session, verifiedAt: now))
    }

    /// `flow:code:action`.
    static func summary(_ step: LoginStep) -> String { "\(step.flow):\(step.result.code):\(step.action)" }

    /// `run mobile 1`, `sms`, `exchange mobile`, `done success mobile`.
    static func summary(_ instruction: LoginInstruction) -> String {
        switch instruction {
        case .run(let flow, let attempt): "run \(flow) \(attempt)"
        case .sms: "sms"
        case .exchange(let credential): "exchange \(credential.flow)"
        case .done(let ending, let flow, _): "done \(ending) \(flow.map(\.rawValue) ?? "-")"
        }
    }

    /// The SHA-256 of a token as the machine keeps it.
    static func digest(_ token: String) -> SHA256Digest { SHA256.hash(token.utf8) }
}

/// A circuit breaker double: admits each flow as told and records every `record` call.
final class RecordingGate: ChannelGate, @unchecked Sendable {
    struct Record: Hashable, Sendable, CustomStringConvertible {
        let flow: LoginFlow
        let carrier: Carrier
        let action: OutcomeAction
        var description: String { "\(carrier)/\(flow): \(action)" }
    }

    private let lock = NSLock()
    private var admissions: [LoginFlow: ChannelAdmission]
    private var asked: [LoginFlow] = []
    private var recorded: [Record] = []

    init(_ admissions: [LoginFlow: ChannelAdmission] = [:]) { self.admissions = admissions }

    func admit(_ flow: LoginFlow, for carrier: Carrier, at now: Date) -> ChannelAdmission {
        lock.withLock {
            asked.append(flow)
            return admissions[flow] ?? .allowed
        }
    }

    func record(_ flow: LoginFlow, for carrier: Carrier, action: OutcomeAction, at now: Date) {
        lock.withLock { recorded.append(Record(flow: flow, carrier: carrier, action: action)) }
    }

    /// The flows `admit` was asked about, in order.
    var admitted: [LoginFlow] { lock.withLock { asked } }
    /// Every `record` call, in order.
    var records: [Record] { lock.withLock { recorded } }
    /// The actions recorded, in order.
    var actions: [OutcomeAction] { records.map(\.action) }
}
