import OneTap
import OneTapInsights

/// `onetap stats FILE|-`: the login funnel from an event stream.
package struct StatsOptions: Hashable, Sendable {
    /// The events file, or nil for standard input.
    package var file: String?
    /// Whether to print one JSON object per row (NDJSON) and a summary object.
    package var json: Bool
    /// Where to write the chart, if anywhere.
    package var svg: String?
    /// The price of one SMS message, to put a cost on misconfigurations.
    package var smsPrice: Double?
    /// How many codes to list per row.
    package var top: Int
    /// What the rows are split by.
    package var dimensions: LoginFunnel.Dimensions
}

/// What `stats` and `replay` share: the input operand, `--svg`, prices, reading the stream.
enum InsightsArguments {
    static func input(_ parsed: ParsedArguments, command: String) throws(UsageError) -> String? {
        guard parsed.operands.count == 1 else {
            throw UsageError(
                parsed.operands.isEmpty ? "\(command) needs an events file, or - to read events from standard input"
                    : "\(command) reads one events file (or -); unexpected \(quoted(parsed.operands[1]))",
                command: command)
        }
        return parsed.operands[0] == "-" ? nil : parsed.operands[0]
    }

    static func svg(_ parsed: ParsedArguments, command: String) throws(UsageError) -> String? {
        guard let path = parsed.value("svg") else { return nil }
        guard !path.isEmpty, path != "-" else { throw UsageError("option --svg needs a file to write the chart to", command: command) }
        return path
    }

    static func price(_ parsed: ParsedArguments, _ name: String, command: String) throws(UsageError) -> Double? {
        guard let text = parsed.value(name) else { return nil }
        // Plain decimals only: `Double` also reads exponents, hexadecimal (`0x1p4`), `nan` and `inf`.
        guard text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), let value = Double(text), value.isFinite, value <= maximumPrice else {
            throw UsageError("option --\(name) must be a price of 0 to \(Int(maximumPrice)) (0.05), not \(quoted(text))", command: command)
        }
        return value
    }

    /// The highest price `--sms-price` and `--onetap-price` take: far past any message's or exchange's, so that
    /// costs stay in the range money is written in.
    static let maximumPrice = 1_000_000.0

    /// The most error records printed; the rest are counted in the summary.
    static let errorRecordLimit = 100

    /// Reads every line of the input into the stats, printing an error record per malformed line.
    /// - Returns: The exit code the reading forces (a read or output failure), or nil to go on.
    static func read(_ file: String?, into stats: inout LoginStats, json: Bool, output: OutputBuffer, io: any CommandIO) throws(CommandFailure) -> ExitCode? {
        let input: any CommandIO = try file.map { (path) throws(CommandFailure) in try FileInput(path: path, io: io) } ?? io
        var shown = 0
        let ending = LineReader(io: input).forEachLine { bytes, number, cut in
            var message: String? = nil
            if cut {
                stats.skipLine()
                message = "the line is longer than 4 MiB: no event; it was skipped"
            } else {
                do throws(LoginStats.LineError) {
                    try stats.add(line: bytes)
                } catch {
                    message = error.message
                }
            }
            if let message {
                shown += 1
                if shown <= errorRecordLimit {
                    if json {
                        var object = JSONObject()
                        object.add("line", Int64(number))
                        object.add("error", message)
                        output.line(object.json)
                    } else {
                        output.line("line \(number): error: \(message)")
                    }
                }
            }
            return !output.failed
        }
        if case .readFailed = ending, let file {
            output.flush()
            io.writeError("onetap: error: cannot read \(quoted(file))")
            return .noInput
        }
        return ending.failure(output: output, io: io)
    }

    /// Writes a chart to a file.
    static func write(_ svg: String, to path: String) throws(CommandFailure) {
        try FileOutput.write(svg, to: path, what: "chart")
    }
}

