import Testing
@testable import OneTapCore

@Suite struct LoginDecisionEngineTests {
    let engine = LoginDecisionEngine()

    struct RouteCase: Sendable, CustomTestStringConvertible {
        let name: String
        let snapshot: DeviceSnapshot
        let flows: FlowSequence
        let reason: RoutingReason
        var testDescription: String { name }
    }

    static let routes: [RouteCase] = [
        RouteCase(name: "no SIM", snapshot: DeviceSnapshot(sim: .absent), flows: [.sms], reason: .noSIM),
        RouteCase(name: "SIM not ready", snapshot: DeviceSnapshot(sim: .notReady, plmn: try! PLMN("46000")), flows: [.sms], reason: .simNotReady),
        RouteCase(name: "no network", snapshot: DeviceSnapshot(plmn: try! PLMN("46000"), network: DeviceSnapshot.Network.none), flows: [.sms], reason: .noNetwork),
        RouteCase(name: "mobile data off on Wi-Fi", snapshot: DeviceSnapshot(plmn: try! PLMN("46000"), mobileData: false, network: .wifi), flows: [.sms], reason: .mobileDataOff),
        RouteCase(name: "cellular restricted", snapshot: DeviceSnapshot(plmn: try! PLMN("46000"), cellularAccess: .restricted), flows: [.sms], reason: .cellularRestricted),
        RouteCase(name: "cellular access unknown does not block", snapshot: DeviceSnapshot(plmn: try! PLMN("46000"), cellularAccess: .unknown), flows: [.mobile, .sms], reason: .policy),
        RouteCase(name: "Wi-Fi with mobile data on", snapshot: DeviceSnapshot(plmn: try! PLMN("46000"), mobileData: true, network: .wifi), flows: [.mobile, .sms], reason: .policy),
        RouteCase(name: "both networks", snapshot: DeviceSnapshot(plmn: try! PLMN("46000"), network: .both), flows: [.mobile, .sms], reason: .policy),
        RouteCase(name: "unreported data state", snapshot: DeviceSnapshot(sim: .present, plmn: try! PLMN("46000")), flows: [.mobile, .sms], reason: .policy),
        RouteCase(name: "China Mobile", snapshot: DeviceSnapshot(plmn: try! PLMN("46007")), flows: [.mobile, .sms], reason: .policy),
        RouteCase(name: "China Unicom", snapshot: DeviceSnapshot(plmn: try! PLMN("46001")), flows: [.tianyi, .sms], reason: .policy),
        RouteCase(name: "China Telecom", snapshot: DeviceSnapshot(plmn: try! PLMN("46011")), flows: [.tianyi, .sms], reason: .policy),
        RouteCase(name: "China Tietong", snapshot: DeviceSnapshot(plmn: try! PLMN("46020")), flows: [.tianyi, .sms], reason: .policy),
        RouteCase(name: "China Broadnet", snapshot: DeviceSnapshot(plmn: try! PLMN("46015")), flows: [.sms], reason: .carrierUnsupported),
        RouteCase(name: "Hong Kong CMHK", snapshot: DeviceSnapshot(plmn: try! PLMN("45412")), flows: [.sms], reason: .carrierUnsupported),
        RouteCase(name: "Taiwan", snapshot: DeviceSnapshot(plmn: try! PLMN("46692")), flows: [.sms], reason: .carrierUnsupported),
        RouteCase(name: "unknown carrier", snapshot: DeviceSnapshot(sim: .present), flows: [.mobile, .sms], reason: .carrierUnknown),
        RouteCase(name: "unassigned mainland MNC", snapshot: DeviceSnapshot(plmn: try! PLMN("46099")), flows: [.mobile, .sms], reason: .carrierUnknown),
        RouteCase(name: "virtual operator", snapshot: DeviceSnapshot(plmn: try! PLMN("46011"), phoneHint: try! PhoneNumber("17001234567")), flows: [.sms], reason: .virtualOperator),
        RouteCase(name: "IPv6 names Telecom over cellular", snapshot: DeviceSnapshot(network: .cellular, clientIP: try! IPAddress("240e:400::1")), flows: [.tianyi, .sms], reason: .policy),
        RouteCase(name: "gates come before the carrier", snapshot: DeviceSnapshot(sim: .notReady, plmn: try! PLMN("46015"), mobileData: false), flows: [.sms], reason: .simNotReady),
    ]

    @Test(arguments: routes)
    func routing(testCase: RouteCase) {
        let plan = engine.plan(for: testCase.snapshot)
        #expect(plan.flows == testCase.flows)
        #expect(plan.reason == testCase.reason)
        #expect(plan.flows.last == .sms)
    }

    @Test func planCarriesCarrierAndEvidence() throws {
        let plan = engine.plan(for: DeviceSnapshot(plmn: try PLMN("46000"), mobileData: false))
        #expect(plan.carrier == .mobile && plan.evidence == .plmn && plan.reason == .mobileDataOff)
        #expect(plan.description == "sms (mobile-data-off; carrier mobile from plmn)")
        let none = engine.plan(for: DeviceSnapshot(sim: .absent, plmn: try PLMN("46000")))
        #expect(none.carrier == .unknown && none.evidence == .none)
    }

