/// What each gateway's number-verification (本机号码校验) answers mean: `Data/verification-codes.csv`, (gateway, code) →
/// verdict and meaning. The providers in `OneTapGateways` take their verdicts from it and `onetap gateway verify`
/// prints its meanings, so a code's verdict is written once, in data.
///
/// A code whose verdict lies in a member of the answer, not in the code, is listed as `CODE/VALUE` (`OK/PASS`): that
/// code then needs one of its listed values, and its values give distinct verdicts. Each gateway's `*` row decides
/// every code the gateway does not list. Verdicts are named as `NumberVerdict` in `OneTap` names them.
package struct VerificationCodeTable: DataTable, BuiltInTable {
    /// `verification-codes.csv`, the table's file in `Data/`.
    package static let fileName = "verification-codes.csv"

    /// The gateways that verify numbers, by their configuration names: each must have a `*` row.
    package static let gateways = ["aliyun-pnvs", "cmcc", "jverification", "shanyan", "yidun"]

    /// The verdicts a row may name, as `NumberVerdict`'s raw values (``VerificationBillingTable``'s too).
    package static let verdicts = ["pass", "reject", "unknown"]

    /// One row.
    package struct Entry: Hashable, Sendable {
        /// The gateway's configuration name (`cmcc`).
        package let gateway: String
        /// The code as listed: the gateway's code (`000`), `CODE/VALUE` (`OK/PASS`), or `*`.
        package let code: String
        /// The verdict (`pass`, `reject`, `unknown`).
        package let verdict: String
        /// The gateway's own words, where its facts file quotes them; empty otherwise.
        package let meaningZH: String
        /// What the code means, in English.
        package let meaningEN: String
        /// Where the fact comes from.
        package let source: String
        /// The row's line in its file.
        package let line: Int
    }

    /// The columns of the file.
    static let columns = ["gateway", "code", "verdict", "meaning_zh", "meaning_en", "source"]

    /// Every row, in file order.
    package let entries: [Entry]
    private let byKey: [String: Entry]
    /// The (gateway, code) keys whose rows are listed by value (`cmcc OK` for `OK/PASS`), with their rows.
    private let byValue: [String: [Entry]]

    /// The table built from `Data/verification-codes.csv`.
    package static let builtIn: VerificationCodeTable = EmbeddedTable.load(VerificationCodeTable.self)

    /// Reads a table from CSV text.
    /// - Parameters:
    ///   - text: The file's text, in the `Data/verification-codes.csv` format.
    ///   - file: The name used in errors.
    /// - Throws: ``TableError`` naming file, line and column: a gateway not in ``gateways``, an empty code, an unknown
    ///   verdict, an empty `meaning_en`, a (gateway, code) listed twice, a code listed both alone and by value, two
    ///   values of one code with the same verdict, or a gateway without its `*` row.
    package init(csv text: String, file: String) throws(TableError) {
        let table = try CSVTable(text: text, file: file, columns: Self.columns)
        var entries: [Entry] = []
        var byKey: [String: Entry] = [:]
        var byValue: [String: [Entry]] = [:]
        var listed = ListedKeys<String>()
        for row in table.rows {
            let gateway = try row.choice(row[0], "gateway", from: Self.gateways, file: file, column: "gateway"), code = row[1]
            let parts = code.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            guard !code.isEmpty, parts.allSatisfy({ !$0.isEmpty }), code == "*" || !code.contains("*") else {
                throw row.error(file, column: "code", .invalidValue, "\(QuotedInput(code)) is not a code, CODE/VALUE or *")
            }
            let verdict = try row.choice(row[2], "verdict", from: Self.verdicts, file: file, column: "verdict")
            // A gateway's default is what an unlisted code means: one taken for a pass would accept a number on any code.
            if code == "*", verdict == "pass" {
                throw row.error(file, column: "verdict", .invalidValue, "the default row (code *) cannot be pass: an unlisted code would pass any number; list the code itself")
            }
            guard !row[4].isEmpty else { throw row.error(file, column: "meaning_en", .invalidValue, "the meaning is empty") }
            try listed.insert(Self.key(gateway, code), "\(gateway) \(code)", at: row, file: file, column: "code")
            let entry = Entry(gateway: gateway, code: code, verdict: verdict, meaningZH: row[3], meaningEN: row[4], source: row[5], line: row.line)
            entries.append(entry)
            if parts.count == 2 {
                let key = Self.key(gateway, String(parts[0]))
                if let alone = byKey[key] {
                    throw row.error(file, column: "code", .duplicateKey, "\(gateway) \(parts[0]) is listed alone on line \(alone.line); list it alone or by value, not both")
                }
                if let same = byValue[key]?.first(where: { $0.verdict == verdict }) {
                    throw row.error(file, column: "verdict", .invalidValue, "\(gateway) \(parts[0]) gives \(verdict) on line \(same.line) already; its values give distinct verdicts")
                }
                byValue[key, default: []].append(entry)
            } else {
                let key = Self.key(gateway, code)
                if let valued = byValue[key]?.first {
                    throw row.error(file, column: "code", .duplicateKey, "\(gateway) \(code) is listed by value on line \(valued.line); list it alone or by value, not both")
                }
            }
            byKey[Self.key(gateway, code)] = entry
        }
        for gateway in Self.gateways where byKey[Self.key(gateway, "*")] == nil {
            throw TableError(file: file, line: 0, kind: .incomplete, message: "no * row for \(gateway); each gateway's * row decides the codes it does not list")
        }
        self.entries = entries
        self.byKey = byKey
        self.byValue = byValue
    }

    /// Whether a code's verdict lies in a member of the answer: the code is listed by value (`OK` of `OK/PASS`).
    /// - Parameters:
    ///   - gateway: The gateway's configuration name.
    ///   - code: The code as it came.
    /// - Returns: `true` when the table lists `code/VALUE` rows for the gateway.
    package func takesValue(gateway: String, code: String) -> Bool {
        byValue[Self.key(gateway, code)] != nil
    }

    /// The values a code is listed with, in file order (`PASS`, `REJECT`, `UNKNOWN` for aliyun-pnvs `OK`).
    /// - Parameters:
    ///   - gateway: The gateway's configuration name.
    ///   - code: The code as it came.
    /// - Returns: The values; empty for a code listed alone or not at all.
    package func values(gateway: String, code: String) -> [String] {
        (byValue[Self.key(gateway, code)] ?? []).map { String($0.code.dropFirst(code.count + 1)) }
    }

    /// The row of a code with the value its answer carried (`OK` and `PASS`: the `OK/PASS` row).
    /// - Parameters:
    ///   - gateway: The gateway's configuration name.
    ///   - code: The code as it came.
    ///   - value: The member's value.
    /// - Returns: The row; nil for a value the table does not list (a malformed answer).
    package func entry(gateway: String, code: String, value: String) -> Entry? {
        byKey[Self.key(gateway, "\(code)/\(value)")]
    }

    /// The row that decides a code listed alone: the gateway's own, else its `*` row (always for a code
    /// holding `/`, which only a code with its value spells).
    /// - Parameters:
    ///   - gateway: The gateway's configuration name.
    ///   - code: The code as it came.
    /// - Returns: The row; nil only for a gateway the table does not list.
    package func entry(gateway: String, code: String) -> Entry? {
        // A code holding `/` is no code listed alone: `200/1` came bare is not `200` with the value 1.
        if !code.contains("/"), let own = byKey[Self.key(gateway, code)] { return own }
        return byKey[Self.key(gateway, "*")]
    }

    /// The row an answer was decided by, from its code and verdict alone (what `onetap gateway verify` has): for a
    /// code listed by value, its value's row with that verdict (values give distinct verdicts); else as
    /// ``entry(gateway:code:)``.
    /// - Parameters:
    ///   - gateway: The gateway's configuration name.
    ///   - code: The code as it came.
    ///   - verdict: The verdict the provider gave.
    /// - Returns: The row; nil only for a gateway the table does not list.
    package func entry(gateway: String, code: String, verdict: String) -> Entry? {
        if let valued = byValue[Self.key(gateway, code)], let entry = valued.first(where: { $0.verdict == verdict }) { return entry }
        return entry(gateway: gateway, code: code)
    }

    private static func key(_ gateway: String, _ code: String) -> String { "\(gateway) \(code)" }
}