/// `onetap stats FILE|-`: the login funnel, as text, NDJSON or a chart.
enum StatsCommand: CommandDescription {
    static let name = "stats"
    static let summary = "the login funnel by carrier, flow and code, from login events"
    static let help = """
        USAGE: onetap stats FILE|- [--json] [--svg CHART.svg] [--sms-price P] [--top N]
                                   [--by carrier,flow,platform]

        Counts logins from login events (NDJSON, the event schema v2 that OneTap's event sinks
        and `onetap session --events` write; token and sms events are skipped). Per carrier and
        first flow: logins; how they ended (one-tap success, SMS success, cancelled, failed,
        unfinished: silent for 15 minutes or still open when the stream ended); the one-tap
        success share with its 95% Wilson interval; the time to success p50 and p95; the most
        frequent result codes besides success, with their action and meaning; misconfiguration
        alerts and, with --sms-price (0 to 1000000 per message), what the SMS they caused cost.
        --by splits the rows by carrier, flow (the plan's first flow) and platform (the first
        255 distinct platform ids apart, any later one as "other"; result codes likewise: the first
        4,092 distinct ones of 64 bytes at most, any other as "(other)"). --svg writes a chart: one
        stacked bar per carrier, counts and shares labelled, and the top failure codes.

        Memory is bounded by the logins open at once and the distinct rows and codes, whatever
        the stream's length. JSON: one object per row (carrier, firstFlow, logins, oneTap, sms,
        cancelled, failed, unfinished, oneTapShare, oneTapShareLow, oneTapShareHigh,
        successShare, successP50Ms, successP95Ms, results, topCodes, topFailures, alerts,
        alertLogins, alertSMS, alertCost, alertCodes), then {"summary":true,…}.

        EXIT STATUS: 0 every line was read; 64 usage error (--svg without a file, or naming a file
        the command reads or something not a regular file; a bad --top, --by or --sms-price); 65 a
        line was malformed (an error record, and the count goes on; the first 100 are printed); 66
        the file cannot be read; 74 the chart cannot be written.

        EXAMPLE: onetap stats Tests/Samples/login-events.ndjson --sms-price 0.05 --svg funnel.svg
        """
    static let options: [OptionSpec] = [.flag("json"), .value("svg"), .value("sms-price"), .value("top"), .value("by")]

    static func parse(_ arguments: ParsedArguments) throws(UsageError) -> StatsOptions {
        let file = try InsightsArguments.input(arguments, command: name)
        let svg = try InsightsArguments.svg(arguments, command: name)
        let smsPrice = try InsightsArguments.price(arguments, "sms-price", command: name)
        var top = 5
        if let text = arguments.value("top") {
            guard let value = Int(text), (0...100).contains(value) else {
                throw UsageError("option --top must be a whole number from 0 to 100, not \(quoted(text))", command: name)
            }
            top = value
        }
        var dimensions: LoginFunnel.Dimensions = []
        for by in (arguments.value("by") ?? "carrier,flow").split(separator: ",", omittingEmptySubsequences: false) {
            switch by {
            case "carrier": dimensions.insert(.carrier)
            case "flow": dimensions.insert(.firstFlow)
            case "platform": dimensions.insert(.platform)
            default:
                throw UsageError("option --by takes carrier, flow and platform separated by commas, not \(quoted(String(by)))", command: name)
            }
        }
        return StatsOptions(file: file, json: arguments.has("json"), svg: svg, smsPrice: smsPrice, top: top, dimensions: dimensions)
    }

    /// Counts the stream and prints the funnel.
    /// - Returns: 0, or 65 when a line was malformed (its error record is printed and the count goes on).
    static func run(_ options: StatsOptions, output: OutputBuffer, io: any CommandIO) throws(CommandFailure) -> ExitCode {
        try FileOutput.refuseReplacing(options.svg, option: "--svg", inputs: [options.file])
        var stats = LoginStats()
        if let failure = try InsightsArguments.read(options.file, into: &stats, json: options.json, output: output, io: io) { return failure }
        stats.finish()
        let funnel = stats.funnel(by: options.dimensions, topCodes: options.top, smsPrice: options.smsPrice)
        if options.json {
            for row in funnel.rows { output.line(json(row, funnel: funnel)) }
            output.line(summaryJSON(funnel.summary))
        } else {
            text(funnel, source: options.file ?? "standard input", output: output)
        }
        if let path = options.svg {
            let chart = LoginFunnelChart(stats.funnel(by: [.carrier], topCodes: 3, smsPrice: options.smsPrice), source: options.file.map(Self.fileName) ?? "standard input")
            try InsightsArguments.write(chart.svg, to: path)
        }
        return funnel.summary.malformed > 0 ? .dataError : .success
    }

    static func fileName(_ path: String) -> String { String(path.split(separator: "/").last ?? Substring(path)) }

    // MARK: JSON

