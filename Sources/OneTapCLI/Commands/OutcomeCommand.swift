import OneTap

/// `onetap outcome <flow> <code>`: what a result code means and what happens next.
enum OutcomeCommand {
    static func run(_ options: OutcomeOptions, output: OutputBuffer) throws(CommandFailure) -> ExitCode {
        let engine = try TableLoader(options: options.tables).engine()
        let code: ResultCode
        do {
            code = try ResultCode(options.code)
        } catch {
            throw CommandFailure(error)
        }
        let outcome = engine.outcome(for: options.flow, code: code)
        if options.json {
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
