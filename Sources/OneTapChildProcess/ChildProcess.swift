#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization

/// A program started with `posix_spawn`: the one way the package's tools, test support and tests start a
/// child process.
///
/// Not Foundation's `Process`, for two reasons:
/// - Swift 6.3.1's `Process.run()` over-reads the `/proc/self/fd` entries it lists (a 256-byte copy of each
///   `d_name`) and now and then crashes the calling process when an entry sits at the end of a mapped page
///   (swift-corelibs-foundation pull request 5472, fixed after 6.3.1). Two fresh-clone CI runs crashed so.
/// - A child started here keeps its three standard streams and no other descriptor of this process
///   (`posix_spawn_file_actions_addclosefrom_np`), so a daemon it leaves behind (`pg_ctl start`) holds no
///   pipe of ours open; and it starts with every signal unblocked and at its default action, whatever the
///   spawning thread blocks (a blocked mask survives `exec`), but for a signal it takes from this process
///   (``init(_:_:environment:input:output:errors:forwarding:)``) that this process ignores, which it ignores too.
///
/// The child is reaped once, by ``wait()`` or ``exited()``; ``signal(_:)`` after that does nothing, so a
/// signal never reaches a process that has taken a reaped child's identifier.
package final class ChildProcess: Sendable {
    /// Where one of the child's standard streams goes.
    package enum Stream: Sendable, Equatable {
        /// A pipe to this process: ``ChildProcess/input``, ``ChildProcess/output`` or ``ChildProcess/errors``.
        case pipe
        /// `/dev/null`.
        case null
        /// This process's own stream.
        case inherit
        /// A file: read for standard input; created (mode 0600) or truncated for the outputs.
        case file(String)
        /// For standard error only: wherever standard output goes.
        case output
    }

    /// Why a child could not be started.
    package struct Failure: Error, CustomStringConvertible {
        /// What failed, naming the program.
        package let description: String
    }

    /// How a child ended.
    package struct Termination: Sendable, Equatable, CustomStringConvertible {
        /// Its exit status, or the number of the signal that ended it; 255 when its status was lost (the child
        /// was reaped elsewhere, as when this process ignores `SIGCHLD`).
        package let status: Int32
        /// Whether a signal ended it.
        package let signalled: Bool
        /// Its peak resident memory, in KiB (`ru_maxrss`).
        package let peakResidentKilobytes: Int

        /// Whether it exited with status 0.
        package var succeeded: Bool { !signalled && status == 0 }

        /// The status as a shell reports it: the exit status, or 128 plus the signal's number.
        package var shellStatus: Int32 { signalled ? 128 + status : status }

        /// `exit status N` or `signal N`.
        package var description: String { signalled ? "signal \(status)" : "exit status \(status)" }
    }

    /// The child's process identifier.
    package let identifier: pid_t
    /// The writing end of its standard input, when that is a ``Stream/pipe``.
    package let input: FileHandle?
    /// The reading end of its standard output, when that is a ``Stream/pipe``.
    package let output: FileHandle?
    /// The reading end of its standard error, when that is a ``Stream/pipe``.
    package let errors: FileHandle?
    private let program: String
    private let ended = Mutex<Termination?>(nil)
    /// Whether signals this process gets are passed on to the child until it is reaped.
    private let takesSignals: Bool

    /// Starts a program.
    /// - Parameters:
    ///   - path: The program: a path, or a bare name looked up in `PATH`.
    ///   - arguments: Its arguments (without the program's name).
    ///   - environment: Its whole environment; nil for this process's.
    ///   - input: Where its standard input comes from.
    ///   - output: Where its standard output goes.
    ///   - errors: Where its standard error goes.
    ///   - signals: Signals this process gets that go to the child instead, from before it starts until it is reaped
    ///     (``SignalForwarding``: a wrapper that is stopped stops the program it runs); none by default. Not passed on
    ///     when another child of this process takes them already, nor those this process ignores.
    /// - Throws: ``Failure`` when a pipe cannot be made or the program cannot be started (not found, not
    ///   executable, still open for writing after a second of waiting), naming it.
    package init(
        _ path: String, _ arguments: [String], environment: [String: String]? = nil,
        input: Stream = .null, output: Stream = .inherit, errors: Stream = .inherit, forwarding signals: [Int32] = []
    ) throws(Failure) {
        program = path
        var theirs: [Int32] = []   // the child's ends, closed here once it has started
        defer { for end in theirs { close(end) } }
        func pipeEnds() throws(Failure) -> (read: Int32, write: Int32) {
            var ends: [Int32] = [-1, -1]
            guard pipe(&ends) == 0 else { throw Failure(description: "cannot start \(path): pipe failed: \(String(cString: strerror(errno)))") }
            // Close-on-exec, so no other child inherits them while this one starts.
            for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
            return (ends[0], ends[1])
        }

        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var handles: [FileHandle?] = [nil, nil, nil]
        do throws(Failure) {
            for (descriptor, stream) in [(Int32(0), input), (1, output), (2, errors)] {
                switch stream {
                case .pipe:
                    let ends = try pipeEnds()
                    let (child, parent) = descriptor == 0 ? (ends.read, ends.write) : (ends.write, ends.read)
                    theirs.append(child)
                    posix_spawn_file_actions_adddup2(&actions, child, descriptor)
                    handles[Int(descriptor)] = FileHandle(fileDescriptor: parent, closeOnDealloc: true)
                case .null:
                    posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
                case .inherit:
                    break
                case .file(let file):
                    posix_spawn_file_actions_addopen(&actions, descriptor, file, descriptor == 0 ? O_RDONLY : O_WRONLY | O_CREAT | O_TRUNC, 0o600)
                case .output:
                    guard descriptor == 2 else { throw Failure(description: "cannot start \(path): only standard error can go where standard output goes") }
                    posix_spawn_file_actions_adddup2(&actions, 1, 2)
                }
            }
        } catch {
            handles = []   // closes this process's ends
            throw error
        }
        Self.closeEveryOtherDescriptor(&actions)

        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var all = sigset_t()
        sigfillset(&all)
        // A signal this process ignores and would pass on (`nohup`'s `SIGHUP`) stays ignored by the child too: a hang-up
        // sent to the whole process group then stops neither.
        for number in signals.isEmpty ? [] : SignalForwarding.ignored(signals) { sigdelset(&all, number) }
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let envp: [UnsafeMutablePointer<CChar>?]? = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { for pointer in envp ?? [] { free(pointer) } }
        var pid: pid_t = 0
        // Claimed before the start, so a signal that comes while it starts is held for it, not this process's end.
        let takesSignals = !signals.isEmpty && SignalForwarding.claim(signals)
        let spawn = path.contains("/") ? posix_spawn : posix_spawnp
        func start() -> Int32 {
            envp.map { spawn(&pid, path, &actions, &attributes, argv, $0) } ?? spawn(&pid, path, &actions, &attributes, argv, environ)
        }
        var started = start()
        // ETXTBSY: the program was written a moment ago and a descriptor open for writing it is still held, by
        // this process or by a child another thread is starting (which holds every descriptor until it closes
        // them just before its exec). That passes: try again every 10 ms, for up to a second.
        var waits = 0
        while started == ETXTBSY && waits < 100 {
            usleep(10_000)
            waits += 1
            started = start()
        }
        guard started == 0 else {
            handles = []   // closes our ends
            if takesSignals { SignalForwarding.release() }
            throw Failure(description: "cannot start \(path): \(String(cString: strerror(started)))")
        }
        if takesSignals { SignalForwarding.attach(pid) }
        self.takesSignals = takesSignals
        identifier = pid
        self.input = handles[0]
        self.output = handles[1]
        self.errors = handles[2]
    }

    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), looked up once: Swift's Glibc module
    /// does not declare it.
    private static let closeFrom: CloseFrom? = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np").map { unsafeBitCast($0, to: CloseFrom.self) }

    /// Adds "close every descriptor from 3" to the actions: ``closeFrom`` where glibc has it, else one close per
    /// descriptor open now.
    private static func closeEveryOtherDescriptor(_ actions: inout posix_spawn_file_actions_t) {
        if let closeFrom {
            _ = closeFrom(&actions, 3)
            return
        }
        // Descriptors are close-on-exec or closed here; a listing that cannot be read leaves the rest to
        // their close-on-exec flags.
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/dev/fd")) ?? []
        for descriptor in open.compactMap({ Int32($0) }) where descriptor > 2 && fcntl(descriptor, F_GETFD) >= 0 {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }
    }

    /// A child that took signals and was never waited on gives them back (its identifier, not reaped, is not taken by
    /// another process meanwhile).
    deinit {
        if takesSignals, ended.withLock({ $0 == nil }) { SignalForwarding.release() }
    }

    /// Sends a signal to the child, unless it has been reaped already.
    /// - Parameter number: The signal (`SIGTERM`, `SIGKILL`).
    package func signal(_ number: Int32) {
        ended.withLock { termination in
            if termination == nil { _ = kill(identifier, number) }
        }
    }

    /// Waits for the child to end, blocking the calling thread; every later call returns the same answer.
    /// - Returns: How it ended.
    package func wait() -> Termination {
        // Wait without reaping, so a concurrent ``signal(_:)`` cannot reach a recycled identifier; then reap
        // under the lock that signal takes.
        var info = siginfo_t()
        while waitid(P_PID, id_t(identifier), &info, WEXITED | WNOWAIT) == -1 && errno == EINTR {}
        return ended.withLock { termination in
            if let termination { return termination }
            if takesSignals { SignalForwarding.release() }  // before the identifier is free to be taken again
            var raw: Int32 = 0
            var usage = rusage()
            var reaped: pid_t = -1
            repeat { reaped = wait4(identifier, &raw, 0, &usage) } while reaped == -1 && errno == EINTR
            guard reaped == identifier else {
                // Reaped elsewhere (this process ignores SIGCHLD, or another waiter took it): the status is lost,
                // and a lost status is never reported as success.
                let lost = Termination(status: 255, signalled: false, peakResidentKilobytes: 0)
                termination = lost
                return lost
            }
            let signalled = (raw & 0x7F) != 0
            let ending = Termination(
                status: signalled ? raw & 0x7F : (raw >> 8) & 0xFF, signalled: signalled, peakResidentKilobytes: Int(usage.ru_maxrss))
            termination = ending
            if takesSignals { SignalForwarding.childEnded(ending) }
            return ending
        }
    }

    /// Waits for the child to end on a thread of its own, holding no thread of Swift's cooperative pool.
    ///
    /// A thread of its own, not `DispatchQueue.global()`: on Linux that queue's few threads (as many as the
    /// cores) are the cooperative pool's too, so children waited on there could starve every other task.
    /// - Returns: How it ended.
    package func exited() async -> Termination {
        await Self.onOwnThread { self.wait() }
    }

    /// Runs `body` on a new thread and returns its result without holding a cooperative thread meanwhile.
    package static func onOwnThread<Result: Sendable>(_ body: @escaping @Sendable () -> Result) async -> Result {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: body()) }.start()
        }
    }
}

extension ChildProcess: CustomStringConvertible {
    /// The program and its identifier (never its arguments or environment, which may carry secrets).
    package var description: String { "\(program) (pid \(identifier))" }
}
