/// The first five columns the two tables of sliding-window rules share (`Data/sms-policy.csv` and
/// `Data/login-quotas.csv`): `rule`, `key`, `counts`, `window_seconds`, `limit`, read and checked once;
/// and the loop both tables read their rows with.
package struct RateRuleColumns<Key: RawRepresentable & Equatable, Counts: RawRepresentable & Equatable & CaseIterable>
where Key.RawValue == String, Counts.RawValue == String, Counts.AllCases == [Counts] {
    /// The rule's id: letters, digits and hyphens.
    let id: String
    /// What it counts per.
    let key: Key
    /// What it counts.
    let counts: Counts
    /// The sliding window.
    let window: Duration
    /// How many events the window may hold.
    let limit: Int

    /// Reads a rule's columns.
    /// - Parameters:
    ///   - row: The row.
    ///   - file: The file name used in errors.
    ///   - listed: The rule ids listed so far; the row's is added.
    ///   - keys: The keys the table allows, in the order an unknown key's error lists them.
    ///   - limits: The limits the table allows.
    /// - Throws: ``TableError`` for an empty, malformed or duplicate rule id, an unknown key or count, a
    ///   window that is not 1 to 31,536,000 whole seconds, or a limit out of `limits`.
    init(_ row: CSVTable.Row, file: String, listed: inout ListedKeys<String>, keys: [Key], limits: ClosedRange<Int>) throws(TableError) {
        let id = row[0]
        guard !id.isEmpty, id.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-") }) else {
            throw row.error(file, column: "rule", .invalidValue, "\(QuotedInput(id)) is not a rule id (letters, digits and hyphens)")
        }
        try listed.insert(id, "rule \(id)", at: row, file: file, column: "rule")
        self.id = id
        key = try row.choice(row[1], "key", from: keys, file: file, column: "key")
        counts = try row.choice(row[2], "count", from: Counts.allCases, file: file, column: "counts")
        window = try row.seconds(row[3], file: file, column: "window_seconds", range: 1...31_536_000)
        guard row[4].utf8.allSatisfy({ $0 &- 48 < 10 }), let limit = Int(row[4]), limits.contains(limit) else {
            throw row.error(file, column: "limit", .invalidValue, "\(QuotedInput(row[4])) is not a limit from \(limits.lowerBound) to \(limits.upperBound)")
        }
        self.limit = limit
    }
}

extension RateRuleColumns: Equatable {}
extension RateRuleColumns: Hashable where Key: Hashable, Counts: Hashable {}
extension RateRuleColumns: Sendable where Key: Sendable, Counts: Sendable {}

extension RateRuleColumns: CustomStringConvertible where Key: CustomStringConvertible, Counts: CustomStringConvertible {
    /// `ip-starts-hour: 600 starts per ip in 3600 s`: the rule as both tables describe it (the SMS
    /// policy's then says what happens past the limit).
    package var description: String { "\(id): \(limit) \(counts) per \(key) in \(Int(window.seconds)) s" }
}

extension RateRuleColumns {
    /// Reads a table of rules: each row's shared columns, then the table's own (`make`); a table with no
    /// rule is refused, since it would let everything through.
    /// - Parameters:
    ///   - text: The file's text.
    ///   - file: The file name used in errors.
    ///   - columns: The table's columns, the shared five first.
    ///   - keys: The keys the table allows, in the order an unknown key's error lists them.
    ///   - limits: The limits the table allows.
    ///   - what: What an empty table would let through (`"send"`, `"login"`).
    ///   - optional: The table's own columns a file may leave out (their fields read as empty).
    ///   - make: Makes a rule from its shared columns and its row, checking the table's own columns.
    /// - Returns: The rules, in file order.
    /// - Throws: ``TableError``: the file's, a row's, or `incomplete` for a table with no rule.
    static func rules<Rule>(
        csv text: String, file: String, columns: [String], keys: [Key], limits: ClosedRange<Int>, letting what: String,
        optional: Set<String> = [], _ make: (Self, CSVTable.Row) throws(TableError) -> Rule
    ) throws(TableError) -> [Rule] {
        let table = try CSVTable(text: text, file: file, columns: columns, optional: optional)
        var rules: [Rule] = []
        var listed = ListedKeys<String>()
        for row in table.rows {
            rules.append(try make(try Self(row, file: file, listed: &listed, keys: keys, limits: limits), row))
        }
        guard !rules.isEmpty else {
            throw TableError(file: file, line: 0, kind: .incomplete, message: "the policy has no rule; an empty policy would let every \(what) through")
        }
        return rules
    }
}

extension CSVTable.Row {
    /// Reads a field of whole seconds (ASCII digits only).
    /// - Parameters:
    ///   - field: The field's text.
    ///   - file: The file name used in errors.
    ///   - column: The column.
    ///   - range: The seconds allowed.
    /// - Returns: The duration.
    /// - Throws: ``TableError`` of kind `invalid-value`: `"90s" is not 1 to 31536000 whole seconds`.
    func seconds(_ field: String, file: String, column: String, range: ClosedRange<Int64>) throws(TableError) -> Duration {
        guard field.utf8.allSatisfy({ $0 &- 48 < 10 }), let value = Int64(field), range.contains(value) else {
            throw error(file, column: column, .invalidValue, "\(QuotedInput(field)) is not \(range.lowerBound) to \(range.upperBound) whole seconds")
        }
        return .seconds(value)
    }
}
