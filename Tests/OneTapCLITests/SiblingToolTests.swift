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

    /// A tool `SIGTERM`, `SIGINT` or `SIGHUP` stopped (sent to it, not to `onetap`) answers as a shell would, 128 plus the
    /// signal: stopped as asked, never the crash's 70.
    @Test(arguments: [(SIGTERM, "TERM"), (SIGINT, "INT"), (SIGHUP, "HUP")])
    func aToolStoppedByAStopSignalAnswers128PlusIt(signal: Int32, name: String) async throws {
        let result = try await Self.run("kill -\(name) $$")
        guard case .failure(let failure) = result else {
            Issue.record("expected a failure, got \(result)")
            return
        }
        #expect(failure.code.rawValue == 128 + signal)
        #expect(failure.message == "onetap-db was stopped by signal \(signal)")
    }

    /// The tool's own exit status passes through unchanged (130 too: a tool that exits so was not stopped by a signal).
    @Test(arguments: [0, 1, 69, 78, 130] as [Int32]) func theToolsExitStatusPassesThrough(_ status: Int32) async throws {
        let result = try await Self.run("exit \(status)")
        guard case .success(let code) = result else {
            Issue.record("expected an exit status, got \(result)")
            return
        }
        #expect(code.rawValue == status)
    }

    /// A stand-in tool's body that says `waiting` and then waits for a signal, a minute at most: a test run killed
    /// before it signals the tool (a CI job's time-out) leaves nothing running past that minute (`while :` looped for ever,
    /// an orphan spawning `sleep` twenty times a second).
    static let waitsAMinute = "echo waiting\ni=0\nwhile [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done"

    /// A stand-in `onetap-db` that writes its process identifier to `pid` beside itself, appends the name of each of
    /// `SIGTERM`, `SIGINT` and `SIGHUP` it gets to `got`, then ends by it (or, with `exits`, exits 0), and runs `body`.
    static func stoppableTool(exits: Bool = false, _ body: String) -> String {
        let then = exits ? "exit 0" : "trap - $1; kill -$1 $$"
        return """
            #!/bin/sh
            here="$(dirname "$0")"
            stopped() { echo "$1" >> "$here/got"; \(then); }
            trap 'stopped TERM' TERM
            trap 'stopped INT' INT
            trap 'stopped HUP' HUP
            echo $$ > "$here/pid"
            \(body)

            """
    }

    /// Runs the copy of `onetap` in `directory` as `onetap db migrate` (its stand-in tool beside it), with `ignoring`
    /// ignored when given (through `sh -c`, whose `exec` keeps an ignored signal ignored, as `nohup` does), hands
    /// `running` the process and the start of its output (once it has some, so the tool runs), and waits up to 30 s for
    /// it to end (else it is killed and the test fails). The tool, if it still runs then, is killed (never left behind),
    /// and so are both when `running` throws.
    static func runOnetap(
        _ onetap: URL, _ directory: URL, ignoring: String? = nil, _ running: (ChildProcess, String) async throws -> Void
    ) async throws -> (termination: ChildProcess.Termination?, errors: String, got: String) {
        let environment = childEnvironment(adding: ["ONETAP_POSTGRES_URL": "postgresql://api@db.internal/onetap"])
        let child: ChildProcess
        if let ignoring {
            // Run once directly first: the start retries a copy still open for writing (`ETXTBSY`), `sh`'s `exec` does not.
            #expect(try await ChildProcess.run(onetap.path, ["--version"]).termination.succeeded)
            child = try ChildProcess(
                "/bin/sh", ["-c", "trap '' \(ignoring); exec \"$0\" db migrate", onetap.path], environment: environment,
                input: .null, output: .pipe, errors: .pipe)
        } else {
            child = try ChildProcess(onetap.path, ["db", "migrate"], environment: environment, input: .null, output: .pipe, errors: .pipe)
        }
        do {
            let output = try #require(child.output)
            let first = await ChildProcess.onOwnThread { output.availableData }
            try await running(child, String(decoding: first, as: UTF8.self))
        } catch {
            child.signal(SIGKILL)
            _ = await child.exited()
            Self.killIfStillRunning(directory)
            throw error
        }
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
        let got = FileManager.default.contents(atPath: directory.appendingPathComponent("got").path) ?? Data()
        Self.killIfStillRunning(directory)
        return (termination, String(decoding: errors, as: UTF8.self), String(decoding: got, as: UTF8.self))
    }

    /// Kills the stand-in tool of `directory` if it still runs (the change under test failed to stop it): only a process
    /// whose command line still names `directory`, never one that took a reaped tool's identifier.
    static func killIfStillRunning(_ directory: URL) {
        guard let text = FileManager.default.contents(atPath: directory.appendingPathComponent("pid").path),
            let pid = pid_t(String(decoding: text, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)),
            let command = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline"),
            String(decoding: command, as: UTF8.self).contains(directory.path)
        else { return }
        _ = kill(pid, SIGKILL)
    }

    /// A CLI attacker's read: `kill`, `timeout` or a supervisor stopping `onetap db …` ended `onetap` alone, and its tool
    /// ran on (holding its database connection, its ledger listing going nowhere). `onetap` passes `SIGTERM`, `SIGINT`
    /// and `SIGHUP` on to the tool, says so, and ends by the same signal as the tool did (a shell stops a script whose
    /// command `SIGINT` ended, and goes on past one that exited 130).
    @Test(.timeLimit(.minutes(1)), arguments: [(SIGTERM, "TERM"), (SIGINT, "INT"), (SIGHUP, "HUP")])
    func aSignalToOnetapStopsTheToolItRuns(signal: Int32, name: String) async throws {
        try await withOnetapBeside(tools: ["onetap-db": Self.stoppableTool(Self.waitsAMinute)]) { onetap, directory in
            let ran = try await Self.runOnetap(onetap, directory) { onetap, output in
                #expect(output == "waiting\n")
                onetap.signal(signal)
            }
            let termination = try #require(ran.termination, "onetap did not end within 30 s")
            #expect(termination.signalled && termination.status == signal, "\(termination)")
            #expect(ran.errors == "onetap: error: onetap-db was stopped by signal \(signal)\n")
            #expect(ran.got == name + "\n")
        }
    }

    /// A signal `onetap` was started ignoring (`nohup onetap db …` and `SIGHUP`) stays ignored, by `onetap` and by its
    /// tool: a hang-up, which reaches the whole process group, stops neither (a review's reads: the handler that passes
    /// signals on took the place of "ignore"; and the tool started with every signal at its default action, so it died
    /// of the hang-up while `onetap` ignored it).
    @Test(.timeLimit(.minutes(1))) func aSignalOnetapIgnoresStaysIgnored() async throws {
        try await withOnetapBeside(tools: ["onetap-db": Self.stoppableTool(Self.waitsAMinute)]) { onetap, directory in
            let ran = try await Self.runOnetap(onetap, directory, ignoring: "HUP") { onetap, output in
                #expect(output == "waiting\n")
                let pid = try String(contentsOf: directory.appendingPathComponent("pid"), encoding: .utf8)
                let tool = try #require(pid_t(pid.trimmingCharacters(in: .whitespacesAndNewlines)))
                onetap.signal(SIGHUP)
                #expect(kill(tool, SIGHUP) == 0)
                try await Task.sleep(for: .milliseconds(300))  // time for a SIGHUP that was not ignored to reach the tool's trap
                onetap.signal(SIGTERM)
            }
            let termination = try #require(ran.termination, "onetap did not end within 30 s")
            #expect(termination.signalled && termination.status == SIGTERM, "\(termination)")
            #expect(ran.got == "TERM\n")
        }
    }

    /// `onetap` ends by the signal it passed on only when the tool did: a tool that handles `SIGINT` and exits 130 itself
    /// leaves `onetap` exiting 130, as the tool did (a shell then goes on, as it would past the tool).
    @Test(.timeLimit(.minutes(1))) func aToolThatHandlesTheSignalEndsOnetapAsItExits() async throws {
        let tool = "#!/bin/sh\necho $$ > \"$(dirname \"$0\")/pid\"\ntrap 'exit 130' INT\n" + Self.waitsAMinute + "\n"
        try await withOnetapBeside(tools: ["onetap-db": tool]) { onetap, directory in
            let ran = try await Self.runOnetap(onetap, directory) { onetap, output in
                #expect(output == "waiting\n")
                onetap.signal(SIGINT)
            }
            let termination = try #require(ran.termination, "onetap did not end within 30 s")
            #expect(!termination.signalled && termination.status == 130, "\(termination)")
            #expect(ran.errors.isEmpty, "\(ran.errors)")
        }
    }

    /// A CLI attacker's read: `onetap db reconcile | head -1` closed `onetap`'s output, and `onetap` went on reading its
    /// tool to the end (a ledger of millions of rows, each write failing). The tool is stopped, and `onetap` answers 74;
    /// one that ignores `SIGTERM` is killed after the grace, and the answer is still 74 (the output), not 70 (a crash):
    /// the kill was `onetap`'s.
    @Test(.timeLimit(.minutes(1)), arguments: [
        (Self.stoppableTool(exits: true, "while :; do echo row; done"), "TERM\n"),
        ("#!/bin/sh\necho $$ > \"$(dirname \"$0\")/pid\"\ntrap '' TERM\nwhile :; do echo row; done\n", ""),
    ])
    func aClosedOutputStopsTheToolItRuns(tool: String, got: String) async throws {
        try await withOnetapBeside(tools: ["onetap-db": tool]) { onetap, directory in
            let ran = try await Self.runOnetap(onetap, directory) { onetap, output in
                #expect(output.hasPrefix("row\n"))
                try #require(onetap.output).close()
            }
            let termination = try #require(ran.termination, "onetap did not end within 30 s")
            #expect(!termination.signalled && termination.status == 74, "\(termination)")
            #expect(ran.errors == "onetap: error: cannot write to standard output\n")
            #expect(ran.got == got)
        }
    }
}
