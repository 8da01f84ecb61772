/// One row of a table of codes (``OutcomeTable``, ``ExchangeCodeTable``): what a flow's code means
/// and what happens then.
package struct CodeRow: Hashable, Sendable {
    /// The flow whose SDK (or whose exchange) answered.
    package let flow: LoginFlow
    /// The code, or nil for the flow's default (`*`) row.
    package let code: ResultCode?
    /// What happens.
    package let action: OutcomeAction
    /// Whether operators are alerted: always for `misconfigured`; an exchange-code row may say so of
    /// another action.
    package let alert: Bool
    /// The meaning in Chinese.
    package let meaningZH: String
    /// The meaning in English.
    package let meaningEN: String
    /// Where the fact comes from.
    package let source: String
    /// The row's line in its file.
    package let line: Int
    /// The gateway whose answer the row reads (an exchange-code row: `cmcc`, `aliyun-pnvs`); empty for the SDK's
    /// codes.
    package var gateway = ""
}

/// The rows of a table keyed by (flow, code), each flow with a default row (code `*`) for the codes it
/// does not list: what ``OutcomeTable`` and ``ExchangeCodeTable`` share, read and looked up one way.
struct CodeRows: Sendable {
    /// Every row, in file order.
    let entries: [CodeRow]
    /// (flow, code) → the position of the key among the rows that list a code.
    let index: CodeIndex
    /// The row of each indexed key.
    let keyRows: [Int]
    /// Per flow (by ``LoginFlow/index``): its default row, or -1 for a flow the table does not take.
    let defaults: [Int]

    /// Reads the rows: the flow in the first column, the code (or `*`) in the second.
    /// - Parameters:
    ///   - table: The CSV table.
    ///   - only: The rows to read, when not all of the table's (one gateway's rows).
    ///   - file: The file name used in errors.
    ///   - flows: The flows the table takes, each of which needs its default row; every flow by default.
    ///   - otherFlow: Why another flow is refused (the table lists no other when it takes every flow).
    ///   - everyFlow: What the message for a flow without its default row ends with.
    ///   - name: The table, for the message when it has too many rows (`a result-code table`).
    ///   - entry: Reads the rest of a row into a ``CodeRow``, given its flow and code (nil for `*`).
    /// - Throws: ``TableError`` for an unknown or refused flow, a malformed or duplicate code, what
    ///   `entry` throws, a default row (`*`) whose action is `success` or `progress`, a flow without its default row,
    ///   or more rows than the index holds.
    init(
        _ table: CSVTable, only: [CSVTable.Row]? = nil, file: String, flows: [LoginFlow] = LoginFlow.allCases, otherFlow: String = "", everyFlow: String, name: String,
        entry: (CSVTable.Row, LoginFlow, ResultCode?) throws(TableError) -> CodeRow
    ) throws(TableError) {
        var entries: [CodeRow] = []
        var keys: [(flow: LoginFlow, code: ResultCode)] = []
        var keyRows: [Int] = []
        var listed = ListedKeys<String>()
        var defaults = [Int](repeating: -1, count: LoginFlow.allCases.count)
        for row in only ?? table.rows {
            let flow = try LoginFlow.parse(row[0], row: row, file: file, column: "flow")
            guard flows.contains(flow) else { throw row.error(file, column: "flow", .invalidValue, otherFlow) }
            var code: ResultCode? = nil
            if row[1] != "*" {
                do {
                    code = try ResultCode(row[1])
                } catch {
                    throw row.error(file, column: "code", .invalidValue, "\(error.description); use * for the flow's default")
                }
            }
            let read = try entry(row, flow, code)
            // A flow's default is what an unlisted code means: taken for a success it would log in on any code (an
            // exchange's that came with a number, from a provider of the integrator's own), taken for progress it would
            // keep every unknown error waiting until the attempt timed out (an attacker's read of the tables).
            if code == nil, read.action == .success || read.action == .progress {
                throw row.error(
                    file, column: "action", .invalidValue,
                    "the default row (code *) cannot be \(read.action.rawValue): an unlisted code would "
                        + (read.action == .success ? "log in" : "keep the attempt waiting") + "; list the code itself")
            }
            // Keyed by the code as read (trimmed), so one code written two ways is one key.
            let key = code?.text ?? "*"
            try listed.insert("\(flow) \(key)", "\(flow) code \(key)", at: row, file: file, column: "code")
            if let code {
                keys.append((flow, code))
                keyRows.append(entries.count)
            } else {
                defaults[flow.index] = entries.count
            }
            entries.append(read)
        }
        for flow in flows where defaults[flow.index] < 0 {
            throw TableError(file: file, line: 0, kind: .incomplete, message: "flow \(flow) has no default row (code *); \(everyFlow)")
        }
        guard entries.count < Int(UInt16.max) else {
            throw TableError(file: file, line: 0, kind: .invalidValue, message: "more rows than \(name) can hold")
        }
        self.entries = entries
        self.index = CodeIndex(keys)
        self.keyRows = keyRows
        self.defaults = defaults
    }

    /// The row of (flow, code text as reported), or nil when the table does not list it.
    /// - Complexity: O(*n*) in the text's length; no allocation.
    @inline(__always)
    func listed(_ flow: LoginFlow, text: String) -> Int? {
        index.row(flow, text: text).map { keyRows[$0] }
    }
}
