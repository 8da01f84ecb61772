import Foundation
import OneTapCLI
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
    /// The built `onetap`, beside the test bundle in the build directory.
    static let url: URL = {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var directory = executable.deletingLastPathComponent()
        // On macOS the test bundle is a directory inside the build directory.
        while directory.path != "/", !FileManager.default.fileExists(atPath: directory.appendingPathComponent("onetap").path) {
            directory = directory.deletingLastPathComponent()
        }
        return directory.appendingPathComponent("onetap")
    }()

    /// Runs the binary with arguments and standard input; waits for it.
    static func run(_ arguments: [String], stdin: [UInt8] = [], environment: [String: String]? = nil) throws -> Run {
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        if let environment { process.environment = environment }
        let input = Pipe(), output = Pipe(), error = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = error
        try process.run()
        // Write stdin and drain both outputs concurrently so large data cannot deadlock the pipes.
        let writer = Thread {
            input.fileHandleForWriting.write(Data(stdin))
            try? input.fileHandleForWriting.close()
        }
        writer.start()
        nonisolated(unsafe) var errorData = Data()
        let errorReader = Thread { errorData = error.fileHandleForReading.readDataToEndOfFile() }
        errorReader.start()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while errorReader.isExecuting || !errorReader.isFinished { usleep(1000) }
        return Run(
            status: process.terminationStatus, stdout: String(decoding: outputData, as: UTF8.self),
            stderr: String(decoding: errorData, as: UTF8.self), stdoutBytes: Array(outputData))
    }
}

/// Where the package's files are.
enum Package {
    static let root: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }
}

/// Runs the CLI in-process on captured streams.
func runInProcess(_ arguments: [String], stdin: [UInt8] = []) async -> (ExitCode, CapturedIO) {
    let io = CapturedIO(input: stdin)
    let code = await OneTapCommandLine.run(arguments, io: io)
    return (code, io)
}
