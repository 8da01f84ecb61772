#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import OneTap
import OneTapSupport

/// Where a command reads its input and writes its output: the process's standard streams, or memory in
/// tests. A command runs on one task; an instance is not shared between tasks.
package protocol CommandIO: AnyObject {
    /// Writes bytes to standard output (buffered by the caller).
    /// - Parameter bytes: The bytes.
    /// - Returns: False when the write failed (a closed pipe, a full disk).
    func writeOutput(_ bytes: UnsafeRawBufferPointer) -> Bool

    /// Writes one line to standard error.
    /// - Parameter line: The line, without its line break.
    func writeError(_ line: String)

    /// Reads from standard input.
    /// - Parameter buffer: Where to put the bytes.
    /// - Returns: The count read, 0 at end of input, or -1 on a read error.
    func readInput(into buffer: UnsafeMutableRawBufferPointer) -> Int

    /// Reads an environment variable (`ONETAP_SERVER_KEYS`).
    /// - Parameter name: The variable's name.
    /// - Returns: Its value, or nil when it is not set.
    func environment(_ name: String) -> String?

    /// The clock a command reads "now" from where it takes no `--now` (the system's, or a test's).
    var clock: any WallClock { get }

    /// Whether the signals that stop this process go to a tool a command runs (`onetap db`, `onetap gateway`) while it
    /// runs: for the process's own streams only; a program embedding the CLI (a test) keeps its signals as they are.
    var passesSignalsOn: Bool { get }
}

extension CommandIO {
    /// False: only ``ProcessIO`` passes the process's signals on.
    package var passesSignalsOn: Bool { false }
}

/// The process's own standard input, output and error.
package final class ProcessIO: CommandIO {
    /// Creates the process's IO. Ignores `SIGPIPE`, so a closed output pipe is a write error, not a kill.
    package init() {
        StandardStream.ignoreBrokenPipes()
    }

    /// Writes bytes to standard output.
    /// - Parameter bytes: The bytes.
    /// - Returns: False when the write failed.
    package func writeOutput(_ bytes: UnsafeRawBufferPointer) -> Bool {
        StandardStream.writeAll(1, bytes)
    }

    /// Writes one line to standard error. A standard error that is closed, or a pipe nobody reads, loses the
    /// line; the exit status still tells.
    /// - Parameter line: The line, without its line break.
    package func writeError(_ line: String) {
        StandardStream.writeError(line + "\n")
    }

    /// Reads from standard input.
    /// - Parameter buffer: Where to put the bytes.
    /// - Returns: The count read, 0 at the end, -1 on an error.
    package func readInput(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        while true {
            let count = read(0, buffer.baseAddress, buffer.count)
            if count < 0, errno == EINTR { continue }
            return count
        }
    }

    /// Reads the process's environment.
    /// - Parameter name: The variable's name.
    /// - Returns: Its value, or nil when it is not set.
    package func environment(_ name: String) -> String? { ProcessInfo.processInfo.environment[name] }

    /// The system's clock.
    package let clock: any WallClock = SystemClock()

    /// True: `onetap`'s own signals go to the tool it runs.
    package var passesSignalsOn: Bool { true }
}

/// In-memory standard streams, for tests and for embedding the CLI.
package final class CapturedIO: CommandIO {
    /// What was written to standard output.
    package private(set) var output: [UInt8] = []
    /// The lines written to standard error.
    package private(set) var errors: [String] = []
    private var input: [UInt8]
    private var inputOffset = 0
    private let variables: [String: String]
    /// The clock commands read "now" from.
    package let clock: any WallClock

    /// Creates captured streams.
    /// - Parameters:
    ///   - input: What standard input holds.
    ///   - environment: The environment the command sees (none by default).
    ///   - clock: The clock commands read "now" from (the system's by default).
    package init(input: [UInt8] = [], environment: [String: String] = [:], clock: any WallClock = SystemClock()) {
        self.input = input
        self.variables = environment
        self.clock = clock
    }

    /// Reads the captured environment.
    /// - Parameter name: The variable's name.
    /// - Returns: Its value, or nil when it is not set.
    package func environment(_ name: String) -> String? { variables[name] }

    /// Standard output as text (invalid UTF-8 repaired).
    package var outputText: String { String(decoding: output, as: UTF8.self) }

    /// Writes bytes to standard output.
    /// - Parameter bytes: The bytes.
    /// - Returns: False when the write failed.
    package func writeOutput(_ bytes: UnsafeRawBufferPointer) -> Bool {
        output.append(contentsOf: bytes)
        return true
    }

    /// Writes one line to standard error.
    /// - Parameter line: The line, without its line break.
    package func writeError(_ line: String) { errors.append(line) }

    /// Reads from standard input.
    /// - Parameter buffer: Where to put the bytes.
    /// - Returns: The count read, 0 at the end, -1 on an error.
    package func readInput(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let count = min(buffer.count, input.count - inputOffset)
        input.withUnsafeBytes { source in
            buffer.baseAddress!.copyMemory(from: source.baseAddress! + inputOffset, byteCount: count)
        }
        inputOffset += count
        return count
    }
}