    struct NextCase: Sendable, CustomTestStringConvertible {
        let flow: LoginFlow
        let code: ResultCode
        let plan: FlowSequence
        let attempt: Int
        let step: Decision.Step
        let note: Decision.Note
        var testDescription: String { "\(flow) \(code) attempt \(attempt) in \(plan)" }
    }

    static let nexts: [NextCase] = [
        NextCase(flow: .mobile, code: 103000, plan: [.mobile, .sms], attempt: 1, step: .finish(.success), note: .asClassified),
        NextCase(flow: .mobile, code: 200020, plan: [.mobile, .sms], attempt: 1, step: .finish(.cancelled), note: .asClassified),
        NextCase(flow: .mobile, code: 102101, plan: [.mobile, .sms], attempt: 1, step: .attempt(.sms), note: .asClassified),
        NextCase(flow: .mobile, code: 103101, plan: [.mobile, .sms], attempt: 1, step: .attempt(.sms), note: .asClassified),
        NextCase(flow: .mobile, code: 200023, plan: [.mobile, .sms], attempt: 1, step: .retry(.mobile), note: .asClassified),
        NextCase(flow: .mobile, code: 200023, plan: [.mobile, .sms], attempt: 2, step: .attempt(.sms), note: .retriesExhausted),
        NextCase(flow: .mobile, code: 200060, plan: [.mobile, .tianyi, .sms], attempt: 1, step: .attempt(.sms), note: .asClassified),
        NextCase(flow: .mobile, code: 102101, plan: [.mobile, .tianyi, .sms], attempt: 1, step: .attempt(.tianyi), note: .asClassified),
        NextCase(flow: .mobile, code: 999_999, plan: [.mobile, .sms], attempt: 1, step: .attempt(.sms), note: .asClassified),
        NextCase(flow: .tianyi, code: -8994014, plan: [.tianyi, .sms], attempt: 1, step: .attempt(.sms), note: .asClassified),
        NextCase(flow: .tianyi, code: 999_999, plan: [.tianyi, .sms], attempt: 1, step: .finish(.failed), note: .asClassified),
        NextCase(flow: .tianyi, code: -8003, plan: [.tianyi, .sms], attempt: 1, step: .retry(.tianyi), note: .asClassified),
        NextCase(flow: .sms, code: 0, plan: [.sms], attempt: 1, step: .finish(.success), note: .asClassified),
        NextCase(flow: .sms, code: 5, plan: [.sms], attempt: 1, step: .finish(.failed), note: .asClassified),
        NextCase(flow: .tianyi, code: -8001, plan: [.mobile, .sms], attempt: 1, step: .attempt(.sms), note: .asClassified),
    ]

    @Test(arguments: nexts)
    func next(testCase: NextCase) {
        let plan = LoginPlan(carrier: .unknown, evidence: .none, flows: testCase.plan, reason: .policy, condition: .carrier(.unknown))
        let decision = engine.next(after: testCase.flow, code: testCase.code, in: plan, attempt: testCase.attempt)
        #expect(decision.step == testCase.step)
        #expect(decision.note == testCase.note)
        #expect(decision.outcome.flow == testCase.flow && decision.outcome.code == testCase.code)
    }

    @Test func fallbackFromTheLastFlowFails() {
        let plan = LoginPlan(carrier: .mobile, evidence: .plmn, flows: [.sms], reason: .policy, condition: .carrier(.mobile))
        let outcomeTable = try! OutcomeTable(csv: "flow,code,action,meaning_zh,meaning_en,source\nmobile,*,fallback,a,b,s\ntianyi,*,failed,a,b,s\nunicom,*,fallback,a,b,s\nsms,*,fallback,a,b,s\nsms,7,switch,a,b,s\n", file: "x")
        let custom = LoginDecisionEngine(tables: DecisionTables(outcomes: outcomeTable))
        #expect(custom.next(after: .sms, code: 1, in: plan).step == .finish(.failed))
        #expect(custom.next(after: .sms, code: 1, in: plan).note == .planExhausted)
        #expect(custom.next(after: .sms, code: 7, in: plan).step == .finish(.failed))
    }

    @Test func misconfiguredRaisesAnAlert() {
        let plan = engine.plan(for: DeviceSnapshot(plmn: try! PLMN("46000")))
        let decision = engine.next(after: .mobile, code: 103101, in: plan)
        #expect(decision.alert)
        #expect(!engine.next(after: .mobile, code: 102101, in: plan).alert)
        #expect(decision.description.contains("⇒ attempt sms"))
    }

    @Test func maxAttemptsIsConfigurable() {
        let plan = engine.plan(for: DeviceSnapshot(plmn: try! PLMN("46000")))
        let noRetry = LoginDecisionEngine(maxAttemptsPerFlow: 1)
        #expect(noRetry.next(after: .mobile, code: 200023, in: plan).step == .attempt(.sms))
        let threeTries = LoginDecisionEngine(maxAttemptsPerFlow: 3)
        #expect(threeTries.next(after: .mobile, code: 200023, in: plan, attempt: 2).step == .retry(.mobile))
        #expect(LoginDecisionEngine(maxAttemptsPerFlow: -5).maxAttemptsPerFlow == 1)
    }
}
