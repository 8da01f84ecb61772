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

    /// Runs a program to its end as ``run(_:_:input:environment:errors:)`` does, but hands its standard output on as
    /// it comes, a chunk at a time (64 KiB at most), instead of collecting it: `each` runs on the calling task, and
    /// the next chunk is read only once it has returned, so output of any size passes through in bounded memory
    /// (`onetap db reconcile` listing a ledger of millions of rows). A caller that is cancelled, or whose `each`
    /// answers false (the output it passes them to is closed), stops being handed chunks and the program is sent
    /// `SIGTERM` (and `SIGKILL` if it has not ended ``stopGrace`` later); what it still writes is read and dropped, so
    /// it never blocks on a full pipe.
    /// - Parameters:
    ///   - path: The program: a path, or a bare name looked up in `PATH`.
    ///   - arguments: Its arguments.
    ///   - input: What it reads on standard input.
    ///   - environment: Its whole environment; nil for this process's.
    ///   - signals: Signals this process gets that go to the program instead while it runs
    ///     (``init(_:_:environment:input:output:errors:forwarding:)``); none by default.
    ///   - each: Takes each chunk of its standard output, in order; returns whether to go on.
    /// - Returns: How it ended and its standard error (its ``Outcome/output`` is empty: it went to `each`).
    /// - Throws: ``Failure`` when it cannot be started.
    package static func run(
        _ path: String, _ arguments: [String], input: Data = Data(), environment: [String: String]? = nil, forwarding signals: [Int32] = [],
        passingOutputTo each: (UnsafeRawBufferPointer) -> Bool
    ) async throws(Failure) -> Outcome {
        let started = await onOwnThread { () -> Result<ChildProcess, Failure> in
            Result { () throws(Failure) -> ChildProcess in
                try ChildProcess(path, arguments, environment: environment, input: .pipe, output: .pipe, errors: .pipe, forwarding: signals)
            }
        }
        let child = try started.get()
        let handOver = HandOver()
        let (chunks, continuation) = AsyncStream<Data>.makeStream(bufferingPolicy: .unbounded)
        let collected = Collected()
        child.startFeeding(input, errorsInto: collected)
        Thread { [output = child.output] in
            if let output {
                var buffer = [UInt8](repeating: 0, count: 65_536)
                let descriptor = output.fileDescriptor
                while true {
                    let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                    if count < 0, errno == EINTR { continue }
                    guard count > 0 else { break }
                    // One chunk at a time: the next is read once the caller took this one (or went away).
                    if !handOver.abandoned {
                        continuation.yield(Data(buffer[0..<count]))
                        handOver.taken.wait()
                    }
                }
            }
            continuation.finish()
        }.start()
        var goesOn = true
        for await chunk in chunks {
            goesOn = chunk.withUnsafeBytes(each)
            handOver.taken.signal()
            if !goesOn || Task.isCancelled { break }
        }
        handOver.abandon()
        let stopped = !goesOn || Task.isCancelled
        if stopped { child.signal(SIGTERM) }  // the caller went away or takes no more: the program it ran ends too
        let termination = await onOwnThread { () -> Termination in
            // A program that ignores `SIGTERM` is killed after ``stopGrace``: nothing waits on it for ever.
            let ended = DispatchSemaphore(value: 0)
            if stopped { Thread { if ended.wait(timeout: .now() + stopGrace) == .timedOut { child.signal(SIGKILL) } }.start() }
            collected.done.wait()
            collected.done.wait()
            let termination = child.wait()
            ended.signal()
            return termination
        }
        return Outcome(termination: termination, output: Data(), errors: collected.errors.withLock { $0 })
    }

    /// How long a program a caller stopped taking output from has to end after `SIGTERM` before it is sent `SIGKILL`.
    package static let stopGrace = DispatchTimeInterval.seconds(5)

    /// Writes the input and drains both outputs, then reaps the child; blocks the calling thread.
    private func collect(writing data: Data) -> Outcome {
        let collected = Collected()
        startFeeding(data, errorsInto: collected)
        let output = self.output?.readDataToEndOfFile() ?? Data()
        collected.done.wait()
        collected.done.wait()
        return Outcome(termination: wait(), output: output, errors: collected.errors.withLock { $0 })
    }

    /// Starts the two threads that write the input (then close it) and collect standard error; each signals
    /// `collected.done` once when it is through.
    private func startFeeding(_ data: Data, errorsInto collected: Collected) {
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
    }
}

/// How the reading thread of ``ChildProcess/run(_:_:input:environment:forwarding:passingOutputTo:)`` hands a chunk to the
/// caller: it waits for `taken` after each, unless the caller went away.
private final class HandOver: Sendable {
    let taken = DispatchSemaphore(value: 0)
    private let gone = Mutex(false)

    var abandoned: Bool { gone.withLock { $0 } }

    /// The caller takes no more chunks: a reader waiting for one it yielded goes on (and drops the rest).
    func abandon() {
        gone.withLock { $0 = true }
        taken.signal()
    }
}

/// What the writing and error-reading threads of ``ChildProcess/run(_:_:input:environment:errors:)`` hand back.
private final class Collected: Sendable {
    let errors = Mutex(Data())
    let done = DispatchSemaphore(value: 0)
}
