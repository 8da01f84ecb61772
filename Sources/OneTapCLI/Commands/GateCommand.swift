import OneTap

/// `onetap gate <action>...`: what each action needs (guest, account, never-prompt), by the login-gate table.
package struct GateOptions: Hashable, Sendable {
    /// The action ids.
    package var actions: [String]
    /// Whether to print NDJSON.
    package var json: Bool
    /// The prompt's language: `zh` (default) or `en`.
    package var english: Bool
    /// A directory holding a replacement `login-gate.csv`.
    package var dataDirectory: String?

    static let specs: [OptionSpec] = [.flag("json"), .value("lang"), .value("data")]

    init(_ parsed: ParsedArguments) throws(UsageError) {
        guard !parsed.operands.isEmpty else { throw UsageError("gate needs at least one action id, e.g. onetap gate favourite", command: "gate") }
        actions = parsed.operands
        json = parsed.has("json")
        switch parsed.value("lang") {
        case nil, "zh": english = false
        case "en": english = true
        case let other?: throw UsageError("option --lang must be zh or en, not \(quoted(other))", command: "gate")
        }
        dataDirectory = parsed.value("data")
    }
}

enum GateCommand {
    /// Prints each action's gate.
    /// - Returns: 0, or 65 when an operand is no action id (its error is printed and the rest go on).
    static func run(_ options: GateOptions, output: OutputBuffer) throws(CommandFailure) -> ExitCode {
        let gate = try TableLoader(options: TableOptions(dataDirectory: options.dataDirectory)).loginGate()
        var worst = ExitCode.success
        for action in options.actions {
            var object = JSONObject()
            object.add("action", action)
            if let problem = LoginGate.problem(action) {
                worst = .dataError
                object.add("error", "invalid action: \(problem)")
                output.line(options.json ? object.json : "\(action): error: invalid action: \(problem)")
                continue
            }
            // A guest asks: what the app must do before the action.
            let rule = gate.rule(for: action)
            let prompt = rule.needs == .account ? (options.english ? rule.promptEN : rule.promptZH) : nil
            object.add("needs", rule.needs.rawValue)
            object.add("prompt", prompt)
            object.add("default", rule.isDefault)
            let text: String
            switch rule.needs {
            case .account: text = "account: log in first (\(prompt ?? ""))"
            case .guest: text = "guest: allowed without a login"
            case .neverPrompt: text = "never-prompt: allowed, and never ask for a login"
            }
            output.line(options.json ? object.json : "\(action): \(text)\(rule.isDefault ? " [the default: \(action) is not in the table]" : "")")
        }
        return worst
    }
}
