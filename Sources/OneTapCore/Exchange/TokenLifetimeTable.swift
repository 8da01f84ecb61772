/// How long each one-tap flow's SDK token may be exchanged on the server, per gateway, and whether only once:
/// `Data/token-lifetimes.csv`.
///
/// A token older than its lifetime is not sent to the paid exchange API: the login runs the flow once
/// more (a new token) instead. Every one-tap flow has a row of its carrier's own gateway (`cmcc`, `tianyi`,
/// `unicom`); an aggregator that states its own lifetimes has rows of its own, and one that does not is held to
/// the carrier's. SMS has none (it has no token to exchange).
public struct TokenLifetimeTable: DataTable {
    /// `token-lifetimes.csv`, the table's file in `Data/`.
    package static let fileName = "token-lifetimes.csv"

    /// One row of the table.
    package struct Entry: Hashable, Sendable {
        /// The flow.
        package let flow: LoginFlow
        /// The gateway whose tokens the row is about.
        package let gateway: String
        /// How long its token may be exchanged, from the server's receipt of the success report.
        package let lifetime: Duration
        /// Whether the carrier accepts the token once only.
        package let singleUse: Bool
        /// Where the fact comes from.
        package let source: String
        /// The row's line in its file.
        package let line: Int
    }

    /// The columns of the file.
    static let columns = ["flow", "lifetime_seconds", "single_use", "source", "gateway"]

    /// Every row, in file order.
    package let entries: [Entry]
    /// Each gateway's rows, by ``LoginFlow/index``.
    private let byGateway: [String: [Entry?]]

    /// The table built from `Data/token-lifetimes.csv`: the default of every parameter that takes one
    /// (`@usableFromInline` for those default arguments; integrators pass a replacement or nothing).
    @usableFromInline package static let builtIn: TokenLifetimeTable = EmbeddedTable.load(TokenLifetimeTable.self)

    /// Reads a table from CSV text.
    /// - Parameters:
    ///   - text: The file's text, in the `Data/token-lifetimes.csv` format.
    ///   - file: The name used in errors.
    /// - Throws: ``TableError`` for an unknown flow, the SMS flow, a lifetime that is not 1 to 86,400
    ///   whole seconds, `single_use` other than `yes` or `no`, a malformed gateway name, a (gateway, flow) listed
    ///   twice, or a one-tap flow without its carrier's own gateway's row.
    public init(csv text: String, file: String) throws(TableError) {
        let table = try CSVTable(text: text, file: file, columns: Self.columns)
        var byGateway: [String: [Entry?]] = [:]
        var entries: [Entry] = []
        var listed = ListedKeys<String>()
        for row in table.rows {
            let flow = try LoginFlow.parse(row[0], row: row, file: file, column: "flow")
            guard flow.isOneTap else {
                throw row.error(file, column: "flow", .invalidValue, "sms has no token to exchange; list one-tap flows only")
            }
            guard let seconds = Int64(row[1]), (1...86_400).contains(seconds), row[1].utf8.allSatisfy({ $0 &- 48 < 10 }) else {
                throw row.error(file, column: "lifetime_seconds", .invalidValue, "\(QuotedInput(row[1])) is not 1 to 86400 whole seconds")
            }
            let singleUse = try YesNo.parse(row[2], row: row, file: file, column: "single_use")
            let gateway = try GatewayName.parse(row[4], row: row, file: file)
            try listed.insert("\(gateway) \(flow)", "\(flow) at gateway \(gateway)", at: row, file: file, column: "flow")
            let entry = Entry(flow: flow, gateway: gateway, lifetime: .seconds(seconds), singleUse: singleUse, source: row[3], line: row.line)
            byGateway[gateway, default: [Entry?](repeating: nil, count: LoginFlow.allCases.count)][flow.index] = entry
            entries.append(entry)
        }
        for (flow, gateway) in ExchangeCodeTable.carrierGateways.sorted(by: { $0.key.index < $1.key.index }) where byGateway[gateway]?[flow.index] == nil {
            throw TableError(
                file: file, line: 0, kind: .incomplete,
                message: "no row for \(flow) at its carrier's own gateway \(gateway); every one-tap flow needs its token's lifetime")
        }
        self.entries = entries
        self.byGateway = byGateway
    }

    /// The row of a one-tap flow at its carrier's own gateway.
    /// - Parameter flow: The flow.
    /// - Returns: Its row, or nil for SMS.
    package func entry(for flow: LoginFlow) -> Entry? {
        ExchangeCodeTable.carrierGateways[flow].flatMap { byGateway[$0]?[flow.index] }
    }

    /// Whether a token is too old to be sent to a gateway (an exchange, a number verification): its age, from its
    /// receipt, has reached its row's lifetime (``entry(for:gateway:)``).
    /// - Parameters:
    ///   - flow: The one-tap flow whose token it is.
    ///   - gateway: The gateway it would be sent to.
    ///   - receivedAt: When the server received it.
    ///   - now: The time.
    /// - Returns: True when the token must not be sent (a flow without a row never expires).
    package func hasExpired(_ flow: LoginFlow, gateway: String, receivedAt: Date, at now: Date) -> Bool {
        guard let lifetime = entry(for: flow, gateway: gateway)?.lifetime else { return false }
        return now.timeIntervalSince(receivedAt) >= lifetime.seconds
    }

    /// The row of a one-tap flow's tokens exchanged by a gateway: the gateway's own row, else the carrier's.
    /// - Parameters:
    ///   - flow: The flow.
    ///   - gateway: The gateway that exchanges its tokens.
    /// - Returns: The row, or nil for SMS.
    package func entry(for flow: LoginFlow, gateway: String) -> Entry? {
        byGateway[gateway]?[flow.index] ?? entry(for: flow)
    }
}

/// A gateway's name in a table: lower-case letters, digits and `-`, at most 32 (`cmcc`, `aliyun-pnvs`).
enum GatewayName {
    static func parse(_ field: String, row: CSVTable.Row, file: String) throws(TableError) -> String {
        guard !field.isEmpty, field.utf8.count <= 32, field.utf8.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D }) else {
            throw row.error(file, column: "gateway", .invalidValue, "a gateway is named in lower-case letters, digits and '-' (cmcc, aliyun-pnvs), at most 32")
        }
        return field
    }
}


/// A `yes` / `no` table field.
enum YesNo {
    static func parse(_ field: String, row: CSVTable.Row, file: String, column: String) throws(TableError) -> Bool {
        switch field {
        case "yes": return true
        case "no": return false
        default: throw row.error(file, column: column, .invalidValue, "\(QuotedInput(field)) is not yes or no")
        }
    }
}
