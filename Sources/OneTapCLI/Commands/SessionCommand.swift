import OneTap

/// `onetap session FILE…|-`: replays login transcripts through the server's session machine.
package struct SessionOptions: Hashable, Sendable {
    /// The transcript files (empty when reading standard input).
    package var files: [String]
    /// Whether `-` asked to read one transcript from standard input.
    package var readsStandardInput: Bool
    /// Whether to print NDJSON.
    package var json: Bool
    /// Replacement tables.
    package var tables: TableOptions

    static let specs: [OptionSpec] = [.flag("json")] + TableOptions.specs

    init(_ parsed: ParsedArguments) throws(UsageError) {
        let stdin = parsed.operands.contains("-")
        if stdin && parsed.operands.count > 1 {
            throw UsageError("- reads one transcript from standard input and must be the only operand", command: "session")
        }
        guard !parsed.operands.isEmpty else {
            throw UsageError("session needs transcript files, or - to read one from standard input", command: "session")
        }
        files = stdin ? [] : parsed.operands
        readsStandardInput = stdin
        json = parsed.has("json")
        tables = TableOptions(parsed)
    }
}

enum SessionCommand {
    /// Replays every transcript; each line's record goes to standard output.
    /// - Returns: 0 when every transcript ended with the login over and nothing was rejected; 1 when one
    ///   did not end or had a report rejected; 65 when a line was malformed (it is reported and skipped).
    static func run(_ options: SessionOptions, output: OutputBuffer, io: any CommandIO) throws(CommandFailure) -> ExitCode {
        let engine = try TableLoader(options: options.tables).engine()
        var worst = ExitCode.success
        func finish(_ transcript: Transcript, name: String) {
            if transcript.malformed {
                worst = .dataError
            } else if (transcript.rejected || !transcript.ended) && worst == .success {
                worst = .checkFailed
            }
            if !transcript.ended, !options.json {
                output.line("\(name): the login did not end (\(transcript.session.map { "waiting: \($0.next)" } ?? "no snapshot"))")
            }
        }
        func emit(_ record: Transcript.Record, line: Int, file: String?) {
            if options.json {
                guard var object = Transcript.json(record, line: line) else { return }
                if let file { object.add("file", file) }
                output.line(object.json)
            } else if let text = Transcript.text(record, line: line) {
                output.line((file.map { "\($0): " } ?? "") + text)
            }
        }
        if options.readsStandardInput {
            var transcript = Transcript(engine: engine)
            let ending = LineReader(io: io).forEachLine { bytes, number, cut in
                let record = cut ? .malformed("line \(number) is too long to be a report; it was skipped") : transcript.replay(String(decoding: bytes, as: UTF8.self))
                emit(record, line: number, file: nil)
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
            var transcript = Transcript(engine: engine)
            for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                emit(transcript.replay(String(line)), line: index + 1, file: options.files.count > 1 ? file : nil)
            }
            finish(transcript, name: file)
        }
        return worst
    }
}
