import Foundation
import OneTap
import OneTapCLI
import OneTapChildProcess
import Testing

/// What one run of the `onetap` binary did.
struct Run: Sendable {
    let status: Int32
    let stdout: String
    let stderr: String
    let stdoutBytes: [UInt8]

    var lines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init) }
}

enum Binary {
    /// The build's products directory.
    static let directory: URL = BuildProducts.directory

    /// The built `onetap`.
    static let url = directory.appendingPathComponent("onetap")

    /// Runs an executable of the build with arguments and standard input, and waits for it without holding a
    /// thread of Swift's cooperative pool (a hundred of these run side by side with every other suite).
    static func run(_ arguments: [String], stdin: [UInt8] = [], environment: [String: String]? = nil, executable: String = "onetap") async throws -> Run {
        let outcome = try await ChildProcess.run(BuildProducts.path(executable), arguments, input: Data(stdin), environment: environment)
        return Run(
            status: outcome.termination.status, stdout: String(decoding: outcome.output, as: UTF8.self),
            stderr: String(decoding: outcome.errors, as: UTF8.self), stdoutBytes: Array(outcome.output))
    }
}

/// Where the package's files are.
enum Package {
    static let root: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }

    /// A fresh temporary directory, removed by the caller.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("onetap-cli-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

/// Runs the CLI in-process on captured streams.
func runInProcess(
    _ arguments: [String], stdin: [UInt8] = [], environment: [String: String] = [:], clock: any WallClock = SystemClock()
) async -> (ExitCode, CapturedIO) {
    let io = CapturedIO(input: stdin, environment: environment, clock: clock)
    let code = await OneTapCommandLine.run(arguments, io: io)
    return (code, io)
}
