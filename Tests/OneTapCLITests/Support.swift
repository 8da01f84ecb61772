#if canImport(Glibc)
import Glibc
#endif
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
    ///
    /// Spawned with `posix_spawn`, not Foundation's `Process`: Swift 6.3.1's `Process.run()` over-reads the
    /// `/proc/self/fd` entries it lists (a 256-byte copy of each `d_name`) and crashes the test process now and
    /// then when an entry sits at the end of a mapped page (swift-corelibs-foundation pull request 5472, fixed
    /// after 6.3.1); two fresh-clone CI runs crashed so, in this function. The child gets the three pipes and no
    /// other descriptor (`posix_spawn_file_actions_addclosefrom_np`).
    static func run(_ arguments: [String], stdin: [UInt8] = [], environment: [String: String]? = nil, executable: String = "onetap") async throws -> Run {
        let path = directory.appendingPathComponent(executable).path
        // A command may exit without reading its input (a usage error, keys it cannot read): writing to
        // its closed pipe must be an error of the write, not a SIGPIPE that kills the test process.
        signal(SIGPIPE, SIG_IGN)
        var input: [Int32] = [-1, -1], output: [Int32] = [-1, -1], error: [Int32] = [-1, -1]
        guard pipe(&input) == 0, pipe(&output) == 0, pipe(&error) == 0 else {
            throw SpawnError(description: "pipe failed: errno \(errno)")
        }
        // Close-on-exec, so no other child inherits them (every child OneTap's tests spawn closes the rest too).
        for end in input + output + error { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input[0], 0)
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)
        posix_spawn_file_actions_adddup2(&actions, error[1], 2)
        // glibc 2.34's posix_spawn_file_actions_addclosefrom_np (Swift's Glibc module does not declare it): the
        // child keeps its three pipes and nothing else of this process.
        if let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") {
            typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
            _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
        }
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let envp: [UnsafeMutablePointer<CChar>?]? = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { for pointer in envp ?? [] { free(pointer) } }
        var pid: pid_t = 0
        let spawned = envp.map { posix_spawn(&pid, path, &actions, nil, argv, $0) } ?? posix_spawn(&pid, path, &actions, nil, argv, environ)
        for end in [input[0], output[1], error[1]] { close(end) }
        guard spawned == 0 else {
            for end in [input[1], output[0], error[0]] { close(end) }
            throw SpawnError(description: "posix_spawn \(path) failed: errno \(spawned)")
        }
        // Write stdin and drain both outputs on threads of their own, so large data cannot deadlock the
        // pipes; wait for the child on one too. Not on `DispatchQueue.global()`: on Linux its few threads (as
        // many as the cores) are Swift's cooperative pool too.
        let writing = FileHandle(fileDescriptor: input[1], closeOnDealloc: true)
        let reading = FileHandle(fileDescriptor: output[0], closeOnDealloc: true)
        let readingErrors = FileHandle(fileDescriptor: error[0], closeOnDealloc: true)
        let errorData = LockedBox<Data>(Data()), outputData = LockedBox<Data>(Data()), status = LockedBox<Int32>(-1)
        let writer = OwnThread {
            do {
                try writing.write(contentsOf: Data(stdin))
            } catch {
                // The command closed its input without reading it all: what it printed is what is checked.
            }
            do { try writing.close() } catch { /* closed already: nothing is lost */ }
        }
        let errorReader = OwnThread { errorData.set(readingErrors.readDataToEndOfFile()) }
        let outputReader = OwnThread { outputData.set(reading.readDataToEndOfFile()) }
        let child = pid
        let waiter = OwnThread {
            var raw: Int32 = 0
            while waitpid(child, &raw, 0) == -1 && errno == EINTR {}
            // As Foundation's terminationStatus: the exit code, or the signal that ended it.
            status.set((raw & 0x7f) == 0 ? (raw >> 8) & 0xff : raw & 0x7f)
        }
        for thread in [writer, errorReader, outputReader, waiter] { try await thread.ended() }
        return Run(
            status: status.get(), stdout: String(decoding: outputData.get(), as: UTF8.self),
            stderr: String(decoding: errorData.get(), as: UTF8.self), stdoutBytes: Array(outputData.get()))
    }

    /// Why a run could not start.
    struct SpawnError: Error, CustomStringConvertible {
        let description: String
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
