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
        .exchanged(.answered(code, phoneNumber: code == "103000" || code == "0" ? number : nil))
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

/// A circuit breaker double: the admissions it hands the machine (the same for every carrier), and
/// every channel report of the transitions it was shown.
final class RecordingGate: @unchecked Sendable {
    struct Record: Hashable, Sendable, CustomStringConvertible {
        let flow: LoginFlow
        let carrier: Carrier
        let action: OutcomeAction
        let source: ChannelReport.Source
        var description: String { "\(carrier)/\(flow): \(action)" }
    }

    private let lock = NSLock()
    let admissions: ChannelAdmissions
    private var heard: [ChannelReport] = []

    init(_ admissions: [LoginFlow: ChannelAdmission] = [:]) {
        var entries: [Channel: ChannelAdmission] = [:]
        for carrier in Carrier.allCases {
            for (flow, admission) in admissions { entries[Channel(carrier: carrier, flow: flow)] = admission }
        }
        self.admissions = ChannelAdmissions(entries)
    }

    /// Keeps a transition's channel reports, and hands the transition back.
    func hear(_ transition: LoginTransition) -> LoginTransition {
        lock.withLock { heard += transition.channelReports }
        return transition
    }

    /// Every report heard, in order.
    var reports: [ChannelReport] { lock.withLock { heard } }
    /// The channels whose probe the logins started, in order.
    var probed: [LoginFlow] { reports.compactMap { if case .probing(let channel) = $0 { channel.flow } else { nil } } }
    /// Every attempt's end heard, in order.
    var records: [Record] {
        reports.compactMap { if case .ended(let channel, let action, let source) = $0 { Record(flow: channel.flow, carrier: channel.carrier, action: action, source: source) } else { nil } }
    }
    /// The actions recorded, in order.
    var actions: [OutcomeAction] { records.map(\.action) }
}

/// A machine driven the way `OneTap`'s drivers drive it with a breaker: every start and report gets the
/// gate's admissions, and the gate hears every transition's channel reports.
struct GatedMachine: Sendable {
    let machine: LoginSessionMachine
    let gate: RecordingGate

    init(_ machine: LoginSessionMachine = LoginSessionMachine(), gate: RecordingGate) {
        self.machine = machine
        self.gate = gate
    }

    var engine: LoginDecisionEngine { machine.engine }

    func start(_ snapshot: DeviceSnapshot, at now: Date, id: LoginSessionID, pending: PendingAction? = nil) -> LoginTransition {
        gate.hear(machine.start(snapshot, at: now, id: id, pending: pending, channels: gate.admissions))
    }

    func start(plan: LoginPlan, at now: Date, id: LoginSessionID) -> LoginTransition {
        gate.hear(machine.start(plan: plan, at: now, id: id, channels: gate.admissions))
    }

    func advance(_ session: LoginSession, _ report: LoginReport, version: Int? = nil, at now: Date) throws(LoginRejection) -> LoginTransition {
        // The tests' exchange answers stand for the server's exchange: bound to the token the session exchanges.
        gate.hear(try machine.advance(session, report.bound(to: session), version: version, at: now, channels: gate.admissions))
    }
}
