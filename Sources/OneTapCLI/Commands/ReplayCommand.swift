import OneTap
import OneTapInsights

/// `onetap replay --policy NEW.csv FILE|-`: what a routing policy would have done to recorded logins.
package struct ReplayOptions: Hashable, Sendable {
    /// The events file, or nil for standard input.
    package var file: String?
    /// The new routing policy.
    package var policy: String
    /// Whether to print one JSON object per carrier (NDJSON), the total and a summary.
    package var json: Bool
    /// Where to write the chart, if anywhere.
    package var svg: String?
    /// The price of one SMS message.
    package var smsPrice: Double?
    /// The price of one one-tap success.
    package var oneTapPrice: Double?
}

/// `onetap replay --policy NEW.csv FILE|-`: current beside new, per carrier and for all, as text, NDJSON or a chart.
enum ReplayCommand: CommandDescription {
    static let name = "replay"
    static let summary = "what a new routing policy would have done to recorded logins"
    static let help = """
        USAGE: onetap replay --policy NEW.csv FILE|- [--json] [--svg CHART.svg]
                             [--sms-price P] [--onetap-price P]

        A what-if replay: what the routing policy NEW.csv (the routing-policy.csv format) would
        have tried first for the recorded logins, and, per carrier, the expected one-tap share,
        SMS share, SMS messages and cost (--sms-price: per message, one per login that reached
        SMS), one-tap successes and cost (--onetap-price: per success; either 0 to 1000000) and
        mean time to login, current beside new. It is an estimate: logins the new policy plans
        the same way keep their recorded outcome; the others are modelled from the recorded
        outcomes and times of each flow for the same carrier and situation. A flow the new plan
        reaches that no recorded login of that carrier and situation reached is shown as
        unknown, not guessed.
        95% intervals: recorded shares Wilson score; estimated shares Wilson at the effective
        sample size (delta method); times and costs ±1.96 standard errors.

        JSON: one object per carrier and one for all carriers ("total":true): carrier, logins,
        changed, estimate, current and new ({firstFlows, oneTapShare, smsShare, smsReach,
        smsMessages, smsCost, oneTapSuccesses, oneTapCost, meanTimeToLoginMs}, each
        {value, low, high, method}; new is null when unknown), unknown; then {"summary":true,…}.

        EXIT STATUS: 0 every line was read; 64 usage error (no --policy, a bad price, --svg naming a
        file the command reads or something not a regular file); 65 a line or the policy was
        malformed; 66 a file cannot be read; 74 the chart cannot be written.

        EXAMPLE: onetap replay --policy Tests/Samples/routing-policy-unicom.csv Tests/Samples/login-events.ndjson
        """
    static let options: [OptionSpec] = [.flag("json"), .value("policy"), .value("svg"), .value("sms-price"), .value("onetap-price")]

    static func parse(_ arguments: ParsedArguments) throws(UsageError) -> ReplayOptions {
        let file = try InsightsArguments.input(arguments, command: name)
        guard let policy = arguments.value("policy") else {
            throw UsageError("replay needs --policy FILE: the routing policy to try on the recorded logins", command: name)
        }
        return ReplayOptions(
            file: file, policy: policy, json: arguments.has("json"), svg: try InsightsArguments.svg(arguments, command: name),
            smsPrice: try InsightsArguments.price(arguments, "sms-price", command: name),
            oneTapPrice: try InsightsArguments.price(arguments, "onetap-price", command: name))
    }

    static let estimateNote = "an estimate: logins the new policy plans the same way keep their recorded outcome; the others are modelled from the recorded outcomes and times of each flow for the same carrier and situation"
    static let intervalNote = "95% intervals: recorded shares Wilson score; estimated shares Wilson at the effective sample size (delta method); times and costs ±1.96 standard errors"

    /// Reads the stream, replays the policy and prints the comparison.
    /// - Returns: 0, or 65 when a line was malformed (its error record is printed and the replay goes on).
    static func run(_ options: ReplayOptions, output: OutputBuffer, io: any CommandIO) throws(CommandFailure) -> ExitCode {
        try FileOutput.refuseReplacing(options.svg, option: "--svg", inputs: [options.file, options.policy])
        let policy: RoutingPolicy
        do {
            policy = try RoutingPolicy(contentsOf: options.policy)
        } catch {
            throw CommandFailure(error)
        }
        var stats = LoginStats()
        if let failure = try InsightsArguments.read(options.file, into: &stats, json: options.json, output: output, io: io) { return failure }
        stats.finish()
        let replay = RoutingReplay(stats.observations, policy: policy, smsPrice: options.smsPrice, oneTapPrice: options.oneTapPrice)
        let summary = stats.readSummary
        if options.json {
            for carrier in replay.carriers { output.line(json(carrier)) }
            output.line(json(replay.total))
            var object = JSONObject()
            object.add("summary", true)
            object.add("policy", options.policy)
            object.add("logins", Int64(summary.logins))
            object.add("malformed", Int64(summary.malformed))
            object.add("estimate", true)
            object.add("model", estimateNote)
            object.add("intervals", intervalNote)
            object.add("smsPrice", json: options.smsPrice.map(Number.json) ?? "null")
            object.add("oneTapPrice", json: options.oneTapPrice.map(Number.json) ?? "null")
            output.line(object.json)
        } else {
            text(replay, options: options, logins: summary.logins, output: output)
        }
        if let path = options.svg {
            let chart = RoutingReplayChart(replay, policy: StatsCommand.fileName(options.policy), source: options.file.map(StatsCommand.fileName) ?? "standard input")
            try InsightsArguments.write(chart.svg, to: path)
        }
        return summary.malformed > 0 ? .dataError : .success
    }

