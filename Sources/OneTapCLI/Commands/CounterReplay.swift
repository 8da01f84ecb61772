import Foundation
import OneTap

/// What one replay command's request lines say besides `at`, `ip`, `device` and `session`: the one
/// difference between the lines of `onetap sms -` and `onetap quota -`.
protocol CounterReplayForm {
    /// The required key naming what a line counts: `number` (a send to it) or `counts` (starts or exchanges).
    static var subject: StaticString { get }
    /// Whether a line may say `"captcha": true`.
    static var takesCaptcha: Bool { get }
    /// Whether a line may say `"returningOwner": true` (an SMS send's: its own lane on `number-lane` and `global-lane`); no by default.
    static var takesReturningOwner: Bool { get }
}

extension CounterReplayForm {
    /// A line has no returning owner, but for an SMS send's.
    static var takesReturningOwner: Bool { false }
}

/// `--json` (NDJSON) and the tables (`--data` DIR, `--policy` a replacement policy): what a counter
/// replay takes.
package struct CounterReplayOptions: Hashable, Sendable {
    /// The output format and the tables.
    package var common: CommonOptions
}

/// A command that replays request lines of standard input against rate counters (`onetap sms -`,
/// `onetap quota -`): its options and operands are one set, parsed once.
protocol CounterReplayCommand: CommandDescription, CounterReplayForm where Options == CounterReplayOptions {
    /// What its lines are, for usage errors (`"send requests (NDJSON)"`).
    static var lines: String { get }
}

extension CounterReplayCommand {
    /// `--json`, `--policy FILE`, `--data DIR`.
    static var options: [OptionSpec] { [.flag("json"), .value("policy"), .value("data")] }

    /// Reads `-` (standard input, the only operand) and the options.
    /// - Parameter arguments: The arguments.
    /// - Returns: The options.
    /// - Throws: ``UsageError`` without `-`, or with another operand.
    static func parse(_ arguments: ParsedArguments) throws(UsageError) -> CounterReplayOptions {
        guard arguments.operands == ["-"] else {
            throw UsageError(
                arguments.operands.isEmpty ? "\(name) needs -, to read \(lines) from standard input"
                    : "\(name) reads standard input: give - as the only operand, not \(quoted(arguments.operands.first { $0 != "-" } ?? "-"))",
                command: name)
        }
        return CounterReplayOptions(common: CommonOptions(arguments))
    }
}

/// One request line of a counter replay, every key checked (an unknown key is a mistake in the input,
/// not ignored).
struct CounterReplayLine<Form: CounterReplayForm>: JSONReadable {
    static var skipsByteOrderMark: Bool { true }
    /// The instant, as ISO 8601 text.
    var at: String
    /// The value of ``CounterReplayForm/subject``.
    var subject: String
    var ip: String?
    var device: String?
    var session: String?
    var captcha: Bool?
    /// Whether the sender's app session logged in with the number in the last 30 days.
    var returningOwner: Bool?

    init(reading reader: inout JSONReader) throws(JSONReadError) {
        var at: String?, subject: String?, ip: String??, device: String??, session: String??, captcha: Bool??, returningOwner: Bool??
        try reader.members { (key, reader) throws(JSONReadError) in
            switch key {
            case "at": try reader.member(&at, key)
            case Form.subject: try reader.member(&subject, key)
            case "ip": try reader.member(&ip, key)
            case "device": try reader.member(&device, key)
            case "session": try reader.member(&session, key)
            case "captcha" where Form.takesCaptcha: try reader.member(&captcha, key)
            case "returningOwner" where Form.takesReturningOwner: try reader.member(&returningOwner, key)
            default:
                let optional = (Form.takesCaptcha ? ", captcha" : "") + (Form.takesReturningOwner ? ", returningOwner" : "")
                throw reader.invalid("unknown key; a request has at, \(Form.subject), ip, device, session\(optional)")
            }
        }
        self.at = try reader.required(at, "at")
        self.subject = try reader.required(subject, Form.subject)
        self.ip = ip ?? nil
        self.device = device ?? nil
        self.session = session ?? nil
        self.captcha = captcha ?? nil
        self.returningOwner = returningOwner ?? nil
    }

