/// When an app asks a guest to log in: `Data/login-gate.csv`, action id → `guest`, `account` or
/// `never-prompt`, with the prompt.
///
/// ```swift
/// switch LoginGate.builtIn.decide("favourite", for: .guest(guest)) {
/// case .allow: doFavourite()
/// case .requireLogin(let rule): showLogin(title: rule.promptZH)   // 登录后可进行收藏操作
/// }
/// ```
/// An action the table does not list falls to its `*` row, which must need an account (fail closed),
/// and the answer says it was the default.
public struct LoginGate: DataTable {
    /// `login-gate.csv`, the table's file in `Data/`.
    package static let fileName = "login-gate.csv"

    /// What an action needs.
    package enum Needs: String, Hashable, Sendable, CaseIterable, Codable, DescribedByID {
        /// Allowed to a guest.
        case guest
        /// Needs a login.
        case account
        /// Must never show a login prompt, even to a guest.
        case neverPrompt = "never-prompt"
    }

    /// One row. A class, so a decision hands the row over with one reference instead of copying its
    /// four strings (the gate answers in one lookup without allocating).
    public final class Rule: Hashable, Sendable, CustomStringConvertible {
        /// The action id (`*` for the default row).
        public let action: String
        /// What it needs.
        package let needs: Needs
        /// The login page's title in Chinese, for an action that needs an account.
        public let promptZH: String
        /// The same in English.
        public let promptEN: String
        /// Whether this is the default row (the action was not listed).
        public let isDefault: Bool
        /// Where the rule comes from.
        package let source: String
        /// The row's line in its file.
        package let line: Int

        init(action: String, needs: Needs, promptZH: String, promptEN: String, isDefault: Bool, source: String, line: Int) {
            self.action = action
            self.needs = needs
            self.promptZH = promptZH
            self.promptEN = promptEN
            self.isDefault = isDefault
            self.source = source
            self.line = line
        }

        /// Whether two rows say the same.
        /// - Parameters:
        ///   - lhs: A row.
        ///   - rhs: Another.
        /// - Returns: Whether they say the same.
        public static func == (lhs: Rule, rhs: Rule) -> Bool {
            lhs.action == rhs.action && lhs.needs == rhs.needs && lhs.promptZH == rhs.promptZH && lhs.promptEN == rhs.promptEN
                && lhs.isDefault == rhs.isDefault && lhs.source == rhs.source && lhs.line == rhs.line
        }

        /// Hashes the row's action and needs.
        /// - Parameter hasher: The hasher.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(action)
            hasher.combine(needs)
        }

        /// `favourite → account (登录后可进行收藏操作)`.
        public var description: String {
            "\(action) → \(needs)\(promptZH.isEmpty ? "" : " (\(promptZH))")\(isDefault ? ", the default" : "")"
        }
    }

    /// A gate's answer.
    public enum Verdict: Hashable, Sendable, CustomStringConvertible {
        /// Go ahead (a guest action, a never-prompt action, or an account already logged in).
        case allow(Rule)
        /// Show the login page with the rule's prompt; the action waits as a ``PendingAction``.
        case requireLogin(Rule)

        /// The rule that answered.
        package var rule: Rule {
            switch self {
            case .allow(let rule), .requireLogin(let rule): rule
            }
        }

        /// `allow favourite` / `require-login favourite`.
        public var description: String {
            switch self {
            case .allow(let rule): "allow \(rule.action)"
            case .requireLogin(let rule): "require-login \(rule.action)"
            }
        }
    }

    /// The columns of the file.
    static let columns = ["action", "needs", "prompt_zh", "prompt_en", "source"]

    /// Every listed rule, in file order (the default row included).
    package let rules: [Rule]
    /// The `*` row.
    package let defaultRule: Rule
    private let byAction: ActionIndex

    /// The gate built from `Data/login-gate.csv`.
    public static let builtIn: LoginGate = EmbeddedTable.load(LoginGate.self)

    /// Reads a gate table from CSV text.
    /// - Parameters:
    ///   - text: The file's text, in the `Data/login-gate.csv` format.
    ///   - file: The name used in errors.
    /// - Throws: ``TableError`` for an action id that is not lowercase letters, digits and hyphens
    ///   (1 to 64), an unknown `needs`, an `account` row without both prompts, a prompt on another row,
    ///   an action listed twice, or a missing `*` row or one that does not need an account.
    public init(csv text: String, file: String) throws(TableError) {
        let table = try CSVTable(text: text, file: file, columns: Self.columns)
        var rules: [Rule] = []
        var defaultRule: Rule? = nil
        var listed = ListedKeys<String>()
        for row in table.rows {
            let action = row[0]
            let isDefault = action == "*"
            if !isDefault, let problem = Self.problem(action) {
                throw row.error(file, column: "action", .invalidValue, problem)
            }
            let needs: Needs = try row.choice(row[1], "need", from: Needs.allCases, file: file, column: "needs")
            switch needs {
            case .account:
                for (index, column) in [(2, "prompt_zh"), (3, "prompt_en")] where row[index].isEmpty {
                    throw row.error(file, column: column, .invalidValue, "an action that needs an account needs its login prompt")
                }
            case .guest, .neverPrompt:
                for (index, column) in [(2, "prompt_zh"), (3, "prompt_en")] where !row[index].isEmpty {
                    throw row.error(file, column: column, .invalidValue, "a \(needs) action shows no login prompt; leave the prompt empty")
                }
            }
            try listed.insert(action, action, at: row, file: file, column: "action")
            let rule = Rule(action: action, needs: needs, promptZH: row[2], promptEN: row[3], isDefault: isDefault, source: row[4], line: row.line)
            if isDefault {
                guard needs == .account else {
                    throw row.error(file, column: "needs", .invalidValue, "the default (*) must need an account: an unlisted action fails closed")
                }
                defaultRule = rule
            }
            rules.append(rule)
        }
        guard let defaultRule else {
            throw TableError(file: file, line: 0, kind: .incomplete, message: "no * row; the default for unlisted actions must be written down")
        }
        self.rules = rules
        self.byAction = ActionIndex(rules.filter { !$0.isDefault })
        self.defaultRule = defaultRule
    }

    /// Why a text cannot be an action id, or nil when it can.
    package static func problem(_ action: String) -> String? {
        let count = action.utf8.count
        guard (1...64).contains(count) else { return "\(QuotedInput(action)) is not 1 to 64 characters" }
        guard action.utf8.allSatisfy({ ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 45 }) else {
            return "\(QuotedInput(action)) is not an action id (lowercase letters, digits and hyphens)"
        }
        return nil
    }

    /// The rule for an action: its row, or the default.
    /// - Parameter action: The action id.
    /// - Returns: The rule (``Rule/isDefault`` when the action is not listed).
    /// - Complexity: One dictionary lookup; no allocation.
    package func rule(for action: String) -> Rule {
        byAction.rule(for: action) ?? defaultRule
    }

    /// Whether an identity may do an action now, or must log in first.
    /// - Parameters:
    ///   - action: The action id.
    ///   - identity: Who asks.
    /// - Returns: `allow`, or `requireLogin` for a guest asking for an action that needs an account.
    /// - Complexity: One lookup in a fixed table (O(*m*) in the action id's length); no allocation.
    public func decide(_ action: String, for identity: Identity) -> Verdict {
        let rule = rule(for: action)
        switch rule.needs {
        case .guest, .neverPrompt: return .allow(rule)
        case .account: return identity.isGuest ? .requireLogin(rule) : .allow(rule)
        }
    }
}
