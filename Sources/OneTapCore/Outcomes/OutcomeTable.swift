/// What every carrier result code means, per flow: `Data/result-codes.csv`.
///
/// Each flow has a default row (code `*`) that answers for codes the table does not list, so
/// classification never fails: an unknown code is not an error. Seed 002's defaults: China Mobile's
/// unknown codes fall back to SMS; Tianyi's unknown codes are `failed` (the error is shown, SMS is not
/// forced).
package struct OutcomeTable: DataTable {
    /// `result-codes.csv`, the table's file in `Data/`.
    package static let fileName = "result-codes.csv"

    /// One row of the table (its ``CodeRow/alert`` is set for `misconfigured` rows).
    package typealias Entry = CodeRow

    /// The columns of the file.
    static let columns = ["flow", "code", "action", "meaning_zh", "meaning_en", "source"]

    /// Every row, in file order.
    package var entries: [Entry] { rows.entries }
    private let rows: CodeRows
    /// Per indexed key: its row's action.
    private let actions: [OutcomeAction]
    /// Per flow (by ``LoginFlow/index``): the default row's action.
    private let defaultActions: [OutcomeAction]
    /// Per flow: the code of its first `success` row, if it has one.
    private let successCodes: [ResultCode?]

    /// The table built from `Data/result-codes.csv`: the default of every parameter that takes one
    /// (`@usableFromInline` for those default arguments; integrators pass a replacement or nothing).
    package static let builtIn: OutcomeTable = EmbeddedTable.load(OutcomeTable.self)

    /// Reads a table from CSV text.
    /// - Parameters:
    ///   - text: The file's text, in the `Data/result-codes.csv` format.
    ///   - file: The name used in errors.
    /// - Throws: ``TableError`` for an unknown flow or action, a code that is neither an integer nor `*`,
    ///   a duplicate (flow, code), a flow without exactly one `*` row, or a `*` row whose action is `success` or
    ///   `progress`.
    package init(csv text: String, file: String) throws(TableError) {
        let rows = try CodeRows(
            try CSVTable(text: text, file: file, columns: Self.columns), file: file,
            everyFlow: "every flow needs one to classify unknown codes", name: "a result-code table"
        ) { (row, flow, code) throws(TableError) in
            let action: OutcomeAction = try row.choice(row[2], "action", from: OutcomeAction.allCases, file: file, column: "action")
            if row[3].isEmpty && row[4].isEmpty {
                throw row.error(file, column: "meaning_en", .invalidValue, "a row needs a meaning (meaning_zh or meaning_en)")
            }
            return Entry(
                flow: flow, code: code, action: action, alert: action == .misconfigured, meaningZH: row[3], meaningEN: row[4], source: row[5],
                line: row.line)
        }
        self.rows = rows
        actions = rows.keyRows.map { rows.entries[$0].action }
        defaultActions = rows.defaults.map { rows.entries[$0].action }
        successCodes = LoginFlow.allCases.map { flow in rows.entries.first { $0.flow == flow && $0.action == .success && $0.code != nil }?.code }
    }

    /// The action for a code.
    /// - Parameters:
    ///   - flow: The flow that returned the code.
    ///   - code: The code.
    /// - Returns: The listed action, or the flow's default for an unlisted code.
    /// - Complexity: O(1) expected; no allocation.
    @inline(__always)
    package func action(for flow: LoginFlow, code: ResultCode) -> OutcomeAction {
        guard let key = rows.index.row(flow, code: code) else { return defaultActions[flow.index] }
        return actions[key]
    }

    /// The action for a code given as the SDK's text (`"103000"`), trimmed first.
    /// - Parameters:
    ///   - flow: The flow that returned the code.
    ///   - code: The code's text; text that is no code (empty, control characters) gets the flow's default.
    /// - Returns: The action.
    /// - Complexity: O(*n*) in the text's length; no allocation.
    @inline(__always)
    package func action(for flow: LoginFlow, code: String) -> OutcomeAction {
        guard let key = rows.index.row(flow, text: code) else { return defaultActions[flow.index] }
        return actions[key]
    }

    /// What a code means and what to do about it.
    /// - Parameters:
    ///   - flow: The flow that returned the code.
    ///   - code: The code.
    /// - Returns: The listed outcome, or the flow's default row applied to `code`.
    package func outcome(for flow: LoginFlow, code: ResultCode) -> Outcome {
        let found = rows.listed(flow, text: code.text)
        let entry = rows.entries[found ?? rows.defaults[flow.index]]
        return Outcome(
            flow: flow, code: code, action: entry.action, meaningZH: entry.meaningZH, meaningEN: entry.meaningEN,
            source: entry.source, isDefault: found == nil)
    }

    /// The code a flow's SDK answers on success: its first `success` row (China Mobile `103000`, the others
    /// `0` in the built-in table), what simulations answer and the SMS step's trace writes.
    /// - Parameter flow: The flow.
    /// - Returns: The code, or nil when the table lists no success for the flow.
    package func successCode(for flow: LoginFlow) -> ResultCode? {
        successCodes[flow.index]
    }

    /// The default (`*`) row of a flow.
    /// - Parameter flow: The flow.
    /// - Returns: The row that answers for codes the table does not list.
    package func defaultEntry(for flow: LoginFlow) -> Entry {
        rows.entries[rows.defaults[flow.index]]
    }
}
