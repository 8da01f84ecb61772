import Foundation
import OneTap

/// A decision-table file: one case per line, inputs left of `=>`, expectations right of it.
///
/// ```
/// # comment
/// route --plmn 46000 --network wifi => carrier=mobile flows=mobile,sms reason=policy
/// outcome tianyi -8994014 => action=fallback
/// ```
/// The inputs are written as the `onetap route` / `onetap outcome` / `onetap simulate` command lines, words
/// separated by spaces (no shell quoting is read: `--plmn 46000`, not `--plmn "460 00"`), so a case can be
/// pasted into a shell and back. Only the expectations given are checked. A line
/// that cannot run is kept as a ``Problem`` and fails by its line; the other cases still run.
///
/// A `.transcript` file is a login transcript (`onetap session`'s input) whose report lines may each be
/// followed by `=> {…}`: the fields the line's record must have.
package struct DecisionTable: Sendable {
    /// What a case runs.
    package enum Input: Hashable, Sendable {
        /// `route <snapshot options>`.
        case route(SnapshotArguments)
        /// `outcome <flow> <code>`.
        case outcome(LoginFlow, ResultCode)
        /// `simulate <simulate options>`.
        case simulate(SimulateOptions)
        /// A transcript: the file's lines (one array, shared by every case of the file) and how many of them lead up
        /// to the one whose record is checked (the last of them).
        case transcript(lines: [String], count: Int)
    }

    /// One case.
    package struct Case: Hashable, Sendable {
        /// The file it came from.
        package let file: String
        /// Its 1-based line.
        package let line: Int
        /// The line's text, trimmed.
        package let text: String
        /// What it runs.
        package let input: Input
        /// Expected values by key, in the order written.
        package let expectations: [(key: String, value: String)]

        /// Cases are equal when they come from the same file, line and text.
        package static func == (lhs: Case, rhs: Case) -> Bool {
            lhs.file == rhs.file && lhs.line == rhs.line && lhs.text == rhs.text
        }

        /// Hashes the file and line.
        package func hash(into hasher: inout Hasher) {
            hasher.combine(file)
            hasher.combine(line)
        }
    }

    /// A line that cannot run: it fails, by its line, and the others run.
    package struct Problem: Hashable, Sendable {
        /// The file.
        package let file: String
        /// The 1-based line.
        package let line: Int
        /// The line's text, trimmed; nil for a line that does not start as a case (`route`, `outcome`, `simulate`), which
        /// is never printed: a file that is no decision table (a key file, an `.env` named by mistake or linked in a
        /// contributed table) would print its secrets into a CI log.
        package let text: String?
        /// What is wrong with it.
        package let message: String
    }

    /// The keys each input kind may expect.
    static let keys: [String: [String]] = [
        "route": ["carrier", "flows", "reason", "evidence", "condition"],
        "outcome": ["action", "default"],
        "simulate": ["outcome", "flow", "steps", "alerts"],
    ]

    /// The cases, in file order.
    package let cases: [Case]
    /// The lines that cannot run.
    package let problems: [Problem]

    /// Reads a decision table.
    /// - Parameters:
    ///   - text: The file's text.
    ///   - file: The name used in errors.
    /// - Throws: ``TableError`` of kind `incomplete` for a file with no case at all.
    package init(text: String, file: String) throws(TableError) {
        var cases: [Case] = []
        var problems: [Problem] = []
        for (number, line) in Self.lines(of: text) {
            if line.isEmpty || line.hasPrefix("#") { continue }
            do {
                cases.append(try Self.parseCase(line, file: file, line: number))
            } catch {
                problems.append(Problem(file: file, line: number, text: error.showsText ? line : nil, message: error.message))
            }
        }
        try self.init(cases: cases, problems: problems, file: file)
    }

    private init(cases: [Case], problems: [Problem], file: String) throws(TableError) {
        guard !cases.isEmpty || !problems.isEmpty else {
            throw TableError(file: file, line: 0, kind: .incomplete, message: "the table has no cases; an empty table would pass without testing anything")
        }
        self.cases = cases
        self.problems = problems
    }

    /// Reads a transcript table: report lines, each optionally followed by `=> {"key":value,…}`.
    /// - Parameters:
    ///   - text: The file's text.
    ///   - file: The name used in errors.
    /// - Throws: ``TableError`` of kind `incomplete` for a transcript that expects nothing.
    package init(transcript text: String, file: String) throws(TableError) {
        // The cases are made once every line is read, all over one array of lines: a case made as its expectation
        // was read held its own copy of every line before it, quadratic in a long transcript's expectations (an
        // attacker's read: a 1 MB transcript made `onetap check` ask for tens of gigabytes).
        var expected: [(line: Int, text: String, count: Int, expectations: [(key: String, value: String)])] = []
        var problems: [Problem] = []
        var lines: [String] = []
        var sawReport = false  // a line before that can make a record (not blank, not a comment)
        for (number, line) in Self.lines(of: text) {
            guard line.hasPrefix("=>") else {
                lines.append(line)  // comments and blank lines too, so record numbers match the file's lines
                if !line.isEmpty && !line.hasPrefix("#") { sawReport = true }
                continue
            }
            let body = line.dropFirst(2).trimmingCharacters(in: " \t")
            guard let object = Self.fields(body), !object.isEmpty else {
                problems.append(Problem(file: file, line: number, text: line, message: "an expectation is => and a non-empty JSON object of a record's fields"))
                lines.append("")
                continue
            }
            guard sawReport else {
                problems.append(Problem(file: file, line: number, text: line, message: "an expectation follows the line it is about"))
                lines.append("")
                continue
            }
            let expectations = object.keys.sorted().map { (key: $0, value: object[$0]!) }
            expected.append((number, line, lines.count, expectations))
            lines.append("")  // the expectation line itself replays as nothing
        }
        let cases = expected.map { Case(file: file, line: $0.line, text: $0.text, input: .transcript(lines: lines, count: $0.count), expectations: $0.expectations) }
        try self.init(cases: cases, problems: problems, file: file)
    }

    /// A file's lines, numbered from 1, trimmed of spaces, tabs and carriage returns: a line ends at LF or CRLF (which
    /// Swift reads as one character), as standard input's lines do. Every command that reads a file's lines reads them so.
    /// Found one at a time as the sequence is read (``TextLines``), never split up front.
    static func lines(of text: String) -> some Sequence<(number: Int, line: String)> {
        TextLines(text[...]).enumerated().lazy.map { (index, line) in (index + 1, line.trimmingCharacters(in: " \t\r")) }
    }

    /// A JSON object's scalar fields as text for comparison: a string as it is, numbers and booleans as
    /// JSON writes them, `null`; nil when the text is not such an object.
    static func fields(_ json: String) -> [String: String]? {
        let read = Result { () throws(JSONReadError) -> [String: String] in
            try JSONReader.read(json.utf8, skippingByteOrderMark: true) { (reader) throws(JSONReadError) -> [String: String] in
                var fields: [String: String] = [:]
                var members = try reader.beginObject()
                while let key = try reader.nextKey(in: &members) {
                    let name = key.text
                    guard fields[name] == nil else { throw reader.duplicate(key) }
                    switch try JSONValue(reading: &reader) {
                    case .null: fields[name] = "null"
                    case .bool(let flag): fields[name] = flag ? "true" : "false"
                    case .number(let number): fields[name] = number == number.rounded() && abs(number) < 9.2e18 ? String(Int64(number)) : String(number)
                    case .string(let text): fields[name] = text
                    case .array, .object: throw reader.invalid("a field is a scalar")
                    }
                }
                return fields
            }
        }
        guard case .success(let fields) = read else { return nil }
        return fields
    }

    /// Loads a decision-table file (`.transcript` files as transcripts).
    /// - Parameter path: The file's path.
    /// - Throws: ``TableError`` when the file is unreadable (kind `unreadable`) or has no case.
    package init(contentsOf path: String) throws(TableError) {
        let text = try TableFile.read(path)
        if path.hasSuffix(".transcript") {
            try self.init(transcript: text, file: path)
        } else {
            try self.init(text: text, file: path)
        }
    }

    /// Why a line is not a case.
    struct CaseError: Error {
        let message: String
        /// Whether the line may be printed: not when it does not start as a case (it may be any file's line).
        var showsText = true
    }

    private static func parseCase(_ text: String, file: String, line: Int) throws(CaseError) -> Case {
        func fail(_ message: String) -> CaseError {
            CaseError(message: message)
        }
        let tokens = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard let allowed = tokens.first.flatMap({ keys[$0] }) else {
            throw CaseError(message: "a case starts with route, outcome or simulate; this line does not (its text is not shown)", showsText: false)
        }
        guard let arrow = tokens.firstIndex(of: "=>") else {
            throw fail("a case is `<inputs> => <expectations>`; this line has no =>")
        }
        let kind = tokens[0]
        let arguments = tokens[1..<arrow]
        var expectations: [(key: String, value: String)] = []
        for token in tokens[(arrow + 1)...] {
            guard let equals = token.firstIndex(of: "="), equals != token.startIndex else {
                throw fail("expectation \(quoted(token)) is not key=value")
            }
            let key = String(token[..<equals])
            guard allowed.contains(key) else {
                throw fail("\(kind) cases expect \(allowed.joined(separator: ", ")), not \(quoted(key))")
            }
            guard !expectations.contains(where: { $0.key == key }) else { throw fail("\(key) is expected twice") }
            expectations.append((key, String(token[token.index(after: equals)...])))
        }
        guard !expectations.isEmpty else { throw fail("a case must expect something after =>") }
        let input: Input
        do {
            switch kind {
            case "route":
                let parsed = try ParsedArguments.parse(arguments, options: SnapshotArguments.specs, command: "route")
                guard parsed.operands.isEmpty, !parsed.help else { throw UsageError("route cases take snapshot options only", command: "route") }
                let snapshot = try SnapshotArguments(parsed, command: "route")
                do {
                    _ = try snapshot.snapshot()
                } catch {
                    throw fail(error.description)
                }
                input = .route(snapshot)
            case "simulate":
                let parsed = try ParsedArguments.parse(arguments, options: SimulateOptions.specs, command: "simulate")
                guard !parsed.help else { throw UsageError("simulate cases take simulate options only", command: "simulate") }
                let options = try SimulateOptions(parsed)
                do {
                    _ = try options.snapshot.snapshot()
                    for flow in LoginFlow.allCases { _ = try options.codes(flow) }
                } catch {
                    throw fail(error.description)
                }
                input = .simulate(options)
            default:
                let parsed = try ParsedArguments.parse(arguments, options: [], command: "outcome")
                guard parsed.operands.count == 2, let flow = LoginFlow(rawValue: parsed.operands[0]) else {
                    throw UsageError("outcome cases are `outcome <flow> <code>` with flow one of \(LoginFlow.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                do {
                    input = .outcome(flow, try ResultCode(parsed.operands[1]))
                } catch {
                    throw fail(error.description)
                }
            }
        } catch let error as UsageError {
            throw fail(error.message)
        } catch let error as CaseError {
            throw error
        } catch {
            throw fail("\(error)")
        }
        return Case(file: file, line: line, text: text, input: input, expectations: expectations)
    }

    /// Runs one case.
    /// - Parameters:
    ///   - testCase: The case.
    ///   - engine: The engine to check.
    /// - Returns: One message per expectation that did not hold (empty when the case passed).
    /// - Complexity: A transcript case replays every line before it; ``evaluate(_:engine:)-([Case],_)`` replays a
    ///   transcript's lines once for all its cases.
    package static func evaluate(_ testCase: Case, engine: LoginDecisionEngine) -> [String] {
        var replay: TranscriptReplay? = nil
        return evaluate(testCase, engine: engine, replay: &replay)
    }

    /// Runs a table's cases in order.
    /// - Parameters:
    ///   - cases: The cases, in the order of their lines.
    ///   - engine: The engine to check.
    /// - Returns: Each case's messages, in order (empty for a case that passed).
    /// - Complexity: O(*n*) replays for a transcript of *n* lines, however many expectations it has.
    package static func evaluate(_ cases: [Case], engine: LoginDecisionEngine) -> [[String]] {
        var replay: TranscriptReplay? = nil
        return cases.map { evaluate($0, engine: engine, replay: &replay) }
    }

    /// A transcript table's lines that are neither a snapshot nor a report, each a ``Problem`` by its line (its text
    /// not kept: a file named by mistake may hold secrets), wherever it stands: after the last expectation too, and
    /// before an expectation whose fields it did not change.
    /// - Parameter engine: The engine the transcript replays on.
    /// - Returns: One problem per such line, in file order; none for a table of commands.
    /// - Complexity: One replay of the transcript's *n* lines, O(*n*).
    package func unreadableLines(engine: LoginDecisionEngine) -> [Problem] {
        guard let first = cases.first, case .transcript(let lines, _) = first.input else { return [] }
        var transcript = Transcript(engine: engine)
        var found: [Problem] = []
        for (index, line) in lines.enumerated() {
            // The reason is not shown: it may quote the line's values (a flow, a number), and the line is not shown.
            guard case .malformed = transcript.replay(line) else { continue }
            found.append(Problem(
                file: first.file, line: index + 1, text: nil,
                message: "neither a snapshot nor a report (its text is not shown; 'onetap session' on the file says why)"))
        }
        return found
    }

    /// A transcript replayed as far as a case needed: the next case of the same file goes on from there.
    private struct TranscriptReplay {
        /// The transcript's lines (the table's own array: comparing it with a case's is O(1) when they are one).
        let lines: [String]
        var transcript: Transcript
        var last: Transcript.Record = .skipped
        var lineNumber = 0
        var position = 0

        /// Replays the lines up to `count`.
        mutating func advance(through count: Int) {
            while position < count {
                let record = transcript.replay(lines[position])
                position += 1
                if case .skipped = record { continue }
                last = record
                lineNumber = position
            }
        }
    }

    private static func evaluate(_ testCase: Case, engine: LoginDecisionEngine, replay: inout TranscriptReplay?) -> [String] {
        var actual: [String: String] = [:]
        switch testCase.input {
        case .route(let arguments):
            let snapshot: DeviceSnapshot
            do {
                snapshot = try arguments.snapshot()
            } catch {
                return [error.description]
            }
            let plan = engine.plan(for: snapshot)
            actual = [
                "carrier": plan.carrier.rawValue, "flows": plan.flows.map(\.rawValue).joined(separator: ","),
                "reason": plan.reason.rawValue, "evidence": plan.evidence.rawValue, "condition": plan.condition.description,
            ]
        case .outcome(let flow, let code):
            let outcome = engine.outcome(for: flow, code: code)
            actual = ["action": outcome.action.rawValue, "default": outcome.isDefault ? "true" : "false"]
        case .simulate(let options):
            let session: LoginSession
            do {
                session = try SimulateCommand.simulate(options, engine: engine)
            } catch {
                return [error.message]
            }
            actual = [
                "outcome": session.ending?.rawValue ?? "running", "flow": session.flow?.rawValue ?? "none",
                "steps": session.trace.map { "\($0.flow):\($0.result.code):\($0.action)" }.joined(separator: ","),
                "alerts": session.alerts.isEmpty ? "none" : session.alerts.map { "\($0.flow):\($0.code)" }.joined(separator: ","),
            ]
        case .transcript(let lines, let count):
            if let current = replay, current.position <= count, current.lines == lines {
                // The same transcript, further on.
            } else {
                replay = TranscriptReplay(lines: lines, transcript: Transcript(engine: engine))
            }
            replay!.advance(through: min(count, lines.count))
            guard let current = replay, let object = Transcript.json(current.last, line: current.lineNumber), let parsed = fields(object.json) else {
                return ["no line before the expectation makes a record"]
            }
            actual = parsed
        }
        return testCase.expectations.compactMap { key, value in
            let got = actual[key] ?? "(none)"
            return got == value ? nil : "\(key): expected \(value), got \(got)"
        }
    }
}

extension StringProtocol {
    /// The text without leading and trailing characters from `set`.
    func trimmingCharacters(in set: String) -> String {
        let scalars = Set(set.unicodeScalars)
        let view = String(self).unicodeScalars
        guard let first = view.firstIndex(where: { !scalars.contains($0) }) else { return "" }
        let last = view.lastIndex(where: { !scalars.contains($0) })!
        return String(view[first...last])
    }
}
