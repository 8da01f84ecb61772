import OneTap
import OneTapSupport

/// `onetap session FILE…|-`: replays login transcripts through the server's session machine.
package struct SessionOptions: Hashable, Sendable {
    /// The transcript files (empty when reading standard input).
    package var files: [String]
    /// Whether `-` asked to read one transcript from standard input.
    package var readsStandardInput: Bool
    /// Whether to print the logins' events (the event schema, `v` 2) instead of a record per line.
    package var events: Bool
    /// `--json` (NDJSON) and the tables.
    package var common: CommonOptions
}

/// `onetap session FILE…|-`: a login transcript's lines through the session machine, one record (or the
/// logins' events) each.
enum SessionCommand: CommandDescription {
    static let name = "session"
    static let summary = "replay login transcripts through the server's session machine"
    static let help = """
        USAGE: onetap session FILE... [--json | --events] [--data DIR] [--policy FILE]
               onetap session - [--json | --events]   (one transcript on standard input)

        Replays login transcripts (NDJSON) through the session machine the auth server runs,
        exchanges included. The first line is the device snapshot (as route - reads it); every
        other line is a report: {"flow":F,"code":C} (with token, uniqueId, refreshToken,
        expiresIn), {"flow":F,"timeout":true}, {"flow":F,"fault":"…"}, {"flow":F,"switch":true},
        {"flow":F,"cancel":true}, {"flow":"sms","verified":true}, {"exchange":CODE},
        {"exchange":"timeout"|"fault"|"token-expired"|"replayed"}. Any line may carry "at"
        (ISO 8601) and a report "version" (checked against the session's).

        Prints, per line, what the app does next, where the login is (its flow and attempt, or its
        ending), why, and the session's version; or why the report was rejected. JSON fields: line,
        next, flow, attempt, ending, reason, version; a rejected report: line, rejected, reason; a
        malformed line: line, error; and file, when several files are read.

        --events prints the logins' events instead, one per line in the event schema (v 2, what
        onetap stats reads), with fixed session ids so the same transcripts give the same
        events; what is not an event (an error, a rejection) goes to standard error.

        EXIT STATUS: 0 every transcript ended its login; 1 one did not end or had a report
        rejected; 65 a line was malformed (reported, and the replay goes on); 66 a file cannot
        be read.

        EXAMPLE: onetap session Tests/OneTapCLITests/DecisionTables/mobile-exchange.transcript
        """
    static let options: [OptionSpec] = [.flag("json"), .flag("events")] + TableOptions.specs

    static func parse(_ arguments: ParsedArguments) throws(UsageError) -> SessionOptions {
        let stdin = arguments.operands.contains("-")
        if stdin && arguments.operands.count > 1 {
            throw UsageError("- reads one transcript from standard input and must be the only operand", command: name)
        }
        guard !arguments.operands.isEmpty else {
            throw UsageError("session needs transcript files, or - to read one from standard input", command: name)
        }
        let common = CommonOptions(arguments)
        let events = arguments.has("events")
        if common.json && events {
            throw UsageError("--events prints the logins' events as NDJSON already; give --json or --events, not both", command: name)
        }
        return SessionOptions(
            files: stdin ? [] : arguments.operands, readsStandardInput: stdin, events: events, common: common)
    }

    /// Replays every transcript; each line's record goes to standard output.
    /// - Returns: 0 when every transcript ended with the login over and nothing was rejected; 1 when one
    ///   did not end or had a report rejected; 65 when a line was malformed (it is reported and skipped).
    ///   With `--events` the logins' events go to standard output, one line each in the event schema,
    ///   and what is not an event (a malformed line, a rejected report, a login that did not end) goes
    ///   to standard error, so the output is a clean event stream.
    static func run(_ options: SessionOptions, output: OutputBuffer, io: any CommandIO) throws(CommandFailure) -> ExitCode {
        let engine = try TableLoader(options: options.common.tables).engine()
        var worst = ExitCode.success
        // Fixed session ids, one per transcript in order, so the same transcripts make the same events.
        var ids = SplitMix64(seed: 0x0E7A_2026)
        func finish(_ transcript: Transcript, name: String) {
            if transcript.malformed {
                worst = .dataError
            } else if (transcript.rejected || !transcript.ended) && worst == .success {
                worst = .checkFailed
            }
            if !transcript.ended, !options.common.json {
                let message = "\(name): the login did not end (\(transcript.session.map { "waiting: \($0.next)" } ?? "no snapshot"))"
                if options.events { io.writeError("onetap: \(message)") } else { output.line(message) }
            }
        }
        func emit(_ record: Transcript.Record, line: Int, file: String?) {
            if options.events {
                switch record {
                case .transition(let transition, let at):
                    for event in transition.events {
                        output.append(StandardErrorEventSink.line(OneTapEvent(at: at, .login(event, transition.context))))
                    }
                case .skipped:
                    break
                case .malformed, .rejected:
                    if let text = Transcript.text(record, line: line) { io.writeError("onetap: \(file ?? "standard input"): \(text)") }
                }
            } else if options.common.json {
                guard var object = Transcript.json(record, line: line) else { return }
                if let file { object.add("file", file) }
                output.line(object.json)
            } else if let text = Transcript.text(record, line: line) {
                output.line((file.map { "\($0): " } ?? "") + text)
            }
        }
        if options.readsStandardInput {
            var transcript = Transcript(engine: engine, sessionID: options.events ? LoginSessionID.random(using: &ids) : nil)
            let ending = LineReader(io: io).forEachLine { bytes, number, cut in
                emit(transcript.replay(bytes: bytes, number: number, cut: cut), line: number, file: nil)
                return !output.failed
            }
            if let failure = ending.failure(output: output, io: io) { return failure }
            finish(transcript, name: "standard input")
            return worst
        }
        for file in options.files {
            let text: String
            do {
                text = try TableFile.read(file)
            } catch {
                throw CommandFailure(error)
            }
            var transcript = Transcript(engine: engine, sessionID: options.events ? LoginSessionID.random(using: &ids) : nil)
            for (number, line) in DecisionTable.lines(of: text) {
                emit(transcript.replay(line), line: number, file: options.files.count > 1 || options.events ? file : nil)
            }
            finish(transcript, name: file)
        }
        return worst
    }
}