    // MARK: JSON

    static func json(_ estimate: Estimate) -> String {
        var object = JSONObject()
        object.add("value", json: Number.json(estimate.value))
        object.add("low", json: Number.json(estimate.low))
        object.add("high", json: Number.json(estimate.high))
        object.add("method", estimate.method.rawValue)
        return object.json
    }

    static func json(_ scenario: RoutingReplay.Scenario) -> String {
        var object = JSONObject()
        var firsts = JSONObject()
        for first in scenario.firstFlows { firsts.add(first.flow.rawValue, Int64(first.logins)) }
        object.add("firstFlows", json: firsts.json)
        object.add("oneTapShare", json: json(scenario.oneTapShare))
        object.add("smsShare", json: json(scenario.smsShare))
        object.add("smsReach", json: json(scenario.smsReach))
        object.add("smsMessages", json: json(scenario.smsMessages))
        object.add("smsCost", json: scenario.smsCost.map(json) ?? "null")
        object.add("oneTapSuccesses", json: json(scenario.oneTapSuccesses))
        object.add("oneTapCost", json: scenario.oneTapCost.map(json) ?? "null")
        object.add("meanTimeToLoginMs", json: scenario.meanTimeToLogin.map(json) ?? "null")
        return object.json
    }

    static func json(_ carrier: RoutingReplay.CarrierReplay) -> String {
        var object = JSONObject()
        object.add("carrier", carrier.carrier?.rawValue)
        if carrier.carrier == nil { object.add("total", true) }
        object.add("logins", Int64(carrier.logins))
        object.add("changed", Int64(carrier.changed))
        object.add("estimate", true)
        object.add("current", json: json(carrier.current))
        object.add("new", json: carrier.proposed.map(json) ?? "null")
        object.add("unknown", carrier.unknown)
        return object.json
    }

    // MARK: Text

    static func text(_ replay: RoutingReplay, options: ReplayOptions, logins: Int, output: OutputBuffer) {
        output.line("What-if replay of \(options.policy) over \(Number.grouped(logins)) recorded login\(logins == 1 ? "" : "s") in \(options.file ?? "standard input")")
        output.line("This is \(estimateNote).")
        output.line(intervalNote + ".")
        guard !replay.carriers.isEmpty else {
            output.line("")
            output.line("no logins")
            return
        }
        for carrier in replay.carriers + (replay.carriers.count > 1 ? [replay.total] : []) {
            output.line("")
            block(carrier, replay: replay, output: output)
        }
    }

    static func firsts(_ list: [RoutingReplay.FirstFlow]) -> String {
        list.map { "\($0.flow) \(Number.grouped($0.logins))" }.joined(separator: ", ")
    }

    static func block(_ carrier: RoutingReplay.CarrierReplay, replay: RoutingReplay, output: OutputBuffer) {
        let name = carrier.carrier?.rawValue ?? "all carriers"
        var head = "\(name): \(Number.grouped(carrier.logins)) login\(carrier.logins == 1 ? "" : "s"), "
        if carrier.changed == 0 {
            head += "the new policy plans \(carrier.logins == 1 ? "it" : "them all") as before (tried first: \(firsts(carrier.current.firstFlows)))"
        } else {
            head += "\(Number.grouped(carrier.changed)) planned differently (tried first: \(firsts(carrier.current.firstFlows)) → \(carrier.proposed.map { firsts($0.firstFlows) } ?? "see below"))"
        }
        output.line(head)
        if let unknown = carrier.unknown { output.line("  new: unknown (\(unknown)); not guessed") }
        var table = TextTable()
        table.add(["  ", "current", carrier.proposed == nil ? "" : carrier.changed == 0 ? "new (the same)" : "new (estimate)"])
        func add(_ label: String, _ value: (RoutingReplay.Scenario) -> String?) {
            table.add(["  " + label, value(carrier.current) ?? "—", carrier.proposed.map { value($0) ?? "—" } ?? "unknown"])
        }
        add("one-tap share") { Number.share($0.oneTapShare) }
        add("SMS share") { Number.share($0.smsShare) }
        add("SMS messages") { count($0.smsMessages) }
        if replay.smsPrice != nil { add("SMS cost") { $0.smsCost.map(money) } }
        add("one-tap successes") { count($0.oneTapSuccesses) }
        if replay.oneTapPrice != nil { add("one-tap cost") { $0.oneTapCost.map(money) } }
        add("mean time to login") { $0.meanTimeToLogin.map(time) }
        for line in table.lines(leftAligned: 3) { output.line(line) }
    }

    static func count(_ estimate: Estimate) -> String {
        estimate.low == estimate.high ? Number.fixed(estimate.value, 0)
            : "\(Number.fixed(estimate.value, 0)) (\(Number.fixed(estimate.low, 0))–\(Number.fixed(estimate.high, 0)))"
    }

    static func money(_ estimate: Estimate) -> String {
        estimate.low == estimate.high ? Number.money(estimate.value)
            : "\(Number.money(estimate.value)) (\(Number.money(estimate.low))–\(Number.money(estimate.high)))"
    }

    static func time(_ estimate: Estimate) -> String {
        estimate.low == estimate.high ? Number.duration(estimate.value)
            : "\(Number.duration(estimate.value)) (\(Number.duration(estimate.low))–\(Number.duration(estimate.high)))"
    }
}
