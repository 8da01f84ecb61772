import Testing
@testable import OneTapCore

@Suite struct RoutingPolicyTests {
    let policy = RoutingPolicy.builtIn
    let header = "condition,flows,reason,source\n"

    /// Every row of Data/routing-policy.csv, read independently, is reachable: a snapshot that triggers
    /// its condition gets exactly the row's flows and reason.
    @Test(arguments: DataFile.rows("routing-policy.csv"))
    func everyRuleApplies(row: DataRow) throws {
        try #require(row.problem == nil)
        let condition = try #require(RoutingPolicy.Condition.all.first { $0.description == row["condition"] })
        let snapshot: DeviceSnapshot
        switch condition {
        case .simAbsent: snapshot = DeviceSnapshot(sim: .absent)
        case .simNotReady: snapshot = DeviceSnapshot(sim: .notReady, plmn: try PLMN("46000"))
        case .noNetwork: snapshot = DeviceSnapshot(plmn: try PLMN("46000"), network: DeviceSnapshot.Network.none)
        case .mobileDataOff: snapshot = DeviceSnapshot(plmn: try PLMN("46000"), mobileData: false, network: .wifi)
        case .cellularRestricted: snapshot = DeviceSnapshot(plmn: try PLMN("46000"), cellularAccess: .restricted)
        case .virtualOperator: snapshot = DeviceSnapshot(plmn: try PLMN("46001"), phoneHint: try PhoneNumber("17041234567"))
        case .carrier(let carrier):
            let plmn: PLMN? = switch carrier {
            case .mobile: try PLMN("46000")
            case .unicom: try PLMN("46001")
            case .telecom: try PLMN("46011")
            case .tietong: try PLMN("46020")
            case .broadnet: try PLMN("46015")
            case .other: try PLMN("45412")
            case .unknown: nil
            }
            snapshot = DeviceSnapshot(sim: .present, plmn: plmn)
        }
        let plan = LoginDecisionEngine().plan(for: snapshot)
        #expect(plan.condition == condition)
        #expect(plan.flows.map(\.rawValue) == row["flows"].split(separator: " ").map(String.init))
        #expect(plan.reason.rawValue == row["reason"])
        #expect(plan.flows.last == .sms)
    }

    @Test func everyConditionHasARule() {
        #expect(policy.rules.map(\.condition) == RoutingPolicy.Condition.all)
        #expect(Set(DataFile.rows("routing-policy.csv").map { $0["condition"] }) == Set(RoutingPolicy.Condition.all.map(\.description)))
    }

    @Test func replacementPolicyCanSelectUnicom() throws {
        let text = policy.rules.map { rule in
            rule.condition == .carrier(.unicom)
                ? "carrier:unicom,unicom tianyi sms,policy,ours"
                : "\(rule.condition),\(rule.flows.map(\.rawValue).joined(separator: " ")),\(rule.reason),s"
        }.joined(separator: "\n")
        let custom = try RoutingPolicy(csv: header + text, file: "custom.csv")
        let engine = LoginDecisionEngine(policy: custom)
        #expect(Array(engine.plan(for: DeviceSnapshot(plmn: try PLMN("46001"))).flows) == [.unicom, .tianyi, .sms])
    }

    @Test(arguments: [
        ("sim-absnt,sms,no-sim,s", "condition", TableError.Kind.invalidValue),
        ("sim-absent,sms mobile,no-sim,s", "flows", .invalidValue),
        ("sim-absent,sms sms,no-sim,s", "flows", .invalidValue),
        ("sim-absent,mobile,no-sim,s", "flows", .invalidValue),
        ("sim-absent,,no-sim,s", "flows", .invalidValue),
        ("sim-absent,smz,no-sim,s", "flows", .invalidValue),
        ("sim-absent,sms,because,s", "reason", .invalidValue),
    ])
    func malformedRows(row: String, column: String, kind: TableError.Kind) {
        #expect {
            try RoutingPolicy(csv: header + row + "\n", file: "p.csv")
        } throws: { error in
            let error = error as! TableError
            return error.column == column && error.kind == kind && error.line == 2
        }
    }

    @Test func incompleteAndDuplicatePoliciesAreRefused() {
        #expect {
            try RoutingPolicy(csv: header + "sim-absent,sms,no-sim,s\n", file: "p.csv")
        } throws: { error in
            let error = error as! TableError
            return error.kind == .incomplete && error.message.hasPrefix("no row for sim-not-ready, no-network")
        }
        #expect {
            try RoutingPolicy(csv: header + "sim-absent,sms,no-sim,s\nsim-absent,sms,no-sim,s\n", file: "p.csv")
        } throws: { error in
            (error as! TableError).kind == .duplicateKey
        }
    }
}
