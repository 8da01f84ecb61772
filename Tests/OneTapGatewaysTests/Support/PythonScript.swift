import Foundation
import OneTapChildProcess
import OneTapTesting

/// Runs python3 as a filter: input on stdin, its whole stdout back (``ChildProcess/run(_:_:input:environment:errors:)``:
/// the writes and reads run on threads of their own, never on the cooperative pool).
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
    /// - Throws: ``Failure`` when it exits with a status other than 0 or is ended by a signal; ``ChildProcess/Failure``
    ///   when python3 cannot be started.
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
        let run = try await ChildProcess.run("/usr/bin/env", ["python3"] + arguments, input: Data(input.utf8), errors: .inherit)
        guard run.termination.succeeded else { throw Failure(description: "\(name) ended with \(run.termination)") }
        return String(decoding: run.output, as: UTF8.self)
    }
}