    /// The line read from its text.
    /// - Throws: What is wrong with it (the key at fault named).
    static func read(_ text: String) throws(CounterReplay.Malformed) -> Self {
        do {
            return try Self(json: text)
        } catch {
            throw CounterReplay.Malformed(RouteCommand.describe(error))
        }
    }

    /// The instant.
    /// - Throws: What is wrong with `at`.
    func instant() throws(CounterReplay.Malformed) -> Date {
        do {
            return try Timestamp.parse(at)
        } catch {
            throw CounterReplay.Malformed("key 'at': \(error)")
        }
    }

    /// An optional key parsed.
    /// - Parameters:
    ///   - value: The key's text, nil when absent.
    ///   - name: The key, for the message.
    ///   - parse: Makes the value.
    /// - Throws: What is wrong with the key.
    func parsed<Value>(_ value: String?, _ name: String, _ parse: (String) throws(ParseError) -> Value) throws(CounterReplay.Malformed) -> Value? {
        do {
            return try value.map(parse)
        } catch {
            throw CounterReplay.Malformed("key '\(name)': \(error)")
        }
    }
}

/// The replay `onetap sms -` and `onetap quota -` share: each line of standard input read, decided in
/// order by the command and printed (one record per line, a malformed line as an error record and the
/// replay goes on), then a summary of how many lines came to each outcome.
enum CounterReplay {
    /// What is wrong with a line.
    struct Malformed: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }

    /// What one line came to: the index of its outcome in the replay's list, and its text.
    typealias Decided = (outcome: Int, text: String)

    /// Replays every line of standard input.
    /// - Parameters:
    ///   - outcomes: Each outcome's key in the JSON summary and its words in the text one, in order.
    ///   - json: Whether to print NDJSON.
    ///   - output: Where to print.
    ///   - io: Where to read.
    ///   - decide: Decides one line: adds its members to the record (after `line`) and says what it came
    ///     to, or throws what is wrong with it.
    /// - Returns: Standard input's failure, else 0 when every line was read (an over-limit request is an
    ///   answer, not an error); 65 when a line was malformed.
    static func run<Form: CounterReplayForm>(
        _ form: Form.Type, outcomes: [(key: String, words: String)], json: Bool, output: OutputBuffer, io: any CommandIO,
        _ decide: (CounterReplayLine<Form>, inout JSONObject) throws(Malformed) -> Decided
    ) -> ExitCode {
        var tally = Array(repeating: 0, count: outcomes.count)
        var malformed = 0
        let ending = LineReader(io: io).forEachLine { bytes, number, cut in
            let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: " \t\r")
            if text.isEmpty || text.hasPrefix("#") { return true }
            var object = JSONObject()
            object.add("line", Int64(number))
            do throws(Malformed) {
                guard !cut else { throw Malformed("the line is too long to be a request; it was skipped") }
                let decided = try decide(try CounterReplayLine<Form>.read(text), &object)
                tally[decided.outcome] += 1
                output.line(json ? object.json : "line \(number): \(decided.text)")
            } catch let problem {
                malformed += 1
                var object = JSONObject()
                object.add("line", Int64(number))
                object.add("error", problem.message)
                output.line(json ? object.json : "line \(number): error: \(problem.message)")
            }
            return !output.failed
        }
        if let failure = ending.failure(output: output, io: io) { return failure }
        let requests = tally.reduce(0, +)
        if json {
            var object = JSONObject()
            object.add("summary", true)
            object.add("requests", Int64(requests))
            for (outcome, count) in zip(outcomes, tally) { object.add(outcome.key, Int64(count)) }
            object.add("malformed", Int64(malformed))
            output.line(object.json)
        } else {
            output.line("\(requests) request\(requests == 1 ? "" : "s"): " + zip(outcomes, tally).map { "\($1) \($0.words)" }.joined(separator: ", ")
                + (malformed > 0 ? "; \(malformed) malformed line\(malformed == 1 ? "" : "s")" : ""))
        }
        return malformed > 0 ? .dataError : .success
    }
}
