import Dispatch
import Foundation
import OneTap

/// `onetap db …` runs in `onetap-db`, the tool built beside `onetap`: it links libpq, with the TLS,
/// Kerberos and LDAP libraries libpq brings, which would otherwise load at every start of `onetap`
/// (about 7 ms on the project's machines, more than the rest of a cold start). This side checks the
/// arguments (so a usage error reads as every other command's), runs the tool with them in one form,
/// and passes on its output, errors and exit status.
enum DBCommand {
    /// The tool's file name, beside the running executable.
    static let toolName = "onetap-db"

    static func run(_ options: DBOptions, output: OutputBuffer, io: any CommandIO) async throws(CommandFailure) -> ExitCode {
        guard let tool = location() else {
            throw CommandFailure(
                message: "onetap db runs \(toolName), which is not beside this onetap; build both with 'swift build' "
                    + "(or 'swift build --product \(toolName)')",
                code: .unavailable)
        }
        var arguments = [options.action.rawValue, "--url", options.url]
        if let schema = options.schema { arguments += ["--schema", schema] }
        if options.json { arguments.append("--json") }
        let finished: Finished
        do {
            finished = try await launch(tool, arguments)
        } catch {
            throw CommandFailure(message: "cannot run \(tool.path): \(error.localizedDescription)", code: .unavailable)
        }
        let text = String(decoding: finished.output, as: UTF8.self)
        if !text.isEmpty {
            for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast(text.hasSuffix("\n") ? 1 : 0) {
                output.line(String(line))
            }
        }
        output.flush()
        let errors = String(decoding: finished.errors, as: UTF8.self)
        for line in errors.split(separator: "\n") {
            io.writeError(ConnectionPasswords.redacting(in: String(line), foundIn: [options.url]))
        }
        guard !finished.signalled else {
            throw CommandFailure(message: "\(toolName) was stopped by signal \(finished.status)", code: .failed)
        }
        return ExitCode(rawValue: finished.status)
    }

    /// The tool beside the running executable (the test runner's folder in tests, which holds it too).
    private static func location() -> URL? {
        guard let directory = Bundle.main.executableURL?.resolvingSymlinksInPath().deletingLastPathComponent() else { return nil }
        let tool = directory.appendingPathComponent(toolName)
        return FileManager.default.isExecutableFile(atPath: tool.path) ? tool : nil
    }

    private struct Finished: Sendable {
        let output: Data
        let errors: Data
        let status: Int32
        let signalled: Bool
    }

    /// Runs the tool to its end on a thread of its own (its pipes are read with blocking calls, off the
    /// cooperative pool).
    private static func launch(_ tool: URL, _ arguments: [String]) async throws -> Finished {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue(label: "onetap.db-tool").async {
                let process = Process()
                process.executableURL = tool
                process.arguments = arguments
                let output = Pipe()
                let errors = Pipe()
                process.standardOutput = output
                process.standardError = errors
                process.standardInput = FileHandle.nullDevice
                do {
                    try process.run()
                } catch {
                    continuation.resume(throwing: error)
                    return
                }
                let errorText = LockedValue(Data())
                let group = DispatchGroup()
                DispatchQueue(label: "onetap.db-tool.stderr").async(group: group) {
                    let data = errors.fileHandleForReading.readDataToEndOfFile()
                    errorText.withLock { $0 = data }
                }
                let data = output.fileHandleForReading.readDataToEndOfFile()
                group.wait()
                process.waitUntilExit()
                continuation.resume(returning: Finished(output: data, errors: errorText.withLock { $0 }, status: process.terminationStatus,
                    signalled: process.terminationReason == .uncaughtSignal))
            }
        }
    }
}
