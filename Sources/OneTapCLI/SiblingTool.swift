import Foundation
import OneTap
import OneTapChildProcess

/// A tool built beside `onetap` that a command runs to keep a C library out of `onetap` itself: `onetap-db`
/// (libpq, for `onetap db`) and `onetap-gateway` (libcrypto, for `onetap gateway`). The command checks its
/// arguments first (so a usage error reads as every other command's), then runs the tool with them in one form,
/// a secret on the tool's standard input (never on its command line, which every user of the machine can read),
/// and passes on the tool's output, errors and exit status.
struct SiblingTool {
    /// The tool's file name: `onetap-db`.
    let name: String
    /// The command that runs it: `db`.
    let command: String
    /// Where it is found: beside the running executable (the test runner's folder in tests, which holds it too).
    var directory: URL = BuildProducts.directory

    /// Runs the tool to its end and passes on what it printed, its output as it comes.
    /// - Parameters:
    ///   - arguments: Its arguments (never a secret).
    ///   - input: What it reads on standard input (its secrets, one line each).
    ///   - output: Where its standard output goes.
    ///   - io: Where its standard error goes, line by line.
    ///   - redactingOutput: Applied to each line of the tool's output before it is written: a vendor that echoes a
    ///     secret back shows none (`gateway`). Nothing by default: a tool whose output never holds its secret (`db`: a
    ///     schema's version, the exchanges to reconcile) keeps it exact, so a short password never hides a schema's name.
    ///   - redacting: Applied to each error line before it is written (a URL's password, a token).
    /// - Returns: The tool's exit status; 74 (``ExitCode/ioError``) when the output could not be written.
    /// - Throws: ``CommandFailure``: 69 when the tool is missing or cannot start; 129, 130 or 143 (128 plus the signal)
    ///   when `SIGHUP`, `SIGINT` or `SIGTERM` stopped it, passed on from `onetap` or sent to it; 70 when another signal
    ///   stopped it (a crash, never the service's refusal).
    func run(
        _ arguments: [String], input: Data, output: OutputBuffer, io: any CommandIO, redactingOutput: (String) -> String = { $0 },
        redacting: (String) -> String
    ) async throws(CommandFailure) -> ExitCode {
        guard let tool = location() else {
            throw CommandFailure(
                message: "onetap \(command) runs \(name), which is not beside this onetap; build both with 'swift build' "
                    + "(or 'swift build --product \(name)')",
                code: .unavailable)
        }
        // Its output is passed on line by line as it comes, never gathered whole: a listing of any length (`db
        // reconcile` over millions of rows) goes through in the memory of its longest line.
        output.flush()
        var pending: [UInt8] = []
        let finished: ChildProcess.Outcome
        do {
            // Stopped (`kill`, `timeout`, a supervisor, a terminal's hang-up), `onetap` passes the signal on to the tool
            // and answers as it ends, so no tool runs on with no one reading it (the process's own run only: a test
            // running the CLI in its process keeps its signals).
            finished = try await ChildProcess.run(tool.path, arguments, input: input, forwarding: io.passesSignalsOn ? Self.passedOn : []) { chunk in
                var start = chunk.startIndex
                for index in chunk.indices where chunk[index] == UInt8(ascii: "\n") {
                    pending.append(contentsOf: chunk[start..<index])
                    output.line(redactingOutput(String(decoding: pending, as: UTF8.self)))
                    pending.removeAll(keepingCapacity: true)
                    start = index + 1
                }
                pending.append(contentsOf: chunk[start...])
                output.flush()
                return !output.failed   // a closed output (`| head`) stops the tool: nothing would read the rest
            }
        } catch {
            throw CommandFailure(message: error.description, code: .unavailable)
        }
        if !pending.isEmpty { output.line(redactingOutput(String(decoding: pending, as: UTF8.self))) }
        output.flush()
        let errors = String(decoding: finished.errors, as: UTF8.self)
        for line in errors.split(separator: "\n") {
            io.writeError(redacting(String(line)))
        }
        let termination = finished.termination
        // A closed output stops the tool (`SIGTERM`, then `SIGKILL` if it ignores that): no crash; the entry point says the
        // output could not be written.
        if output.failed, !termination.signalled || (Self.passedOn + [SIGKILL]).contains(termination.status) { return .ioError }
        guard termination.signalled else { return ExitCode(rawValue: termination.status) }
        guard Self.passedOn.contains(termination.status) else {
            throw CommandFailure(message: "\(name) was stopped by signal \(termination.status)", code: .software)
        }
        // Stopped as asked (by `onetap`'s signal passed on, or by one sent to the tool): the status a shell gives a
        // program a signal ended, never the crash's 70; `onetap` itself then ends by the signal it passed on
        // (``OneTapCommandLine/main()``), as a shell expects of a program it sent `SIGINT`.
        throw CommandFailure(message: "\(name) was stopped by signal \(termination.status)", code: ExitCode(rawValue: termination.shellStatus))
    }

    /// The signals `onetap` passes on to the tool it runs: `SIGTERM`, `SIGINT`, `SIGHUP`.
    static let passedOn: [Int32] = [SIGTERM, SIGINT, SIGHUP]

    /// The tool in ``directory``, if it is there and can run.
    private func location() -> URL? {
        let tool = directory.appendingPathComponent(name)
        return FileManager.default.isExecutableFile(atPath: tool.path) ? tool : nil
    }

    /// One line of standard input, for `--url -`, `--token -` and `--field NAME=-`: read up to its line break (a
    /// terminal or a pipe left open need not end), at most 64 KiB, trimmed.
    /// - Parameter io: The standard streams.
    /// - Returns: The line, or nil when standard input held none.
    /// - Throws: ``CommandFailure`` (64) for a line longer than 64 KiB, which no URL, token or code is: its rest would
    ///   be read as the next line, or one that is not UTF-8 (repaired, it would be another secret than the one given);
    ///   (66) when standard input cannot be read (closed), as every command that reads it says.
    static func readLine(_ io: any CommandIO) throws(CommandFailure) -> String? {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let count = withUnsafeMutableBytes(of: &byte) { io.readInput(into: $0) }
            guard count >= 0 else { throw CommandFailure(message: "cannot read standard input", code: .noInput) }
            guard count == 1, byte != UInt8(ascii: "\n") else { break }
            guard bytes.count < 65_536 else {
                throw CommandFailure(message: "a line of standard input is longer than 64 KiB, which no URL, token or code is", code: .usage)
            }
            bytes.append(byte)
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw CommandFailure(
                message: "a line of standard input holds bytes that are not UTF-8, which no URL, token or code does (it is not shown)",
                code: .usage)
        }
        let line = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return line.isEmpty ? nil : line
    }
}
