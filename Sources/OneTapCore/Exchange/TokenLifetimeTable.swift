/// How long each one-tap flow's SDK token may be exchanged on the server, and whether only once:
/// `Data/token-lifetimes.csv`.
///
/// A token older than its lifetime is not sent to the paid exchange API: the login runs the flow once
/// more (a new token) instead. Every one-tap flow has a row; SMS has none (it has no token to exchange).
public struct TokenLifetimeTable: DataTable {
    /// `token-lifetimes.csv`, the table's file in `Data/`.
    package static let fileName = "token-lifetimes.csv"

    /// One row of the table.
    package struct Entry: Hashable, Sendable {
        /// The flow.
        package let flow: LoginFlow
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
    static let columns = ["flow", "lifetime_seconds", "single_use", "source"]

    /// Every row, in file order.
    package let entries: [Entry]
    private let byFlow: [Entry?]

    /// The table built from `Data/token-lifetimes.csv`: the default of every parameter that takes one
    /// (`@usableFromInline` for those default arguments; integrators pass a replacement or nothing).
    @usableFromInline package static let builtIn: TokenLifetimeTable = EmbeddedTable.load(TokenLifetimeTable.self)

    /// Reads a table from CSV text.
    /// - Parameters:
    ///   - text: The file's text, in the `Data/token-lifetimes.csv` format.
    ///   - file: The name used in errors.
    /// - Throws: ``TableError`` for an unknown flow, the SMS flow, a lifetime that is not 1 to 86,400
    ///   whole seconds, `single_use` other than `yes` or `no`, a flow listed twice, or a one-tap flow left out.
    public init(csv text: String, file: String) throws(TableError) {
        let table = try CSVTable(text: text, file: file, columns: Self.columns)
        var byFlow = [Entry?](repeating: nil, count: LoginFlow.allCases.count)
        var entries: [Entry] = []
        var listed = ListedKeys<LoginFlow>()
        for row in table.rows {
            let flow = try LoginFlow.parse(row[0], row: row, file: file, column: "flow")
            guard flow.isOneTap else {
                throw row.error(file, column: "flow", .invalidValue, "sms has no token to exchange; list one-tap flows only")
            }
            guard let seconds = Int64(row[1]), (1...86_400).contains(seconds), row[1].utf8.allSatisfy({ $0 &- 48 < 10 }) else {
                throw row.error(file, column: "lifetime_seconds", .invalidValue, "\(QuotedInput(row[1])) is not 1 to 86400 whole seconds")
            }
            let singleUse = try YesNo.parse(row[2], row: row, file: file, column: "single_use")
            try listed.insert(flow, "\(flow)", at: row, file: file, column: "flow")
            let entry = Entry(flow: flow, lifetime: .seconds(seconds), singleUse: singleUse, source: row[3], line: row.line)
            byFlow[flow.index] = entry
            entries.append(entry)
        }
        for flow in LoginFlow.allCases where flow.isOneTap && byFlow[flow.index] == nil {
            throw TableError(file: file, line: 0, kind: .incomplete, message: "no row for \(flow); every one-tap flow needs its token's lifetime")
        }
        self.entries = entries
        self.byFlow = byFlow
    }

    /// The row of a one-tap flow.
    /// - Parameter flow: The flow.
    /// - Returns: Its row, or nil for SMS.
    package func entry(for flow: LoginFlow) -> Entry? {
        byFlow[flow.index]
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
