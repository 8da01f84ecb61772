/// What the server's exchange answers mean, per gateway and flow: `Data/exchange-codes.csv`.
///
/// The exchange turns a one-tap token into the phone number, through the carrier's own API (China Mobile's
/// `loginTokenValidate`: gateway `cmcc`; China Telecom's Tianyi API: `tianyi`; China Unicom's: `unicom`) or an
/// aggregator's (`aliyun-pnvs`, `jverification`, `shanyan`, `yidun`), each with codes of its own. Its codes are not
/// the SDK's: the same number can mean something else here, and at another gateway. Each (gateway, flow) the table
/// lists has a default row (`*`) for codes it does not list.
public struct ExchangeCodeTable: DataTable {
    /// `exchange-codes.csv`, the table's file in `Data/`.
    package static let fileName = "exchange-codes.csv"

    /// One row of the table: the action `success`, `retry` (run the flow once more), `fallback`, `switch`
    /// (SMS now), `misconfigured` (fall back and alert) or `failed`.
    package typealias Entry = CodeRow

    /// The columns of the file (found by name; `gateway` is read last whatever its place).
    static let columns = ["flow", "code", "action", "alert", "meaning_zh", "meaning_en", "source", "gateway"]

    /// The actions an exchange answer may lead to.
    static let actions: [OutcomeAction] = [.success, .retry, .fallback, .switch, .misconfigured, .failed]

    /// The carriers' own gateways: the one that answers a flow unless ``ExchangeRules`` names another.
    package static let carrierGateways: [LoginFlow: String] = [.mobile: "cmcc", .tianyi: "tianyi", .unicom: "unicom"]

    /// Every row, in file order.
    package let entries: [Entry]
    /// Each gateway's rows, keyed (flow, code).
    private let gateways: [String: CodeRows]

    /// The table built from `Data/exchange-codes.csv`: the default of every parameter that takes one
    /// (`@usableFromInline` for those default arguments; integrators pass a replacement or nothing).
    @usableFromInline package static let builtIn: ExchangeCodeTable = EmbeddedTable.load(ExchangeCodeTable.self)

    /// Reads a table from CSV text.
    /// - Parameters:
    ///   - text: The file's text, in the `Data/exchange-codes.csv` format.
    ///   - file: The name used in errors.
    /// - Throws: ``TableError`` for an unknown or SMS flow, a gateway name that is empty or not lower-case letters,
    ///   digits and `-`, an action an exchange cannot lead to, `alert` other than `yes` / `no` (or `no` on a
    ///   `misconfigured` row), a malformed or duplicate code, a row without a meaning, a `*` row whose action is
    ///   `success`, a (gateway, flow) without its `*` row, or a carrier's own gateway missing for its flow.
    public init(csv text: String, file: String) throws(TableError) {
        let table = try CSVTable(text: text, file: file, columns: Self.columns)
        var order: [String] = []
        var byGateway: [String: [CSVTable.Row]] = [:]
        for row in table.rows {
            let name = try GatewayName.parse(row[7], row: row, file: file)
            if byGateway[name] == nil { order.append(name) }
            byGateway[name, default: []].append(row)
        }
        var gateways: [String: CodeRows] = [:]
        for name in order {
            let rows = byGateway[name] ?? []
            let flows = LoginFlow.allCases.filter { flow in flow.isOneTap && rows.contains { $0[0] == flow.rawValue } }
            gateways[name] = try CodeRows(
                table, only: rows, file: file, flows: flows.isEmpty ? LoginFlow.allCases.filter(\.isOneTap) : flows,
                otherFlow: "sms has no exchange; list one-tap flows only", everyFlow: "every (gateway, flow) needs one (gateway \(name))",
                name: "an exchange-code table"
            ) { (row, flow, code) throws(TableError) in
                let action: OutcomeAction = try row.choice(row[2], "action", from: Self.actions, file: file, column: "action")
                let alert = try YesNo.parse(row[3], row: row, file: file, column: "alert")
                if action == .misconfigured && !alert {
                    throw row.error(file, column: "alert", .invalidValue, "a misconfigured answer always alerts operators; write yes")
                }
                if row[4].isEmpty && row[5].isEmpty {
                    throw row.error(file, column: "meaning_en", .invalidValue, "a row needs a meaning (meaning_zh or meaning_en)")
                }
                return Entry(
                    flow: flow, code: code, action: action, alert: alert, meaningZH: row[4], meaningEN: row[5], source: row[6], line: row.line,
                    gateway: name)
            }
        }
        for (flow, name) in Self.carrierGateways.sorted(by: { $0.key.index < $1.key.index }) where gateways[name]?.defaults[flow.index] ?? -1 < 0 {
            throw TableError(file: file, line: 0, kind: .incomplete, message: "flow \(flow) has no rows of its carrier's own gateway \(name) (at least its * row)")
        }
        self.gateways = gateways
        entries = gateways.values.flatMap(\.entries).sorted { $0.line < $1.line }
    }

