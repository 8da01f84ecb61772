import Foundation
import OneTap

/// `onetap simulate`'s options.
package struct SimulateOptions: Hashable, Sendable {
    /// The snapshot options.
    package var snapshot: SnapshotArguments
    /// Scripted codes per one-tap flow, in call order, as given.
    package var scripts: [LoginFlow: [String]]
    /// Whether the SMS code verifies.
    package var smsSucceeds: Bool
    /// Flows whose every call hangs.
    package var hangs: Set<LoginFlow>
    /// Whether to print JSON.
    package var json: Bool
    /// Replacement tables.
    package var tables: TableOptions

    /// The snapshot, the scripts and `--json`: what `simulate` cases of decision tables take too (they run
    /// against the tables `check` was given, so `--data` and `--policy` are the command's alone).
    static let specs: [OptionSpec] =
        SnapshotArguments.specs + [
            .value("mobile", repeatable: true), .value("tianyi", repeatable: true), .value("unicom", repeatable: true),
            .value("sms"), .value("hang", repeatable: true), .flag("json"),
        ]

    /// Reads the options: the parse of `onetap simulate` and of a decision table's `simulate` case.
    init(_ parsed: ParsedArguments, command: String = "simulate") throws(UsageError) {
        snapshot = try SnapshotArguments(parsed, command: command)
        var scripts: [LoginFlow: [String]] = [:]
        for flow in [LoginFlow.mobile, .tianyi, .unicom] {
            let codes = (parsed.values[flow.rawValue] ?? []).flatMap { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
            if !codes.isEmpty { scripts[flow] = codes }
        }
        self.scripts = scripts
        switch parsed.value("sms") {
        case nil, "ok": smsSucceeds = true
        case "fail": smsSucceeds = false
        case let other?: throw UsageError("option --sms must be ok or fail, not \(quoted(other))", command: command)
        }
        var hangs = Set<LoginFlow>()
        for name in parsed.values["hang"] ?? [] {
            guard let flow = LoginFlow(rawValue: name) else {
                throw UsageError("option --hang takes a flow (\(LoginFlow.allCases.map(\.rawValue).joined(separator: ", "))), not \(quoted(name))", command: command)
            }
            hangs.insert(flow)
        }
        self.hangs = hangs
        json = parsed.has("json")
        tables = TableOptions(parsed)
        if let operand = parsed.operands.first {
            throw UsageError("simulate takes options only; unexpected \(quoted(operand))", command: command)
        }
    }

    /// The scripted codes, checked.
    func codes(_ flow: LoginFlow) throws(ParseError) -> [ResultCode] {
        var codes: [ResultCode] = []
        for text in scripts[flow] ?? [] { codes.append(try ResultCode(text)) }
        return codes
    }
}

/// `onetap simulate`: a whole login on the session machine — the rules the server and the device-side
/// coordinator share — driven by `LoginDriver`, with each flow's answers scripted. Time does not pass: a
/// hang is a timeout report.
enum SimulateCommand: CommandDescription {
    static let name = "simulate"
    static let summary = "a whole login on the session machine, against scripted results"
    static let help = """
        USAGE: onetap simulate [snapshot options as in route] [--mobile CODE[,CODE…]] [--tianyi CODE…]
                               [--unicom CODE…] [--sms ok|fail] [--hang FLOW] [--json]

        Runs a whole login on the session machine (the rules the auth server and the device-side
        coordinator share), with each flow's answers scripted. Each --mobile / --tianyi / --unicom
        scripts that flow's successive result codes (repeat the option or separate codes with
        commas); once its script has run out a flow answers its success code, so a flow with no
        script succeeds. --hang FLOW makes every call of that flow a timeout; time does not pass,
        so a hang costs no real time. --sms fail makes the SMS step fail (code 1) instead of
        verifying the code.

        Prints the plan, each step (flow, code, action, meaning), any alerts and the outcome.
        JSON fields: outcome (success, cancelled, failed), flow, carrier, plan, steps
        ([{flow, code, action}]; a timeout is code "timeout"), alerts ([{flow, code, meaning}]
        for misconfigured codes).

        EXAMPLE: onetap simulate --plmn 46000 --mobile 200023,103000 --json
        """
    /// The simulation's own options (shared with `simulate` cases of decision tables) and the tables'.
    static let options = SimulateOptions.specs + TableOptions.specs

    static func parse(_ arguments: ParsedArguments) throws(UsageError) -> SimulateOptions {
        try SimulateOptions(arguments, command: name)
    }

    /// The fixed start of a simulation.
    static let start = Date(timeIntervalSince1970: 1_796_083_200)

    /// Runs a simulation. A one-tap flow whose script has run out answers its success code from the
    /// result-code table (``OutcomeTable/successCode(for:)``); when the table lists none for the flow, the
    /// simulation cannot succeed on it, and the call is a provider fault that says so (the login falls
    /// back).
    ///
    /// A replacement result-code table can make a simulation impossible: one whose `sms` row for code `1` (the
    /// simulated SMS failure) is no failure, or one that keeps a login waiting forever; the simulation then
    /// stops (after at most ``answerLimit`` answers) with an error that says why, never a trap or a hang.
    /// - Returns: The session when it ended.
    /// - Throws: ``CommandFailure`` (65) for a malformed snapshot value or code, or tables a simulation cannot
    ///   run on.
    static func simulate(_ options: SimulateOptions, engine: LoginDecisionEngine) throws(CommandFailure) -> LoginSession {
        do {
            return try simulate(options, engine: engine, scripts: try scripts(options))
        } catch let error as ParseError {
            throw CommandFailure(error)
        } catch let error as CommandFailure {
            throw error
        } catch {
            throw CommandFailure(message: "\(error)", code: .dataError)
        }
    }

    /// The most answers a simulation gives before it stops: no table-made login needs more.
    static let answerLimit = 1_000

    /// The scripted codes of each one-tap flow, read from the options.
    private static func scripts(_ options: SimulateOptions) throws(ParseError) -> [LoginFlow: [ResultCode]] {
        var scripts: [LoginFlow: [ResultCode]] = [:]
        for flow in [LoginFlow.mobile, .tianyi, .unicom] { scripts[flow] = try options.codes(flow) }
        return scripts
    }

    private static func simulate(
        _ options: SimulateOptions, engine: LoginDecisionEngine, scripts: [LoginFlow: [ResultCode]]
    ) throws -> LoginSession {
        let snapshot = try options.snapshot.snapshot()
        let smsFailure: ResultCode = "1"
        if !options.smsSucceeds, [.success, .progress].contains(engine.outcomeTable.action(for: .sms, code: smsFailure)) {
            throw CommandFailure(
                message: "the result-code table makes SMS code \(smsFailure) a \(engine.outcomeTable.action(for: .sms, code: smsFailure).rawValue), "
                    + "where a simulation fails SMS with it: give the sms flow a failure for code \(smsFailure)",
                code: .dataError)
        }
        var driver = LoginDriver(LoginSessionMachine(engine: engine, exchanges: nil), starting: snapshot, at: start, id: .random())
        var calls: [LoginFlow: Int] = [:]
        var answers = 0
        let number = snapshot.phoneHint ?? (try? PhoneNumber("13800138000"))
        driver.run { request -> (report: LoginReport, at: Date)? in
            answers += 1
            guard answers <= answerLimit else { return nil }
            switch request {
            case .run(let flow, _):
                calls[flow, default: 0] += 1
                let call = calls[flow]!
                let script = scripts[flow] ?? []
                if options.hangs.contains(flow) { return (.timeout(flow), start) }
                guard let code = call <= script.count ? script[call - 1] : engine.outcomeTable.successCode(for: flow) else {
                    return (.fault(flow, "the result-code table lists no success code for \(flow): a simulation cannot succeed on it"), start)
                }
                let success = engine.outcomeTable.action(for: flow, code: code) == .success
                let credential = success
                    ? CarrierCredential(flow: flow, token: Secret("simulated-\(flow)-token-\(call)"), uniqueID: flow == .mobile ? "uid-\(call)" : nil)
                    : nil
                return (.result(flow, code: code, credential: credential), start)
            case .sms(let session):
                if options.hangs.contains(.sms) { return (.timeout(.sms), start) }
                guard options.smsSucceeds, let number else { return (.result(.sms, code: smsFailure), start) }
                return (.smsVerified(SMSVerdict(phoneNumber: number, session: session, verifiedAt: start)), start)
            case .exchange:
                return (.exchanged(.fault("a simulation exchanges nothing")), start)  // not reached: exchanges are off
            }
        }
        if let refusal = driver.refusal {
            // The simulation answers only what the session waits for: only tables that make an answer something
            // else than the simulation meant it (a failure code read as a success) are refused.
            throw CommandFailure(message: "the session machine refused the simulation's report (\(refusal)): check the tables", code: .dataError)
        }
        guard answers <= answerLimit else {
            throw CommandFailure(
                message: "the login did not end after \(answerLimit) answers: the tables keep it waiting (a code whose action is progress?)",
                code: .dataError)
        }
        return driver.session
    }

    /// Runs the simulation and prints the login.
    /// - Returns: 0; a malformed snapshot value or code (65) is thrown.
    static func run(_ options: SimulateOptions, output: OutputBuffer, io _: any CommandIO) throws(CommandFailure) -> ExitCode {
        let engine = try TableLoader(options: options.tables).engine()
        let session = try simulate(options, engine: engine)
        if options.json {
            output.line(json(session).json)
        } else {
            output.line("plan:     \(session.plan)")
            for (index, step) in session.trace.enumerated() {
                output.line("step \(index + 1):   \(step.flow) \(step.result.code) → \(step.action): \(step.meaning)")
            }
            for alert in session.alerts { output.line("alert:    \(alert)") }
            output.line("outcome:  \(session.ending?.rawValue ?? "running")\(session.flow.map { " via \($0)" } ?? "")")
        }
        return .success
    }

    /// The JSON of a simulated login: outcome, flow, carrier, plan, steps, alerts.
    static func json(_ session: LoginSession) -> JSONObject {
        var object = JSONObject()
        object.add("outcome", session.ending?.rawValue)
        object.add("flow", session.flow?.rawValue)
        object.add("carrier", session.plan.carrier.rawValue)
        object.add("plan", session.plan.flows.map(\.rawValue))
        let steps = session.trace.map { step -> String in
            var item = JSONObject()
            item.add("flow", step.flow.rawValue)
            item.add("code", step.result.code)
            item.add("action", step.action.rawValue)
            return item.json
        }
        object.add("steps", json: "[" + steps.joined(separator: ",") + "]")
        let alerts = session.alerts.map { alert -> String in
            var item = JSONObject()
            item.add("flow", alert.flow.rawValue)
            item.add("code", alert.code)
            item.add("meaning", alert.meaning)
            return item.json
        }
        object.add("alerts", json: "[" + alerts.joined(separator: ",") + "]")
        return object
    }
}
