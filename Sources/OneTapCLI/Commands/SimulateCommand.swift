import OneTap
import OneTapTesting

/// `onetap simulate`: the real coordinator against mock providers, on virtual time.
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

    static let specs: [OptionSpec] =
        SnapshotArguments.specs + [
            .value("mobile", repeatable: true), .value("tianyi", repeatable: true), .value("unicom", repeatable: true),
            .value("sms"), .value("hang", repeatable: true), .flag("json"),
        ]

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

enum SimulateCommand {
    /// The time limits a simulation uses: the vendors' defaults, and 60 s for SMS so a hung SMS
    /// gateway ends too. Time is virtual: a hang costs no real time.
    static let timeouts = FlowTimeouts(sms: .seconds(60))

    /// Runs a simulation.
    /// - Returns: The outcome.
    /// - Throws: ``ParseError`` for a malformed snapshot value or code.
    static func simulate(_ options: SimulateOptions, engine: LoginDecisionEngine) async throws(ParseError) -> LoginOutcome {
        let snapshot = try options.snapshot.snapshot()
        let clock = FakeClock()
        let (hangs, hung) = AsyncStream<LoginFlow>.makeStream()
        func answers<Value>(_ flow: LoginFlow, _ make: (ResultCode, Int) -> Value) throws(ParseError) -> [MockAnswer<Value>] {
            if options.hangs.contains(flow) { return Array(repeating: .hang, count: 8) }
            return try options.codes(flow).enumerated().map { .value(make($0.element, $0.offset + 1)) }
        }
        let providers = LoginProviders(
            mobile: MockMobileProvider(try answers(.mobile, MockMobileProvider.answer), clock: clock, onHang: { hung.yield(.mobile) }),
            tianyi: MockTianyiProvider(try answers(.tianyi, MockTianyiProvider.answer), clock: clock, onHang: { hung.yield(.tianyi) }),
            unicom: MockUnicomProvider(try answers(.unicom, MockUnicomProvider.answer), clock: clock, onHang: { hung.yield(.unicom) }),
            sms: MockSMSProvider(
                number: snapshot.phoneHint ?? (try? PhoneNumber("13800138000")),
                send: options.hangs.contains(.sms) ? [.hang] : [],
                verify: options.smsSucceeds ? [] : [.value(SMSVerification(resultCode: 1))],
                clock: clock, onHang: { hung.yield(.sms) }))
        let coordinator = LoginCoordinator(engine: engine, providers: providers, timeouts: timeouts, clock: clock, events: DiscardingEventSink())
        // A hung call is waiting on its time limit: move virtual time past it.
        let driver = Task {
            for await flow in hangs {
                await clock.waitForSleepers(1)
                clock.advance(by: timeouts[flow] ?? .zero)
            }
        }
        defer {
            hung.finish()
            driver.cancel()
        }
        do {
            return try await coordinator.login(snapshot)
        } catch {
            // A fresh coordinator is never busy.
            preconditionFailure("a new coordinator rejected its first login: \(error)")
        }
    }

    static func run(_ options: SimulateOptions, output: OutputBuffer) async throws(CommandFailure) -> ExitCode {
        let engine = try TableLoader(options: options.tables).engine()
        let outcome: LoginOutcome
        do {
            outcome = try await simulate(options, engine: engine)
        } catch {
            throw CommandFailure(error)
        }
        if options.json {
            output.line(json(outcome).json)
        } else {
            output.line("plan:     \(outcome.plan)")
            for (index, step) in outcome.trace.enumerated() {
                output.line("step \(index + 1):   \(step.flow) \(step.result.code) → \(step.action): \(step.meaning)")
            }
            for alert in outcome.alerts { output.line("alert:    \(alert)") }
            output.line("outcome:  \(outcome.ending)\(outcome.flow.map { " via \($0)" } ?? "")")
        }
        return .success
    }

    /// The JSON of an outcome: outcome, flow, carrier, plan, steps, alerts.
    static func json(_ outcome: LoginOutcome) -> JSONObject {
        var object = JSONObject()
        object.add("outcome", outcome.ending.rawValue)
        object.add("flow", outcome.flow?.rawValue)
        object.add("carrier", outcome.plan.carrier.rawValue)
        object.add("plan", outcome.plan.flows.map(\.rawValue))
        let steps = outcome.trace.map { step -> String in
            var item = JSONObject()
            item.add("flow", step.flow.rawValue)
            item.add("code", step.result.code)
            item.add("action", step.action.rawValue)
            return item.json
        }
        object.add("steps", json: "[" + steps.joined(separator: ",") + "]")
        let alerts = outcome.alerts.map { alert -> String in
            var item = JSONObject()
            item.add("flow", alert.flow.rawValue)
            item.add("code", alert.code.description)
            item.add("meaning", alert.meaning)
            return item.json
        }
        object.add("alerts", json: "[" + alerts.joined(separator: ",") + "]")
        return object
    }
}
