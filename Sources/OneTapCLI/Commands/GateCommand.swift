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
}

/// `onetap gate <action>...`: each action's gate, by the login-gate table.
enum GateCommand: CommandDescription {
    static let name = "gate"
    static let summary = "whether an action needs a login (guest, account, never-prompt)"
    static let help = """
        USAGE: onetap gate <action>... [--json] [--lang zh|en] [--data DIR]

        What each action needs from a guest, by the login-gate table (Data/login-gate.csv, or
        login-gate.csv in --data DIR): guest (allowed without a login), account (log in first,
        with the login page's prompt; the action waits as a pending action) or never-prompt
        (allowed, and a login prompt must never stand in front of it). An action the table does
        not list needs an account and is flagged as the default.

        JSON fields: action, needs, prompt (null unless needs is account), default.

        EXIT STATUS: 0; 64 usage error; 65 an operand is no action id (lowercase letters, digits
        and hyphens), or a --data table is malformed; 66 the --data directory cannot be read.

        EXAMPLE: onetap gate favourite share claim-invite-reward --json
        """
    static let options: [OptionSpec] = [.flag("json"), .value("lang"), .value("data")]

    static func parse(_ arguments: ParsedArguments) throws(UsageError) -> GateOptions {
        guard !arguments.operands.isEmpty else { throw UsageError("gate needs at least one action id, e.g. onetap gate favourite", command: name) }
        let english: Bool
        switch arguments.value("lang") {
        case nil, "zh": english = false
        case "en": english = true
        case let other?: throw UsageError("option --lang must be zh or en, not \(quoted(other))", command: name)
        }
        return GateOptions(actions: arguments.operands, json: arguments.has("json"), english: english, dataDirectory: arguments.value("data"))
    }

    /// Prints each action's gate.
    /// - Returns: 0, or 65 when an operand is no action id (its error is printed and the rest go on).
    static func run(_ options: GateOptions, output: OutputBuffer, io: any CommandIO) throws(CommandFailure) -> ExitCode {
        let gate = try TableLoader(options: TableOptions(dataDirectory: options.dataDirectory)).table(LoginGate.builtIn)
        var worst = ExitCode.success
        for action in options.actions {
            var object = JSONObject()
            object.add("action", action)
            if let problem = LoginGate.problem(action) {
                worst = .dataError
                object.add("error", "invalid action: \(problem)")
                // An error record in JSON mode; otherwise an error line on standard error, as every command's.
                if options.json {
                    output.line(object.json)
                } else {
                    output.flush()  // the answers before it first, when both streams go to one place
                    io.writeError("onetap: error: invalid action: \(problem)")
                }
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
