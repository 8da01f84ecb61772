import Foundation
@testable import OneTapCLI
import Testing

/// How `onetap` passes on a sibling tool's end (`onetap-db`, `onetap-gateway`), with stand-ins written here in `sh`.
@Suite struct SiblingToolTests {
    /// Runs a stand-in `onetap-db` made of `script`.
    static func run(_ script: String) async throws -> Result<ExitCode, CommandFailure> {
        let directory = try Package.temporaryDirectory()  // removed when the test process exits
        let tool = directory.appendingPathComponent("onetap-db")
        try Data("#!/bin/sh\n\(script)\n".utf8).write(to: tool)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: tool.path)
        let io = CapturedIO()
        let sibling = SiblingTool(name: "onetap-db", command: "db", directory: directory)
        do {
            return .success(try await sibling.run([], input: Data(), output: OutputBuffer(io: io), io: io, redacting: { $0 }))
        } catch {
            return .failure(error)
        }
    }

    /// A CLI attacker's read: a tool a signal stopped (a crash in libpq or libcrypto) ended `onetap` with 1, which the
    /// help gives to the server's or vendor's refusal; a script read a crash as a refusal. It is 70 (`EX_SOFTWARE`).
    @Test func aToolStoppedByASignalIsACrashNotARefusal() async throws {
        let result = try await Self.run("kill -ABRT $$")
        guard case .failure(let failure) = result else {
            Issue.record("expected a failure, got \(result)")
            return
        }
        #expect(failure.code == .software && failure.code.rawValue == 70)
        #expect(failure.message == "onetap-db was stopped by signal 6")
    }

    /// The tool's own exit status passes through unchanged.
    @Test(arguments: [0, 1, 69, 78] as [Int32]) func theToolsExitStatusPassesThrough(_ status: Int32) async throws {
        let result = try await Self.run("exit \(status)")
        guard case .success(let code) = result else {
            Issue.record("expected an exit status, got \(result)")
            return
        }
        #expect(code.rawValue == status)
    }
}