    /// Whether a gateway's answer code is one the built-in table lists as `success` (the number came back) for any flow:
    /// what the adapters OneTap ships read an answer by, so each vendor's success code is written once, in
    /// `Data/exchange-codes.csv`.
    /// - Parameters:
    ///   - code: The code as the adapter read it (a ``ResultCode``: its text trimmed).
    ///   - gateway: The gateway's name (`cmcc`, `shanyan`).
    /// - Returns: True for a success code of the gateway.
    /// - Complexity: O(*n*) in the table's rows; no allocation.
    package static func returnsTheNumber(_ code: ResultCode, gateway: String) -> Bool {
        builtIn.entries.contains { $0.gateway == gateway && $0.action == .success && $0.code == code }
    }

    /// The gateways the table lists, in file order of their first rows.
    package var gatewayNames: [String] {
        var seen: Set<String> = []
        return entries.compactMap { seen.insert($0.gateway).inserted ? $0.gateway : nil }
    }

    /// Whether the table reads a gateway's answers for a flow.
    /// - Parameters:
    ///   - gateway: The gateway's name.
    ///   - flow: The one-tap flow.
    /// - Returns: True when the gateway has the flow's `*` row.
    package func lists(_ gateway: String, for flow: LoginFlow) -> Bool {
        flow.isOneTap && (gateways[gateway]?.defaults[flow.index] ?? -1) >= 0
    }

    /// What an exchange answer from the flow's carrier's own gateway means.
    /// - Parameters:
    ///   - flow: The one-tap flow whose token was exchanged.
    ///   - code: The exchange's code as it answered.
    /// - Returns: The listed row, or the flow's default row for an unlisted code.
    /// - Precondition: `flow` is a one-tap flow.
    /// - Complexity: O(1) expected; no allocation.
    package func entry(for flow: LoginFlow, code: ResultCode) -> Entry {
        entry(for: flow, gateway: Self.carrierGateways[flow] ?? "cmcc", code: code)
    }

    /// What a gateway's exchange answer means.
    /// - Parameters:
    ///   - flow: The one-tap flow whose token was exchanged.
    ///   - gateway: The gateway that answered; the flow's carrier's own when the table does not list it for the flow.
    ///   - code: The exchange's code as it answered.
    /// - Returns: The listed row, or the (gateway, flow)'s default row for an unlisted code.
    /// - Complexity: O(1) expected; no allocation.
    package func entry(for flow: LoginFlow, gateway: String, code: ResultCode) -> Entry {
        let flow = flow.isOneTap ? flow : .mobile
        let rows = lists(gateway, for: flow) ? gateways[gateway] : gateways[Self.carrierGateways[flow] ?? "cmcc"]
        guard let rows else { preconditionFailure("the exchange-code table was checked to hold every carrier's gateway") }
        return rows.entries[rows.listed(flow, text: code.text) ?? rows.defaults[flow.index]]
    }
}
