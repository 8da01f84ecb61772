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
    /// The build's products directory: found through `Bundle`, on macOS (the test bundle's folder) and
    /// Linux (the test executable's folder) alike.
    static let directory: URL = {
        #if os(macOS)
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            return bundle.bundleURL.deletingLastPathComponent()
        }
        return Bundle.main.bundleURL.deletingLastPathComponent()
        #else
        return Bundle.main.bundleURL
        #endif
    }()

    /// The built `onetap`.
    static let url = directory.appendingPathComponent("onetap")

    /// Runs an executable of the build with arguments and standard input; waits for it without holding a
    /// thread of Swift's cooperative pool (a hundred of these run side by side with every other suite).
    static func run(_ arguments: [String], stdin: [UInt8] = [], environment: [String: String]? = nil, executable: String = "onetap") async throws -> Run {
        let process = Process()
        process.executableURL = directory.appendingPathComponent(executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let input = Pipe(), output = Pipe(), error = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = error
        // A command may exit without reading its input (a usage error, keys it cannot read): writing to
        // its closed pipe must be an error of the write, not a SIGPIPE that kills the test process.
        signal(SIGPIPE, SIG_IGN)
        try process.run()
        // Write stdin and drain both outputs on threads of their own, so large data cannot deadlock the
        // pipes. Not on `DispatchQueue.global()`: on Linux its few threads (as many as the cores) are
        // Swift's cooperative pool too.
        let errorData = LockedBox<Data>(Data()), outputData = LockedBox<Data>(Data())
        let writer = OwnThread {
            do {
                try input.fileHandleForWriting.write(contentsOf: Data(stdin))
            } catch {
                // The command closed its input without reading it all: what it printed is what is checked.
            }
            do { try input.fileHandleForWriting.close() } catch { /* closed already: nothing is lost */ }
        }
        let errorReader = OwnThread { errorData.set(error.fileHandleForReading.readDataToEndOfFile()) }
        let outputReader = OwnThread { outputData.set(output.fileHandleForReading.readDataToEndOfFile()) }
        while process.isRunning { try await Task.sleep(for: .milliseconds(2)) }
        for thread in [writer, errorReader, outputReader] { try await thread.ended() }
        return Run(
            status: process.terminationStatus, stdout: String(decoding: outputData.get(), as: UTF8.self),
            stderr: String(decoding: errorData.get(), as: UTF8.self), stdoutBytes: Array(outputData.get()))
    }
}

/// Work on a thread of its own, awaited with ``ended()``.
final class OwnThread: Sendable {
    private let done = LockedBox<Bool>(false)

    init(_ body: @escaping @Sendable () -> Void) {
        let done = self.done
        Thread {
            body()
            done.set(true)
        }.start()
    }

    /// Returns once the work has ended, without holding a thread meanwhile.
    func ended() async throws {
        while !done.get() { try await Task.sleep(for: .milliseconds(1)) }
    }
}

/// A value handed between threads under a lock.
final class LockedBox<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func set(_ newValue: Value) {
        lock.lock()
        value = newValue
        lock.unlock()
    }

    func get() -> Value {
        lock.lock()
        defer { lock.unlock() }
        return value
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
func runInProcess(_ arguments: [String], stdin: [UInt8] = [], environment: [String: String] = [:]) async -> (ExitCode, CapturedIO) {
    let io = CapturedIO(input: stdin, environment: environment)
    let code = await OneTapCommandLine.run(arguments, io: io)
    return (code, io)
}
