#if canImport(Glibc)
import Glibc
#endif
import Foundation
import OneTapChildProcess
import OneTapTesting
import Testing

/// `ChildProcess`, against what `/bin/sh`, `cat`, `env` and `sleep` do: streams, statuses, signals,
/// descriptors and the signal mask a child starts with.
@Suite struct ChildProcessTests {
    @Test func inputOutputErrorsAndExitStatus() async throws {
        let run = try await ChildProcess.run("/bin/sh", ["-c", "cat; echo oops >&2; exit 3"], input: Data("hello\n".utf8))
        #expect(String(decoding: run.output, as: UTF8.self) == "hello\n")
        #expect(String(decoding: run.errors, as: UTF8.self) == "oops\n")
        #expect(run.termination.status == 3 && !run.termination.signalled && !run.termination.succeeded)
        #expect(run.termination.description == "exit status 3")
        #expect(run.termination.shellStatus == 3)
    }

    /// An attacker's read of the CLI: `onetap db reconcile` pages through the ledger in bounded memory, but `onetap`
    /// gathered its tool's whole output before printing a line (gigabytes for a day of unknown exchanges, and nothing
    /// shown until the end). The output is handed on as it comes: here the program waits for a file the caller makes
    /// only once it has seen the first line, which a run that gathered everything first would wait for forever.
    @Test(.timeLimit(.minutes(3))) func outputIsHandedOnWhileTheProgramRuns() async throws {
        try await TemporaryDirectory.with("onetap-streamed") { directory in
            let flag = directory.appendingPathComponent("flag").path
            var seen = ""
            let run = try await ChildProcess.run("/bin/sh", ["-c", "echo first; while [ ! -e \"$0\" ]; do sleep 0.02; done; echo second", flag]) { chunk in
                seen += String(decoding: chunk, as: UTF8.self)
                if seen == "first\n" { #expect(FileManager.default.createFile(atPath: flag, contents: nil)) }
                return true
            }
            #expect(seen == "first\nsecond\n")
            #expect(run.output.isEmpty && run.termination.succeeded)
        }
    }

    /// Output of any size goes through in chunks of 64 KiB at most, in order, none gathered.
    @Test func largeOutputIsHandedOnInBoundedChunks() async throws {
        var total = 0, chunks = 0, largest = 0
        let run = try await ChildProcess.run("/usr/bin/head", ["-c", "5000000", "/dev/zero"]) { chunk in
            total += chunk.count
            chunks += 1
            largest = max(largest, chunk.count)
            #expect(chunk.allSatisfy { $0 == 0 })
            return true
        }
        #expect(total == 5_000_000 && chunks > 1 && largest <= 65_536)
        #expect(run.output.isEmpty && run.termination.succeeded)
    }

    /// A caller cancelled while a program writes without end (`yes`) stops taking chunks, and the program is ended.
    @Test(.timeLimit(.minutes(3))) func aCancelledCallerEndsAProgramThatNeverStops() async throws {
        let run = try await Task {
            try await ChildProcess.run("/usr/bin/yes", []) { _ in
                withUnsafeCurrentTask { $0?.cancel() }
                return true
            }
        }.value
        #expect(run.termination.signalled && run.termination.status == SIGTERM)
    }

    /// A caller whose output closed (`onetap db reconcile | head`) says so by answering false: it is handed no more,
    /// and the program, which would write without end, is ended.
    @Test(.timeLimit(.minutes(3))) func aCallerThatStopsTakingEndsAProgramThatNeverStops() async throws {
        var chunks = 0
        let run = try await ChildProcess.run("/usr/bin/yes", []) { _ in
            chunks += 1
            return chunks < 3
        }
        #expect(chunks == 3)
        #expect(run.termination.signalled && run.termination.status == SIGTERM)
    }

    /// A program that ignores `SIGTERM` and writes without end, whose caller stops taking its output, is killed
    /// ``ChildProcess/stopGrace`` later: nothing waits on it for ever.
    @Test(.timeLimit(.minutes(3))) func aProgramThatIgnoresTheStopIsKilledAfterTheGrace() async throws {
        let start = ContinuousClock.now
        let run = try await ChildProcess.run("/bin/sh", ["-c", "trap '' TERM; while :; do echo x; done"]) { _ in false }
        #expect(run.termination.signalled && run.termination.status == SIGKILL)
        #expect(ContinuousClock.now - start >= .seconds(5), "killed before the grace ended")  // a lower bound: load only adds
    }

    /// Four MiB each way through `cat`: the pipes hold 64 KiB, so writing all before reading would deadlock.
    @Test func largeDataBothWaysDoesNotDeadlock() async throws {
        let input = Data((0..<(4 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let run = try await ChildProcess.run("/bin/cat", [], input: input)
        #expect(run.termination.succeeded)
        #expect(run.output == input)
    }

    /// A program that exits without reading its input: the write fails quietly (no SIGPIPE ends the test
    /// process), and the status is the program's.
    @Test func aProgramThatReadsNothingEndsTheRunNormally() async throws {
        let run = try await ChildProcess.run("/bin/sh", ["-c", "echo done"], input: Data(repeating: 65, count: 1 << 20))
        #expect(run.termination.succeeded)
        #expect(String(decoding: run.output, as: UTF8.self) == "done\n")
    }

    /// A script `echo started` in a fresh folder, still open for writing (here in this process; in a test run, a
    /// child another thread is starting holds every descriptor until just before its exec), handed to `body`
    /// with the writing descriptor, which `body` closes when it wants to (else it is closed after `body`).
    private func withProgramOpenForWriting(_ body: (_ program: String, _ writer: Int32) async throws -> Bool) async throws {
        try await TemporaryDirectory.with("onetap-busy") { directory in
            let program = directory.appendingPathComponent("busy").path
            let writer = open(program, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o700)
            try #require(writer >= 0)
            let script = Array("#!/bin/sh\necho started\n".utf8)
            #expect(write(writer, script, script.count) == script.count)
            if try await !body(program, writer) { close(writer) }
        }
    }

    /// Such a program cannot be executed (`ETXTBSY`, "Text file busy"): the start waits for the writer to
    /// close, up to a second, instead of failing. Without the wait the start throws at once.
    @Test func aProgramStillOpenForWritingStartsOnceTheWriterCloses() async throws {
        try await withProgramOpenForWriting { program, writer in
            Thread { usleep(100_000); close(writer) }.start()
            let run = try await ChildProcess.run(program, [])
            #expect(run.termination.succeeded && String(decoding: run.output, as: UTF8.self) == "started\n")
            return true   // closed by the thread
        }
    }

    /// A program that stays busy longer than the wait is a failure that says so.
    @Test func aProgramBusyPastTheWaitIsAFailureThatSaysSo() async throws {
        try await withProgramOpenForWriting { program, _ in
            let started = ContinuousClock.now
            await #expect { _ = try await ChildProcess.run(program, []) } throws: { error in
                "\(error)" == "cannot start \(program): Text file busy"
            }
            #expect(ContinuousClock.now - started >= .milliseconds(900))
            return false
        }
    }

    @Test func aSignalEndsItAndIsReportedAsSuch() async throws {
        let sleeper = try ChildProcess("/bin/sleep", ["30"])
        sleeper.signal(SIGKILL)
        let ended = await sleeper.exited()
        #expect(ended.signalled && ended.status == SIGKILL && ended.description == "signal 9")
        #expect(ended.shellStatus == 137, "as sh reports a SIGKILL: 128 + 9")
        // Reaped: a second wait answers the same, and a signal now reaches no one.
        sleeper.signal(SIGKILL)
        #expect(sleeper.wait() == ended)
    }

    @Test func aMissingProgramIsAFailureThatNamesIt() throws {
        #expect {
            _ = try ChildProcess("/nonexistent/onetap-no-such-tool", [])
        } throws: { error in
            "\(error)" == "cannot start /nonexistent/onetap-no-such-tool: No such file or directory"
        }
    }

    @Test func onlyStandardErrorCanFollowStandardOutput() throws {
        #expect {
            _ = try ChildProcess("/bin/true", [], input: .output)
        } throws: { error in
            "\(error)" == "cannot start /bin/true: only standard error can go where standard output goes"
        }
    }

    @Test func aBareNameIsLookedUpInPath() async throws {
        let run = try await ChildProcess.run("sh", ["-c", "echo found"])
        #expect(String(decoding: run.output, as: UTF8.self) == "found\n")
    }

    @Test func theEnvironmentIsExactlyTheOneGiven() async throws {
        let run = try await ChildProcess.run("/usr/bin/env", [], environment: ["ONETAP_ONLY": "1"])
        #expect(String(decoding: run.output, as: UTF8.self) == "ONETAP_ONLY=1\n")
    }

    @Test func standardErrorGoesWhereStandardOutputGoes() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("onetap-child-\(UUID().uuidString)").path
        defer { unlink(file) }
        let child = try ChildProcess("/bin/sh", ["-c", "echo out; echo err >&2"], output: .file(file), errors: .output)
        #expect(await child.exited().succeeded)
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "out\nerr\n")
    }

    /// A descriptor this process holds open without close-on-exec does not reach the child.
    @Test func theChildGetsNoOtherDescriptorOfOurs() async throws {
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        defer { for end in ends { close(end) } }
        let script = "for n in \(ends[0]) \(ends[1]); do if [ -e /proc/$$/fd/$n ]; then echo open $n; fi; done; echo checked"
        let run = try await ChildProcess.run("/bin/sh", ["-c", script])
        #expect(String(decoding: run.output, as: UTF8.self) == "checked\n")
    }

    /// A thread that blocks SIGTERM (a dispatch worker blocks most signals) still starts a child that SIGTERM ends.
    @Test func theChildStartsWithNoSignalBlocked() async throws {
        var term = sigset_t(), previous = sigset_t()
        sigemptyset(&term)
        sigaddset(&term, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &term, &previous)
        let child: ChildProcess
        do {
            child = try ChildProcess("/bin/sh", ["-c", "kill -TERM $$; sleep 5"])
        } catch {
            pthread_sigmask(SIG_SETMASK, &previous, nil)
            throw error
        }
        pthread_sigmask(SIG_SETMASK, &previous, nil)
        let ended = await child.exited()
        #expect(ended.signalled && ended.status == SIGTERM)
    }

    /// Its description names the program and never its arguments, which may carry secrets.
    @Test func theDescriptionLeavesTheArgumentsOut() async throws {
        let child = try ChildProcess("/bin/sh", ["-c", "exit 0", "secret-argument"])
        #expect(child.description == "/bin/sh (pid \(child.identifier))")
        #expect(await child.exited().succeeded)
    }
}
