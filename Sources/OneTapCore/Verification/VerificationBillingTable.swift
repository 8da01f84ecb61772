/// Whether a gateway bills a number verification (本机号码校验), by the verdict it answered:
/// `Data/verification-billing.csv`. Vendors bill `pass` and `reject`, not `unknown`; a gateway without rows of
/// its own takes the `*` rows, which must name every verdict.
///
/// The verdicts are named as `NumberVerdict` in `OneTap` names them (`pass`, `reject`, `unknown`); this module
/// holds the table, the verification service in `OneTap` reads it.
package struct VerificationBillingTable: DataTable, BuiltInTable {
    /// `verification-billing.csv`, the table's file in `Data/`.
    package static let fileName = "verification-billing.csv"

    /// One row.
    package struct Entry: Hashable, Sendable {
        /// The gateway's configuration name (`cmcc`), or `*` for every gateway without rows of its own.
        package let gateway: String
        /// The verdict (`pass`, `reject`, `unknown`).
        package let verdict: String
        /// Whether the gateway bills an answer with that verdict.
        package let billed: Bool
        /// Where the fact comes from.
        package let source: String
        /// The row's line in its file.
        package let line: Int
    }

    /// The columns of the file.
    static let columns = ["gateway", "verdict", "billed", "source"]

    /// Every row, in file order.
    package let entries: [Entry]
    private let byKey: [String: Entry]

    /// The table built from `Data/verification-billing.csv`.
    package static let builtIn: VerificationBillingTable = EmbeddedTable.load(VerificationBillingTable.self)

    /// Reads a table from CSV text.
    /// - Parameters:
    ///   - text: The file's text, in the `Data/verification-billing.csv` format.
    ///   - file: The name used in errors.
    /// - Throws: ``TableError`` for a gateway that is neither `*` nor a name of lower-case letters, digits and
    ///   hyphens, an unknown verdict, `billed` other than `yes` or `no`, a (gateway, verdict) listed twice, or a
    ///   `*` row missing for a verdict.
    package init(csv text: String, file: String) throws(TableError) {
        let table = try CSVTable(text: text, file: file, columns: Self.columns)
        var entries: [Entry] = []
        var byKey: [String: Entry] = [:]
        var listed = ListedKeys<String>()
        for row in table.rows {
            let gateway = row[0]
            guard gateway == "*" || (!gateway.isEmpty && gateway.utf8.allSatisfy({ ($0 &- 97 < 26) || ($0 &- 48 < 10) || $0 == 45 })) else {
                throw row.error(file, column: "gateway", .invalidValue, "\(QuotedInput(gateway)) is not * or a gateway name (a-z, 0-9, -)")
            }
            let verdict = try row.choice(row[1], "verdict", from: VerificationCodeTable.verdicts, file: file, column: "verdict")
            let billed = try YesNo.parse(row[2], row: row, file: file, column: "billed")
            let key = Self.key(gateway, verdict)
            try listed.insert(key, "\(gateway) \(verdict)", at: row, file: file, column: nil)
            let entry = Entry(gateway: gateway, verdict: verdict, billed: billed, source: row[3], line: row.line)
            entries.append(entry)
            byKey[key] = entry
        }
        for verdict in VerificationCodeTable.verdicts where byKey[Self.key("*", verdict)] == nil {
            throw TableError(file: file, line: 0, kind: .incomplete, message: "no * row for \(verdict); the default must name every verdict")
        }
        self.entries = entries
        self.byKey = byKey
    }

    /// The row that decides a gateway's verdict: the gateway's own, else the `*` row.
    /// - Parameters:
    ///   - gateway: The gateway's configuration name (`*` for an integrator's own provider).
    ///   - verdict: `pass`, `reject` or `unknown`.
    /// - Returns: The row (nil only for a verdict the table does not know).
    package func entry(gateway: String, verdict: String) -> Entry? {
        byKey[Self.key(gateway, verdict)] ?? byKey[Self.key("*", verdict)]
    }

    private static func key(_ gateway: String, _ verdict: String) -> String { "\(gateway) \(verdict)" }
}
