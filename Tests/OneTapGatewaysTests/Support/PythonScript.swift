import Foundation
import OneTapTesting

/// Runs python3 as a filter: input on stdin, its whole stdout back. The writes and reads block, so they run on a
/// thread of their own, never on the cooperative pool.
enum PythonScript {
    /// Why a script failed.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs one of the fakes' scripts to its end.
    /// - Parameters:
    ///   - script: The file name in `Fakes`.
    ///   - arguments: Its arguments.
    ///   - input: What it reads on stdin.
    /// - Returns: What it printed.
    /// - Throws: ``Failure`` when its input cannot be written or it exits with a status other than 0.
    static func run(_ script: String, arguments: [String] = [], input: String = "") async throws -> String {
        try await python([FakeServer.fakes.appendingPathComponent(script).path] + arguments, input: input, name: script)
    }

    /// Runs a python3 program given as text (`python3 -c`) to its end.
    /// - Parameters:
    ///   - code: The program.
    ///   - input: What it reads on stdin.
    /// - Returns: What it printed.
    /// - Throws: ``Failure`` as ``run(_:arguments:input:)``.
    static func run(code: String, input: String = "") async throws -> String {
        try await python(["-c", code], input: input, name: "python3 -c")
    }

    private static func python(_ arguments: [String], input: String, name: String) async throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.standardError
        try process.run()
        let output: Data = try await withCheckedThrowingContinuation { continuation in
            Thread {
                do {
                    try stdin.fileHandleForWriting.write(contentsOf: Data(input.utf8))
                    try stdin.fileHandleForWriting.close()
                } catch {
                    process.terminate()
                    process.waitUntilExit()
                    continuation.resume(throwing: Failure(description: "\(name): its input could not be written: \(error)"))
                    return
                }
                let data = stdout.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                continuation.resume(returning: data)
            }.start()
        }
        guard process.terminationStatus == 0 else { throw Failure(description: "\(name) exited with \(process.terminationStatus)") }
        return String(decoding: output, as: UTF8.self)
    }
}
