/// Which flows to try for each situation: `Data/routing-policy.csv`.
///
/// One row per ``Condition``. The engine checks the conditions in a fixed order: the device gates first
/// (no SIM, SIM not ready, no network, mobile data off, cellular restricted), then a virtual operator's
/// number, then the carrier. Each row names the flows in order (always ending with `sms`) and the
/// reason reported with the plan. Replace it at run time with ``init(contentsOf:)``; a file that leaves
/// a condition out, or names one twice, is refused.
public struct RoutingPolicy: DataTable {
    /// `routing-policy.csv`, the table's file in `Data/`.
    package static let fileName = "routing-policy.csv"

    /// A situation the policy has a row for.
    public enum Condition: Hashable, Sendable, CustomStringConvertible {
        /// The device has no SIM.
        case simAbsent
        /// The SIM is locked or starting.
        case simNotReady
        /// The device has no network.
        case noNetwork
        /// Mobile data is switched off.
        case mobileDataOff
        /// The app may not use cellular data.
        case cellularRestricted
        /// The phone-number hint is a virtual operator's (MVNO) number on the resolved carrier.
        case virtualOperator
        /// The resolved carrier.
        case carrier(Carrier)

        /// Every condition, in the order the engine checks them.
        package static let all: [Condition] =
            [.simAbsent, .simNotReady, .noNetwork, .mobileDataOff, .cellularRestricted, .virtualOperator]
            + Carrier.allCases.map { .carrier($0) }

        /// The id used in the file: `sim-absent`, …, `carrier:mobile`.
        public var description: String {
            switch self {
            case .simAbsent: "sim-absent"
            case .simNotReady: "sim-not-ready"
            case .noNetwork: "no-network"
            case .mobileDataOff: "mobile-data-off"
            case .cellularRestricted: "cellular-restricted"
            case .virtualOperator: "virtual-operator"
            case .carrier(let carrier): "carrier:\(carrier.rawValue)"
            }
        }

        /// The condition whose id is `id` (``description``'s text), or nil.
        /// - Parameter id: `sim-absent`, …, `carrier:mobile`.
        /// - Returns: The condition.
        /// - Complexity: O(1).
        package static func named(_ id: String) -> Condition? { byID[id] }

        /// The message for a condition id that names none.
        static func unknown(_ id: String) -> String { "unknown condition \(QuotedInput(id))" }

        private static let byID = Dictionary(uniqueKeysWithValues: all.map { ($0.description, $0) })

        /// A dense index, 0 ..< ``all``.count.
        var index: Int {
            switch self {
            case .simAbsent: 0
            case .simNotReady: 1
            case .noNetwork: 2
            case .mobileDataOff: 3
            case .cellularRestricted: 4
            case .virtualOperator: 5
            case .carrier(let carrier):
                switch carrier {
                case .mobile: 6
                case .unicom: 7
                case .telecom: 8
                case .tietong: 9
                case .broadnet: 10
                case .other: 11
                case .unknown: 12
                }
            }
        }
    }

    /// One row of the policy.
    package struct Rule: Hashable, Sendable, CustomStringConvertible {
        /// The situation.
        package let condition: Condition
        /// The flows to try, in order, ending with `sms`.
        package let flows: FlowSequence
        /// The reason reported with the plan.
        package let reason: RoutingReason
        /// Why the policy says so.
        package let source: String
        /// The row's line in its file.
        package let line: Int

        /// `carrier:mobile → mobile → sms (policy)`.
        package var description: String { "\(condition) → \(flows) (\(reason))" }
    }

    /// The columns of the file.
    static let columns = ["condition", "flows", "reason", "source"]

    /// The rules, indexed by ``Condition/index``.
    package let rules: [Rule]
    /// The flows and reason of each rule, apart from its text, for the allocation-free hot path.
    private let decisions: [(flows: FlowSequence, reason: RoutingReason)]

    /// The policy built from `Data/routing-policy.csv`: the default of every parameter that takes one
    /// (`@usableFromInline` for those default arguments; integrators pass a replacement or nothing).
    @usableFromInline package static let builtIn: RoutingPolicy = EmbeddedTable.load(RoutingPolicy.self)

    /// Reads a policy from CSV text.
    /// - Parameters:
    ///   - text: The file's text, in the `Data/routing-policy.csv` format.
    ///   - file: The name used in errors.
    /// - Throws: ``TableError`` for an unknown condition, flow or reason, flows that do not end with `sms`
    ///   or repeat a flow, a condition listed twice, or a condition left out.
    public init(csv text: String, file: String) throws(TableError) {
        let table = try CSVTable(text: text, file: file, columns: Self.columns)
        var rules = [Rule?](repeating: nil, count: Condition.all.count)
        var listed = ListedKeys<Condition>()
        for row in table.rows {
            guard let condition = Condition.named(row[0]) else {
                throw row.error(
                    file, column: "condition", .invalidValue,
                    "unknown condition \(QuotedInput(row[0])); expected one of \(Condition.all.map(\.description).joined(separator: ", "))")
            }
            var flows: [LoginFlow] = []
            for name in row[1].split(separator: " ") {
                flows.append(try LoginFlow.parse(String(name), row: row, file: file, column: "flows"))
            }
            if let problem = FlowSequence.validate(flows) {
                throw row.error(file, column: "flows", .invalidValue, "\(QuotedInput(row[1])): \(problem)")
            }
            let reason: RoutingReason = try row.choice(row[2], "reason", from: RoutingReason.allCases, file: file, column: "reason")
            try listed.insert(condition, "condition \(condition)", at: row, file: file, column: "condition")
            rules[condition.index] = Rule(condition: condition, flows: FlowSequence(unchecked: flows), reason: reason, source: row[3], line: row.line)
        }
        let missing = Condition.all.filter { rules[$0.index] == nil }
        guard missing.isEmpty else {
            throw TableError(
                file: file, line: 0, kind: .incomplete,
                message: "no row for \(missing.map(\.description).joined(separator: ", ")); the policy needs a row for every condition")
        }
        self.rules = rules.map { $0! }
        self.decisions = self.rules.map { ($0.flows, $0.reason) }
    }


    /// The rule for a condition.
    /// - Parameter condition: The situation.
    /// - Returns: Its rule.
    /// - Complexity: O(1).
    package func rule(for condition: Condition) -> Rule {
        rules[condition.index]
    }

    /// The flows and reason for a condition, without touching the rule's text.
    @inline(__always)
    func decision(for condition: Condition) -> (flows: FlowSequence, reason: RoutingReason) {
        decisions[condition.index]
    }
}
