/// What every carrier result code means, per flow: `Data/result-codes.csv`.
///
/// Each flow has a default row (code `*`) that answers for codes the table does not list, so
/// classification never fails: an unknown code is not an error. Seed 002's defaults: China Mobile's
/// unknown codes fall back to SMS; Tianyi's unknown codes are `failed` (the error is shown, SMS is not
/// forced).
public struct OutcomeTable: DataTable {
    /// `result-codes.csv`, the table's file in `Data/`.
    public static let fileName = "result-codes.csv"

    /// One row of the table.
    package struct Entry: Hashable, Sendable {
        /// The flow.
        package let flow: LoginFlow
        /// The code, or nil for the flow's default (`*`) row.
        package let code: ResultCode?
        /// What to do.
        package let action: OutcomeAction
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
    static let columns = ["flow", "code", "action", "meaning_zh", "meaning_en", "source"]

    /// Every row, in file order.
    package let entries: [Entry]

    /// (flow, code) → row.
    private let index: CodeIndex
    private let actions: [OutcomeAction]
    /// Per flow (by ``LoginFlow/index``): the default entry's index and action.
    private let defaults: [Int]
    private let defaultActions: [OutcomeAction]
    /// Per flow: the code of its first `success` row, if it has one.
    private let successCodes: [ResultCode?]

    /// The table built from `Data/result-codes.csv`.
    public static let builtIn: OutcomeTable = EmbeddedTable.load(OutcomeTable.self)

    /// Reads a table from CSV text.
    /// - Parameters:
    ///   - text: The file's text, in the `Data/result-codes.csv` format.
    ///   - file: The name used in errors.
    /// - Throws: ``TableError`` for an unknown flow or action, a code that is neither an integer nor `*`,
    ///   a duplicate (flow, code), or a flow without exactly one `*` row.
    public init(csv text: String, file: String) throws(TableError) {
        let table = try CSVTable(text: text, file: file, columns: Self.columns)
        var entries: [Entry] = []
        var lines: [String: Int] = [:]
        var defaults = [Int](repeating: -1, count: LoginFlow.allCases.count)
        for row in table.rows {
            let flow = try LoginFlow.parse(row[0], row: row, file: file, column: "flow")
            var code: ResultCode? = nil
            if row[1] != "*" {
                do {
                    code = try ResultCode(row[1])
                } catch {
                    throw row.error(file, column: "code", .invalidValue, "\(error.description); use * for the flow's default")
                }
            }
            let action: OutcomeAction = try row.choice(row[2], "action", from: OutcomeAction.allCases, file: file, column: "action")
            if row[3].isEmpty && row[4].isEmpty {
                throw row.error(file, column: "meaning_en", .invalidValue, "a row needs a meaning (meaning_zh or meaning_en)")
            }
            let key = "\(flow) \(row[1])"
            if let first = lines[key] {
                throw row.error(file, column: "code", .duplicateKey, "\(flow) code \(row[1]) is already listed on line \(first)")
            }
            lines[key] = row.line
            if code == nil { defaults[flow.index] = entries.count }
            entries.append(Entry(flow: flow, code: code, action: action, meaningZH: row[3], meaningEN: row[4], source: row[5], line: row.line))
        }
        for flow in LoginFlow.allCases where defaults[flow.index] < 0 {
            throw TableError(
                file: file, line: 0, kind: .incomplete,
                message: "flow \(flow) has no default row (code *); every flow needs one to classify unknown codes")
        }
        let successCodes = LoginFlow.allCases.map { flow in entries.first { $0.flow == flow && $0.action == .success && $0.code != nil }?.code }
        guard entries.count < Int(UInt16.max) else {
            throw TableError(file: file, line: 0, kind: .invalidValue, message: "more rows than a result-code table can hold")
        }
        var keys: [(flow: LoginFlow, code: ResultCode)] = []
        var rowOfKey: [Int] = []
        for (position, entry) in entries.enumerated() {
            guard let code = entry.code else { continue }
            keys.append((entry.flow, code))
            rowOfKey.append(position)
        }
        self.entries = entries
        // The index numbers its keys; map those back to rows.
        self.index = CodeIndex(keys)
        self.keyRows = rowOfKey
        self.actions = rowOfKey.map { entries[$0].action }
        self.defaults = defaults
        self.defaultActions = defaults.map { entries[$0].action }
        self.successCodes = successCodes
    }

    /// Row of each indexed key.
    private let keyRows: [Int]

    /// The index of the entry for (flow, code text), or -1 when the table does not list it.
    @inline(__always)
    private func find(_ flow: LoginFlow, _ text: String) -> Int {
        guard let key = index.row(flow, text: text) else { return -1 }
        return keyRows[key]
    }

    /// The action for a code.
    /// - Parameters:
    ///   - flow: The flow that returned the code.
    ///   - code: The code.
    /// - Returns: The listed action, or the flow's default for an unlisted code.
    /// - Complexity: O(1) expected; no allocation.
    @inline(__always)
    package func action(for flow: LoginFlow, code: ResultCode) -> OutcomeAction {
        guard let key = index.row(flow, code: code) else { return defaultActions[flow.index] }
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
        guard let key = index.row(flow, text: code) else { return defaultActions[flow.index] }
        return actions[key]
    }

    /// What a code means and what to do about it.
    /// - Parameters:
    ///   - flow: The flow that returned the code.
    ///   - code: The code.
    /// - Returns: The listed outcome, or the flow's default row applied to `code`.
    package func outcome(for flow: LoginFlow, code: ResultCode) -> Outcome {
        let found = find(flow, code.text)
        let entry = entries[found >= 0 ? found : defaults[flow.index]]
        return Outcome(
            flow: flow, code: code, action: entry.action, meaningZH: entry.meaningZH, meaningEN: entry.meaningEN,
            source: entry.source, isDefault: found < 0)
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
        entries[defaults[flow.index]]
    }
}
