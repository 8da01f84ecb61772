import OneTap

/// `onetap outcome <flow> <code>`.
package struct OutcomeOptions: Hashable, Sendable {
    /// The flow.
    package var flow: LoginFlow
    /// The code as given.
    package var code: String
    /// `--json` and the tables.
    package var common: CommonOptions
}

/// `onetap outcome <flow> <code>`: what a result code means and what happens next.
enum OutcomeCommand: CommandDescription {
    static let name = "outcome"
    static let summary = "what a carrier result code means and what happens next"
    static let help = """
        USAGE: onetap outcome <flow> <code> [--json]

        flow: mobile, tianyi, unicom or sms. code: the SDK's result code, e.g. 103000 or -8994014
        (negative codes are typed as they are). Unknown codes get the flow's default action.

        JSON fields: flow, code, action, meaning, meaningZH, source, default.
        Actions: success, progress (the SDK goes on: its authorization page shows), cancelled, fallback,
        retry, switch, failed, misconfigured.
        """
    /// `--json` and `--data`: an outcome reads the result codes, never a routing policy (`--policy` was taken
    /// and ignored).
    static let options: [OptionSpec] = [.flag("json"), .value("data")]

    static func parse(_ arguments: ParsedArguments) throws(UsageError) -> OutcomeOptions {
        guard arguments.operands.count == 2 else {
            throw UsageError("outcome takes a flow and a code, e.g. onetap outcome tianyi -8994014", command: name)
        }
        guard let flow = LoginFlow(rawValue: arguments.operands[0]) else {
            throw UsageError(
                "unknown flow \(quoted(arguments.operands[0])); the flows are \(LoginFlow.allCases.map(\.rawValue).joined(separator: ", "))",
                command: name)
        }
        return OutcomeOptions(flow: flow, code: arguments.operands[1], common: CommonOptions(arguments))
    }

    /// Prints what the code means for the flow and what the login does next.
    /// - Returns: 0; a malformed code (65) or table is thrown.
    static func run(_ options: OutcomeOptions, output: OutputBuffer, io _: any CommandIO) throws(CommandFailure) -> ExitCode {
        let engine = try TableLoader(options: options.common.tables).engine()
        let code: ResultCode
        do {
            code = try ResultCode(options.code)
        } catch {
            throw CommandFailure(error)
        }
        let outcome = engine.outcome(for: options.flow, code: code)
        if options.common.json {
            output.line(json(outcome).json)
        } else {
            output.line("""
                \(outcome.flow) \(outcome.code): \(outcome.action)
                meaning:  \(outcome.meaningEN)\(outcome.meaningZH.isEmpty ? "" : " (\(outcome.meaningZH))")
                next:     \(next(outcome.action))
                source:   \(outcome.source)\(outcome.isDefault ? " (the code is not listed: the flow's default)" : "")
                """)
        }
        return .success
    }

    static func json(_ outcome: Outcome) -> JSONObject {
        var object = JSONObject()
        object.add("flow", outcome.flow.rawValue)
        object.add("code", outcome.code.text)
        object.add("action", outcome.action.rawValue)
        object.add("meaning", outcome.meaningEN)
        object.add("meaningZH", outcome.meaningZH)
        object.add("source", outcome.source)
        object.add("default", outcome.isDefault)
        return object
    }

    /// What the action does to a login, in words.
    static func next(_ action: OutcomeAction) -> String {
        switch action {
        case .success: "the login succeeded"
        case .cancelled: "stop: the user backed out; no SMS page is pushed on them"
        case .fallback: "go to the plan's next flow, finally SMS"
        case .retry: "retry the same flow once, then fall back"
        case .switch: "the user chose another way in: SMS now"
        case .failed: "end the login and show the carrier's error, without forcing SMS"
        case .misconfigured: "fall back for the user and alert operators: our credentials, signature, whitelist or quota are wrong"
        case .progress: "not a result yet: keep waiting for this attempt's result"
        }
    }
}
