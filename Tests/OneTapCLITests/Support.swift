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

    /// A fresh temporary directory, removed by the caller, and in any case when the test process exits (it lies below
    /// ``TemporaryRoot``): a test that stops at a thrown error, or a helper that hands a file out, leaves nothing behind.
    static func temporaryDirectory() throws -> URL {
        TemporaryRoot.removedAtExit()
        let url = URL(fileURLWithPath: TemporaryRoot.path).appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

/// The one folder of this test process's temporary directories, removed when the process exits.
enum TemporaryRoot {
    /// Its path.
    static let path = FileManager.default.temporaryDirectory.appendingPathComponent("onetap-cli-tests-\(UUID().uuidString)").path
    private static let registered: Void = { atexit { TemporaryRoot.remove() } }()

    /// Has the folder removed at exit (once, whatever the number of calls).
    static func removedAtExit() { registered }

    /// Removes the folder; a failure is said on standard error (no test runs any more to record it).
    static func remove() {
        guard FileManager.default.fileExists(atPath: path) else { return }
        do { try FileManager.default.removeItem(atPath: path) } catch {
            FileHandle.standardError.write(Data("OneTapCLITests: \(path) was not removed: \(error)\n".utf8))
        }
    }
}

/// A copy of the built `onetap` in a folder of its own, beside `tools` (shell scripts standing in for `onetap-db` or
/// `onetap-gateway`, by file name): what the command finds beside itself. The folder is removed on every path, since it
/// holds a copy of the binary.
/// - Parameters:
///   - tools: Each stand-in's file name and its script (`#!/bin/sh` and on).
///   - body: Gets the copy of `onetap` and the folder.
/// - Returns: What `body` returns.
/// - Throws: What the copy, a write or `body` throws.
func withOnetapBeside<T>(tools: [String: String] = [:], _ body: (_ onetap: URL, _ directory: URL) async throws -> T) async throws -> T {
    let directory = try Package.temporaryDirectory()  // removed at the process's exit too, if a crash skips the defer
    defer { removeTemporary(directory) }
    let onetap = directory.appendingPathComponent("onetap")
    try FileManager.default.copyItem(at: Binary.directory.appendingPathComponent("onetap"), to: onetap)
    for (name, script) in tools {
        let tool = directory.appendingPathComponent(name)
        try Data(script.utf8).write(to: tool)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: tool.path)
    }
    return try await body(onetap, directory)
}

/// A stand-in `onetap-db` that records what it was handed: its arguments in `argv` and its standard input in `stdin`,
/// beside itself, then prints `recorded`.
let recordingTool = "#!/bin/sh\nprintf '%s ' \"$@\" > \"$(dirname \"$0\")/argv\"\ncat > \"$(dirname \"$0\")/stdin\"\necho recorded\n"

/// This process's environment without `ONETAP_POSTGRES_URL`, with `extra` on top: what a child `onetap` is given.
/// - Parameter extra: The variables to add or replace.
/// - Returns: The environment.
func childEnvironment(adding extra: [String: String]) -> [String: String] {
    ProcessInfo.processInfo.environment.filter { $0.key != "ONETAP_POSTGRES_URL" }.merging(extra) { $1 }
}

/// Runs the CLI in-process on captured streams.
func runInProcess(
    _ arguments: [String], stdin: [UInt8] = [], environment: [String: String] = [:], clock: any WallClock = SystemClock()
) async -> (ExitCode, CapturedIO) {
    let io = CapturedIO(input: stdin, environment: environment, clock: clock)
    let code = await OneTapCommandLine.run(arguments, io: io)
    return (code, io)
}

/// Removes a test's temporary file or directory, if it is there; a removal that fails is recorded as an issue (a
/// test must not leave files behind unseen).
/// - Parameter path: The file's or directory's path.
func removeTemporary(_ path: String) {
    guard FileManager.default.fileExists(atPath: path) else { return }
    do { try FileManager.default.removeItem(atPath: path) } catch { Issue.record("\(path) was not removed: \(error)") }
}

/// Removes a test's temporary file or directory, as ``removeTemporary(_:)-(String)`` does.
/// - Parameter url: Its file URL.
func removeTemporary(_ url: URL) { removeTemporary(url.path) }
