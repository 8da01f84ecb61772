#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Foundation
import Synchronization

extension ChildProcess {
    /// What a program run to its end printed, and how it ended.
    package struct Outcome: Sendable {
        /// How it ended.
        package let termination: Termination
        /// Its whole standard output.
        package let output: Data
        /// Its whole standard error (empty unless it went to a pipe).
        package let errors: Data
    }

    /// Runs a program to its end: writes `input` to its standard input and closes it, and collects its
    /// standard output and error, on threads of their own (never the cooperative pool's), so neither a large
    /// input nor a large output can deadlock the pipes.
    ///
    /// A program that exits without reading all its input is no error here: its status and output say what
    /// happened (the write's `SIGPIPE` is blocked on the writing thread, so it cannot end this process).
    /// - Parameters:
    ///   - path: The program: a path, or a bare name looked up in `PATH`.
    ///   - arguments: Its arguments.
    ///   - input: What it reads on standard input.
    ///   - environment: Its whole environment; nil for this process's.
    ///   - errors: Where its standard error goes: a pipe (collected) by default.
    /// - Returns: How it ended and what it printed.
    /// - Throws: ``Failure`` when it cannot be started.
    package static func run(
        _ path: String, _ arguments: [String], input: Data = Data(), environment: [String: String]? = nil, errors: Stream = .pipe
    ) async throws(Failure) -> Outcome {
        // The start too runs on its own thread: it can wait (a program still open for writing).
        let outcome = await onOwnThread { () -> Result<Outcome, Failure> in
            Result { () throws(Failure) -> Outcome in
                try ChildProcess(path, arguments, environment: environment, input: .pipe, output: .pipe, errors: errors).collect(writing: input)
            }
        }
        return try outcome.get()
    }

    /// Writes the input and drains both outputs, then reaps the child; blocks the calling thread.
    private func collect(writing data: Data) -> Outcome {
        let collected = Collected()
        let writer = Thread { [input = self.input] in
            // SIGPIPE from a write is sent to the writing thread: blocked here, the write fails with EPIPE
            // instead, and the pending signal goes with the thread.
            var pipeSignal = sigset_t()
            sigemptyset(&pipeSignal)
            sigaddset(&pipeSignal, SIGPIPE)
            pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)
            if let input {
                do {
                    try input.write(contentsOf: data)
                } catch {
                    // The program closed its input before reading it all: its status and output say why.
                }
                do { try input.close() } catch { /* closed already: nothing is lost */ }
            }
            collected.done.signal()
        }
        let errorReader = Thread { [errors = self.errors] in
            if let errors { collected.errors.withLock { $0 = errors.readDataToEndOfFile() } }
            collected.done.signal()
        }
        writer.start()
        errorReader.start()
        let output = self.output?.readDataToEndOfFile() ?? Data()
        collected.done.wait()
        collected.done.wait()
        return Outcome(termination: wait(), output: output, errors: collected.errors.withLock { $0 })
    }
}

/// What the writing and error-reading threads of ``ChildProcess/run(_:_:input:environment:errors:)`` hand back.
private final class Collected: Sendable {
    let errors = Mutex(Data())
    let done = DispatchSemaphore(value: 0)
}
