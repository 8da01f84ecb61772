import Foundation
import OneTapTesting

/// Runs one of the fakes' Python scripts as a filter: input on stdin, its whole stdout back (on a thread of its own:
/// the reads block).
enum PythonScript {
    /// Why a script failed.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs a script to its end.
    /// - Parameters:
    ///   - script: The file name in `Fakes`.
    ///   - arguments: Its arguments.
    ///   - input: What it reads on stdin.
    /// - Returns: What it printed.
    /// - Throws: ``Failure`` when it exits with a status other than 0.
    static func run(_ script: String, arguments: [String] = [], input: String) async throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", FakeServer.fakes.appendingPathComponent(script).path] + arguments
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.standardError
        try process.run()
        let output: Data = await withCheckedContinuation { continuation in
            Thread {
                stdin.fileHandleForWriting.write(Data(input.utf8))
                try? stdin.fileHandleForWriting.close()
                let data = stdout.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                continuation.resume(returning: data)
            }.start()
        }
        guard process.terminationStatus == 0 else { throw Failure(description: "\(script) exited with \(process.terminationStatus)") }
        return String(decoding: output, as: UTF8.self)
    }
}
