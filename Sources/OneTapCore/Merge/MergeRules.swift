/// How a guest's data joins the account's, kind by kind: `Data/merge-rules.csv`.
///
/// A kind with no rule is kept in the guest's space and reported, never dropped.
public struct MergeRules: DataTable {
    /// `merge-rules.csv`, the table's file in `Data/`.
    package static let fileName = "merge-rules.csv"

    /// How one kind merges.
    package enum Strategy: String, Hashable, Sendable, CaseIterable, Codable, DescribedByID {
        /// The account's items, then the guest's the account lacks (an array of strings).
        case union
        /// Entries `{"item","at"}` of both, one per item (the newest), newest first, at most the cap.
        case newestFirst = "newest-first"
        /// Lines `{"item","qty"}` of both, one item's quantities added, each at most the cap.
        case addQuantities = "add-quantities"
        /// The guest's items move to the account, except those the account has, whose guest copy is deleted.
        case moveUnlessPresent = "move-unless-present"
        /// An object of settings: the account's value wins; settings only the guest has are added.
        case accountWins = "account-wins"
        /// The account's entries, then the guest's.
        case keepBoth = "keep-both"

        /// Whether the strategy needs a cap.
        var needsCap: Bool { self == .newestFirst || self == .addQuantities }
    }

    /// One row.
    package struct Rule: Hashable, Sendable, CustomStringConvertible {
        /// The data kind, e.g. `history`.
        package let kind: String
        /// How it merges.
        package let strategy: Strategy
        /// The cap of `newest-first` (entries) and `add-quantities` (per item).
        package let cap: Int?
        /// Where the rule comes from.
        package let source: String
        /// The row's line in its file.
        package let line: Int

        /// `history: newest-first, cap 1000`.
        package var description: String { "\(kind): \(strategy)\(cap.map { ", cap \($0)" } ?? "")" }
    }

    /// The columns of the file.
    static let columns = ["kind", "strategy", "cap", "source"]

    /// Every rule, in file order.
    package let rules: [Rule]
    private let byKind: [String: Rule]

    /// The rules built from `Data/merge-rules.csv`: the default of every parameter that takes one
    /// (`@usableFromInline` for those default arguments; integrators pass a replacement or nothing).
    @usableFromInline package static let builtIn: MergeRules = EmbeddedTable.load(MergeRules.self)

    /// Reads merge rules from CSV text.
    /// - Parameters:
    ///   - text: The file's text, in the `Data/merge-rules.csv` format.
    ///   - file: The name used in errors.
    /// - Throws: ``TableError`` for a kind that is not lowercase letters, digits, hyphens and
    ///   underscores (1 to 64), an unknown strategy, a missing cap (or a cap on a strategy without one),
    ///   a cap that is not 1 to 1,000,000, or a kind listed twice.
    public init(csv text: String, file: String) throws(TableError) {
        let table = try CSVTable(text: text, file: file, columns: Self.columns)
        var rules: [Rule] = []
        var byKind: [String: Rule] = [:]
        var listed = ListedKeys<String>()
        for row in table.rows {
            let kind = row[0]
            if let problem = Self.problem(kind) { throw row.error(file, column: "kind", .invalidValue, problem) }
            let strategy: Strategy = try row.choice(row[1], "strategy", from: Strategy.allCases, file: file, column: "strategy")
            var cap: Int? = nil
            switch (strategy.needsCap, row[2].isEmpty) {
            case (true, true):
                throw row.error(file, column: "cap", .invalidValue, "\(strategy) needs a cap")
            case (false, false):
                throw row.error(file, column: "cap", .invalidValue, "\(strategy) takes no cap; leave it empty")
            case (true, false):
                guard row[2].utf8.allSatisfy({ $0 &- 48 < 10 }), let value = Int(row[2]), (1...1_000_000).contains(value) else {
                    throw row.error(file, column: "cap", .invalidValue, "\(QuotedInput(row[2])) is not a cap from 1 to 1000000")
                }
                cap = value
            case (false, true):
                break
            }
            try listed.insert(kind, kind, at: row, file: file, column: "kind")
            let rule = Rule(kind: kind, strategy: strategy, cap: cap, source: row[3], line: row.line)
            byKind[kind] = rule
            rules.append(rule)
        }
        self.rules = rules
        self.byKind = byKind
    }

    /// Why a text cannot be a data kind, or nil when it can.
    package static func problem(_ kind: String) -> String? {
        guard (1...64).contains(kind.utf8.count),
            kind.utf8.allSatisfy({ ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 45 || $0 == 95 })
        else { return "\(QuotedInput(kind)) is not a data kind (1 to 64 lowercase letters, digits, hyphens and underscores)" }
        return nil
    }

    /// The rule of a kind.
    /// - Parameter kind: The kind.
    /// - Returns: Its rule, or nil when it has none (its data stays with the guest).
    package func rule(for kind: String) -> Rule? { byKind[kind] }
}
