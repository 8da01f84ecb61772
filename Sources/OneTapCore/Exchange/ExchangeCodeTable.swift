/// What the server's exchange answers mean, per flow: `Data/exchange-codes.csv`.
///
/// The exchange turns a one-tap token into the phone number (China Mobile's `loginTokenValidate`, the
/// Tianyi and Unicom number APIs). Its codes are not the SDK's: the same number can mean something else
/// here. Each flow has a default row (`*`) for codes the table does not list.
public struct ExchangeCodeTable: DataTable {
    /// `exchange-codes.csv`, the table's file in `Data/`.
    package static let fileName = "exchange-codes.csv"

    /// One row of the table: the action `success`, `retry` (run the flow once more), `fallback`, `switch`
    /// (SMS now), `misconfigured` (fall back and alert) or `failed`.
    package typealias Entry = CodeRow

    /// The columns of the file.
    static let columns = ["flow", "code", "action", "alert", "meaning_zh", "meaning_en", "source"]

    /// The actions an exchange answer may lead to.
    static let actions: [OutcomeAction] = [.success, .retry, .fallback, .switch, .misconfigured, .failed]

    /// Every row, in file order.
    package var entries: [Entry] { rows.entries }
    private let rows: CodeRows

    /// The table built from `Data/exchange-codes.csv`: the default of every parameter that takes one
    /// (`@usableFromInline` for those default arguments; integrators pass a replacement or nothing).
    @usableFromInline package static let builtIn: ExchangeCodeTable = EmbeddedTable.load(ExchangeCodeTable.self)

    /// Reads a table from CSV text.
    /// - Parameters:
    ///   - text: The file's text, in the `Data/exchange-codes.csv` format.
    ///   - file: The name used in errors.
    /// - Throws: ``TableError`` for an unknown or SMS flow, an action an exchange cannot lead to, `alert`
    ///   other than `yes` / `no` (or `no` on a `misconfigured` row), a malformed or duplicate code, a row
    ///   without a meaning, or a one-tap flow without its `*` row.
    public init(csv text: String, file: String) throws(TableError) {
        rows = try CodeRows(
            try CSVTable(text: text, file: file, columns: Self.columns), file: file, flows: LoginFlow.allCases.filter(\.isOneTap),
            otherFlow: "sms has no exchange; list one-tap flows only", everyFlow: "every one-tap flow needs one",
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
                flow: flow, code: code, action: action, alert: alert, meaningZH: row[4], meaningEN: row[5], source: row[6], line: row.line)
        }
    }

    /// What an exchange answer means.
    /// - Parameters:
    ///   - flow: The one-tap flow whose token was exchanged.
    ///   - code: The exchange's code as it answered.
    /// - Returns: The listed row, or the flow's default row for an unlisted code.
    /// - Precondition: `flow` is a one-tap flow.
    /// - Complexity: O(1) expected; no allocation.
    package func entry(for flow: LoginFlow, code: ResultCode) -> Entry {
        rows.entries[rows.listed(flow, text: code.text) ?? rows.defaults[flow.isOneTap ? flow.index : LoginFlow.mobile.index]]
    }
}