    static func json(_ row: LoginFunnel.Row, funnel: LoginFunnel) -> String {
        var object = JSONObject()
        if funnel.dimensions.contains(.carrier) { object.add("carrier", row.carrier?.rawValue) }
        if funnel.dimensions.contains(.firstFlow) { object.add("firstFlow", row.firstFlow?.rawValue) }
        if funnel.dimensions.contains(.platform) { object.add("platform", row.platform?.rawValue) }
        object.add(counts: ["logins": row.logins, "oneTap": row.oneTap, "sms": row.sms, "cancelled": row.cancelled, "failed": row.failed, "unfinished": row.unfinished])
        object.add("oneTapShare", json: Number.json(row.oneTapShare.value))
        object.add("oneTapShareLow", json: Number.json(row.oneTapShare.low))
        object.add("oneTapShareHigh", json: Number.json(row.oneTapShare.high))
        object.add("successShare", json: Number.json(row.successShare.value))
        object.add("successP50Ms", json: row.successP50.map { String($0) } ?? "null")
        object.add("successP95Ms", json: row.successP95.map { String($0) } ?? "null")
        object.add("results", Int64(row.results))
        object.add("topCodes", json: codes(row.topCodes))
        object.add("topFailures", json: codes(row.topFailures))
        object.add("alerts", Int64(row.alerts.count))
        object.add("alertLogins", Int64(row.alerts.logins))
        object.add("alertSMS", Int64(row.alerts.toSMS))
        object.add("alertCost", json: row.alerts.cost.map(Number.json) ?? "null")
        object.add("alertCodes", json: codes(row.alerts.codes))
        return object.json
    }

    static func codes(_ list: [LoginFunnel.CodeCount]) -> String {
        "[" + list.map { code in
            var object = JSONObject()
            object.add("flow", code.flow.rawValue)
            object.add("code", code.code)
            object.add("count", Int64(code.count))
            object.add("share", json: Number.json(code.share))
            object.add("action", code.action?.rawValue)
            object.add("meaning", code.meaning)
            return object.json
        }.joined(separator: ",") + "]"
    }

    static func summaryJSON(_ summary: LoginFunnel.Summary) -> String {
        var object = JSONObject()
        object.add("summary", true)
        object.add(counts: [
            "lines": summary.lines, "loginEvents": summary.loginEvents, "logins": summary.logins, "ignored": summary.ignored, "orphans": summary.orphans,
            "malformed": summary.malformed, "otherPlatformLogins": summary.otherPlatformLogins,
        ])
        object.add("from", summary.first.map({ Timestamp.format(milliseconds: $0) }))
        object.add("to", summary.last.map({ Timestamp.format(milliseconds: $0) }))
        object.add("interval", "wilson-95")
        return object.json
    }

    // MARK: Text

