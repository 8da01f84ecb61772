/// What the server's exchange answers mean, per flow: `Data/exchange-codes.csv`.
///
/// The exchange turns a one-tap token into the phone number (China Mobile's `loginTokenValidate`, the
/// Tianyi and Unicom number APIs). Its codes are not the SDK's: the same number can mean something else
/// here. Each flow has a default row (`*`) for codes the table does not list.
public struct ExchangeCodeTable: DataTable {
    /// `exchange-codes.csv`, the table's file in `Data/`.
    public static let fileName = "exchange-codes.csv"

    /// One row of the table.
    package struct Entry: Hashable, Sendable {
        /// The one-tap flow whose exchange answered.
        package let flow: LoginFlow
        /// The code, or nil for the flow's default (`*`) row.
        package let code: ResultCode?
        /// What happens: `success`, `retry` (run the flow once more), `fallback`, `switch` (SMS now),
        /// `misconfigured` (fall back and alert) or `failed`.
        package let action: OutcomeAction
        /// Whether operators are alerted (always for `misconfigured`).
        package let alert: Bool
        /// The meaning in Chinese.
        package let meaningZH: String
        /// The meaning in English.
        package let meaningEN: String
        /// Where the fact comes from.
        package let source: String
        /// The row's line in its file.
        package let line: Int
    }

    /// The columns of the file.
    static let columns = ["flow", "code", "action", "alert", "meaning_zh", "meaning_en", "source"]

    /// The actions an exchange answer may lead to.
    static let actions: [OutcomeAction] = [.success, .retry, .fallback, .switch, .misconfigured, .failed]

    /// Every row, in file order.
    package let entries: [Entry]
    private let index: CodeIndex
    private let keyRows: [Int]
    private let defaults: [Int]

    /// The table built from `Data/exchange-codes.csv`.
    public static let builtIn: ExchangeCodeTable = EmbeddedTable.load(ExchangeCodeTable.self)

    /// Reads a table from CSV text.
    /// - Parameters:
    ///   - text: The file's text, in the `Data/exchange-codes.csv` format.
    ///   - file: The name used in errors.
    /// - Throws: ``TableError`` for an unknown or SMS flow, an action an exchange cannot lead to, `alert`
    ///   other than `yes` / `no` (or `no` on a `misconfigured` row), a malformed or duplicate code, a row
    ///   without a meaning, or a one-tap flow without its `*` row.
    public init(csv text: String, file: String) throws(TableError) {
        let table = try CSVTable(text: text, file: file, columns: Self.columns)
        var entries: [Entry] = []
        var lines: [String: Int] = [:]
        var defaults = [Int](repeating: -1, count: LoginFlow.allCases.count)
        for row in table.rows {
            let flow = try LoginFlow.parse(row[0], row: row, file: file, column: "flow")
            guard flow.isOneTap else {
                throw row.error(file, column: "flow", .invalidValue, "sms has no exchange; list one-tap flows only")
            }
            var code: ResultCode? = nil
            if row[1] != "*" {
                do {
                    code = try ResultCode(row[1])
                } catch {
                    throw row.error(file, column: "code", .invalidValue, "\(error.description); use * for the flow's default")
                }
            }
            let action: OutcomeAction = try row.choice(row[2], "action", from: Self.actions, file: file, column: "action")
            let alert = try YesNo.parse(row[3], row: row, file: file, column: "alert")
            if action == .misconfigured && !alert {
                throw row.error(file, column: "alert", .invalidValue, "a misconfigured answer always alerts operators; write yes")
            }
            if row[4].isEmpty && row[5].isEmpty {
                throw row.error(file, column: "meaning_en", .invalidValue, "a row needs a meaning (meaning_zh or meaning_en)")
            }
            let key = "\(flow) \(row[1])"
            if let first = lines[key] {
                throw row.error(file, column: "code", .duplicateKey, "\(flow) code \(row[1]) is already listed on line \(first)")
            }
            lines[key] = row.line
            if code == nil { defaults[flow.index] = entries.count }
            entries.append(Entry(
                flow: flow, code: code, action: action, alert: alert, meaningZH: row[4], meaningEN: row[5], source: row[6], line: row.line))
        }
        for flow in LoginFlow.allCases where flow.isOneTap && defaults[flow.index] < 0 {
            throw TableError(
                file: file, line: 0, kind: .incomplete, message: "flow \(flow) has no default row (code *); every one-tap flow needs one")
        }
        guard entries.count < Int(UInt16.max) else {
            throw TableError(file: file, line: 0, kind: .invalidValue, message: "more rows than an exchange-code table can hold")
        }
        var keys: [(flow: LoginFlow, code: ResultCode)] = []
        var keyRows: [Int] = []
        for (position, entry) in entries.enumerated() {
            guard let code = entry.code else { continue }
            keys.append((entry.flow, code))
            keyRows.append(position)
        }
        self.entries = entries
        self.index = CodeIndex(keys)
        self.keyRows = keyRows
        self.defaults = defaults
    }

    /// What an exchange answer means.
    /// - Parameters:
    ///   - flow: The one-tap flow whose token was exchanged.
    ///   - code: The exchange's code as it answered.
    /// - Returns: The listed row, or the flow's default row for an unlisted code.
    /// - Precondition: `flow` is a one-tap flow.
    /// - Complexity: O(1) expected; no allocation.
    package func entry(for flow: LoginFlow, code: ResultCode) -> Entry {
        if let key = index.row(flow, text: code.text) { return entries[keyRows[key]] }
        return entries[defaults[flow.isOneTap ? flow.index : LoginFlow.mobile.index]]
    }
}
