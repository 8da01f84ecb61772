#if canImport(Glibc)
import Glibc
#endif
import Foundation
import OneTapChildProcess
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

    /// A stand-in `onetap-db` that writes its process identifier to `pid` beside itself, says what a `SIGTERM` did to it
    /// in `got`, and runs `body`.
    static func stoppableTool(onTerm: String, _ body: String) -> String {
        """
        #!/bin/sh
        here="$(dirname "$0")"
        trap 'echo TERM > "$here/got"; \(onTerm)' TERM
        echo $$ > "$here/pid"
        \(body)

        """
    }

    /// Runs the copy of `onetap` in `directory` as `onetap db migrate` (its stand-in tool beside it), hands `running` the
    /// process and the start of its output (once it has some, so the tool runs), and waits up to 30 s for it to end
    /// (else it is killed and the test fails). The tool, if it still runs then, is killed (never left behind).
    static func runOnetap(
        _ onetap: URL, _ directory: URL, _ running: (ChildProcess, String) async throws -> Void
    ) async throws -> (termination: ChildProcess.Termination?, errors: String) {
        let child = try ChildProcess(
            onetap.path, ["db", "migrate"], environment: childEnvironment(adding: ["ONETAP_POSTGRES_URL": "postgresql://api@db.internal/onetap"]),
            input: .null, output: .pipe, errors: .pipe)
        defer {
            if let text = try? String(contentsOf: directory.appendingPathComponent("pid"), encoding: .utf8),  // none when it never started
                let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)) {
                _ = kill(pid, SIGKILL)
            }
        }
        let output = try #require(child.output)
        let first = await ChildProcess.onOwnThread { output.availableData }
        try await running(child, String(decoding: first, as: UTF8.self))
        let termination = await withTaskGroup(of: ChildProcess.Termination?.self) { group in
            group.addTask { await child.exited() }
            group.addTask {
                do { try await Task.sleep(for: .seconds(30)) } catch { /* the process ended first */ }
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            if first == nil { child.signal(SIGKILL) }  // so the waiting task ends
            return first
        }
        let errors = await ChildProcess.onOwnThread { child.errors?.readDataToEndOfFile() ?? Data() }
        return (termination, String(decoding: errors, as: UTF8.self))
    }

    /// A CLI attacker's read: `kill`, `timeout` or a supervisor stopping `onetap db …` ended `onetap` alone, and its tool
    /// ran on (holding its database connection, its ledger listing going nowhere). `onetap` passes `SIGTERM` on to the tool
    /// and answers as it ends: 143, as a shell gives a program `SIGTERM` ended, and never the crash's 70.
    @Test(.timeLimit(.minutes(1))) func aSignalToOnetapStopsTheToolItRuns() async throws {
        let tool = Self.stoppableTool(onTerm: "trap - TERM; kill -TERM $$", "echo waiting\nwhile :; do sleep 0.05; done")
        try await withOnetapBeside(tools: ["onetap-db": tool]) { onetap, directory in
            let ran = try await Self.runOnetap(onetap, directory) { onetap, output in
                #expect(output == "waiting\n")
                onetap.signal(SIGTERM)
            }
            let termination = try #require(ran.termination, "onetap did not end within 30 s")
            #expect(!termination.signalled && termination.status == 143, "\(termination)")
            #expect(ran.errors == "onetap: error: onetap-db was stopped by signal 15 before it ended\n")
            let got = try String(contentsOf: directory.appendingPathComponent("got"), encoding: .utf8)
            #expect(got == "TERM\n")
        }
    }

    /// A CLI attacker's read: `onetap db reconcile | head -1` closed `onetap`'s output, and `onetap` went on reading its
    /// tool to the end (a ledger of millions of rows, each write failing). The tool is stopped, and `onetap` answers 74.
    @Test(.timeLimit(.minutes(1))) func aClosedOutputStopsTheToolItRuns() async throws {
        let tool = Self.stoppableTool(onTerm: "exit 0", "while :; do echo row; done")
        try await withOnetapBeside(tools: ["onetap-db": tool]) { onetap, directory in
            let ran = try await Self.runOnetap(onetap, directory) { onetap, output in
                #expect(output.hasPrefix("row\n"))
                try #require(onetap.output).close()
            }
            let termination = try #require(ran.termination, "onetap did not end within 30 s")
            #expect(!termination.signalled && termination.status == 74, "\(termination)")
            #expect(ran.errors == "onetap: error: cannot write to standard output\n")
            let got = try String(contentsOf: directory.appendingPathComponent("got"), encoding: .utf8)
            #expect(got == "TERM\n")
        }
    }
}