    static func text(_ funnel: LoginFunnel, source: String, output: OutputBuffer) {
        let summary = funnel.summary
        var head = "\(Number.grouped(summary.logins)) login\(summary.logins == 1 ? "" : "s") from \(Number.grouped(summary.loginEvents)) event\(summary.loginEvents == 1 ? "" : "s") in \(source)"
        if let first = summary.first, let last = summary.last { head += ", \(Timestamp.format(milliseconds: first)) to \(Timestamp.format(milliseconds: last))" }
        output.line(head)
        var notes: [String] = []
        if summary.ignored > 0 { notes.append("\(Number.grouped(summary.ignored)) other event\(summary.ignored == 1 ? "" : "s") skipped") }
        if summary.orphans > 0 { notes.append("\(Number.grouped(summary.orphans)) event\(summary.orphans == 1 ? "" : "s") of logins not begun in the stream skipped") }
        if summary.malformed > 0 { notes.append("\(Number.grouped(summary.malformed)) malformed line\(summary.malformed == 1 ? "" : "s")") }
        if summary.otherPlatformLogins > 0 {
            notes.append("\(Number.grouped(summary.otherPlatformLogins)) login\(summary.otherPlatformLogins == 1 ? "" : "s") of platforms past the first \(LoginStats.platformLimit - 1) counted as other")
        }
        if !notes.isEmpty { output.line("(" + notes.joined(separator: "; ") + ")") }
        guard !funnel.rows.isEmpty else {
            output.line("no logins")
            return
        }
        output.line("")
        var table = TextTable()
        var header: [String] = []
        if funnel.dimensions.contains(.carrier) { header.append("carrier") }
        if funnel.dimensions.contains(.firstFlow) { header.append("first flow") }
        if funnel.dimensions.contains(.platform) { header.append("platform") }
        let keyColumns = header.count
        header += ["logins", "one-tap", "SMS", "cancelled", "failed", "unfinished", "one-tap share (95% Wilson)", "success p50", "p95", "alerts"]
        table.add(header)
        for row in funnel.rows {
            table.add(label(row, funnel) + [
                Number.grouped(row.logins), Number.grouped(row.oneTap), Number.grouped(row.sms), Number.grouped(row.cancelled), Number.grouped(row.failed),
                Number.grouped(row.unfinished), Number.share(row.oneTapShare), row.successP50.map(Number.duration) ?? "—", row.successP95.map(Number.duration) ?? "—",
                Number.grouped(row.alerts.count),
            ])
        }
        for line in table.lines(leftAligned: keyColumns) { output.line(line) }
        for row in funnel.rows {
            output.line("")
            let name = label(row, funnel).joined(separator: " · ")
            output.line("\(name.isEmpty ? "all logins" : name): \(Number.grouped(row.logins)) login\(row.logins == 1 ? "" : "s"), \(Number.grouped(row.results)) result\(row.results == 1 ? "" : "s")"
                + (row.topFailures.isEmpty ? "" : "; the most frequent besides success (share of the results):"))
            if !row.topFailures.isEmpty {
                var codes = TextTable()
                codes.add(["  flow", "code", "count", "share", "action", "meaning"])
                for code in row.topFailures {
                    codes.add(["  " + code.flow.rawValue, cell(code.code), Number.grouped(code.count), Number.percent(code.share), code.action?.rawValue ?? "—", cell(code.meaning)])
                }
                for line in codes.lines(leftAligned: 2, trailingLeft: 2) { output.line(line) }
            }
            if row.alerts.count > 0 {
                var line = "  alerts (misconfigured): \(Number.grouped(row.alerts.count)) in \(Number.grouped(row.alerts.logins)) login\(row.alerts.logins == 1 ? "" : "s"), "
                    + "\(Number.grouped(row.alerts.toSMS)) then sent to SMS"
                if let cost = row.alerts.cost, let price = funnel.smsPrice { line += " (money lost: \(Number.money(cost)) at \(Number.money(price)) per SMS)" }
                output.line(line)
                for code in row.alerts.codes {
                    output.line("    \(code.flow) \(cell(code.code)) ×\(Number.grouped(code.count)): \(cell(code.meaning))")
                }
            }
        }
    }

    /// A code or meaning read from the stream, as one cell of a line: at most 120 characters, line breaks,
    /// tabs and other unsafe characters replaced (the stream is input: a cell holding a line break forged a
    /// row of the report).
    static func cell(_ text: String) -> String { DisplayText.label(text, limit: 120) }

    static func label(_ row: LoginFunnel.Row, _ funnel: LoginFunnel) -> [String] {
        var label: [String] = []
        if funnel.dimensions.contains(.carrier) { label.append(row.carrier?.rawValue ?? "—") }
        if funnel.dimensions.contains(.firstFlow) { label.append(row.firstFlow?.rawValue ?? "—") }
        if funnel.dimensions.contains(.platform) { label.append(row.platform?.rawValue ?? "unreported") }
        return label
    }
}

/// Columns of text, padded to their widest cell: numbers right, labels left.
struct TextTable {
    private var rows: [[String]] = []

    mutating func add(_ row: [String]) { rows.append(row) }

    /// The lines: the first `leftAligned` columns (and the last `trailingLeft`) padded on the right, the
    /// others on the left; no trailing spaces.
    func lines(leftAligned: Int, trailingLeft: Int = 0) -> [String] {
        let columns = rows.map(\.count).max() ?? 0
        var widths = Array(repeating: 0, count: columns)
        for row in rows {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        return rows.map { row in
            var line = ""
            for (index, cell) in row.enumerated() {
                let pad = String(repeating: " ", count: widths[index] - cell.count)
                let left = index < leftAligned || index >= columns - trailingLeft
                if index > 0 { line += "  " }
                line += left ? cell + pad : pad + cell
            }
            while line.hasSuffix(" ") { line.removeLast() }
            return line
        }
    }
}
