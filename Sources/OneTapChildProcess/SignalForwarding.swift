#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Signals sent to this process passed on to one child while it runs: `kill <onetap>` (or `timeout`, a supervisor, a
/// CI job's cancel) reaches the tool `onetap` runs, instead of ending `onetap` and leaving the tool running with no one
/// reading its output.
///
/// One child at a time per process: a second child asked to take signals while one does is refused (its caller goes
/// on without). A signal this process ignores (`nohup`, a background job's `SIGINT`) stays ignored, by this process and
/// by the child (``ignored(_:)``). The handler is installed from ``claim(_:)`` (before the child is started, so no
/// signal falls between its start and its taking them: one that comes then is held and sent once it has) to
/// ``release()``, which waits out a handler still running and puts back what was there. The handler does only what a
/// signal handler may: atomic loads, stores and exchanges, `kill`, `signal`, `raise`, and `errno` kept as it was.
enum SignalForwarding {
    /// The child that takes forwarded signals: 0 when none does, ``starting`` while one is being started.
    private static let target = Atomic<Int32>(0)
    /// A signal that came while the child was being started, sent to it once it has (0 for none).
    private static let held = Atomic<Int32>(0)
    /// The signals passed on to the child that takes them (or took them last), a bit each.
    private static let passed = Atomic<UInt64>(0)
    /// The signal a child that took signals ended by, when it was one passed on to it (0 for none).
    private static let endedBy = Atomic<Int32>(0)
    /// How many runs of the handler are under way: ``release()`` waits for none before the child is reaped.
    private static let delivering = Atomic<Int32>(0)
    /// The ``target`` while a child is being started.
    private static let starting: Int32 = -1
    /// The actions the handler replaced, put back by ``release()``.
    private static let replaced = Mutex<[(signal: Int32, action: sigaction)]>([])

    /// The signals of `signals` this process ignores now: a child started to take them keeps ignoring them.
    /// - Parameter signals: The signals.
    /// - Returns: Those whose action is "ignore".
    static func ignored(_ signals: [Int32]) -> [Int32] {
        signals.filter { number in
            var action = sigaction()
            return sigaction(number, nil, &action) == 0 && isIgnored(action)
        }
    }

    /// Installs the handler for `signals` (those this process does not ignore), for a child about to be started.
    /// - Parameter signals: The signals (`SIGTERM`, `SIGINT`, `SIGHUP`).
    /// - Returns: Whether this caller's child will take them: false when another child of this process does.
    static func claim(_ signals: [Int32]) -> Bool {
        // Every atomic is used before any handler can read it (a global's first use is not safe in a handler).
        _ = delivering.load(ordering: .sequentiallyConsistent)
        guard target.compareExchange(expected: 0, desired: starting, ordering: .sequentiallyConsistent).exchanged else { return false }
        // This child's own record: nothing passed on to an earlier one counts for it.
        held.store(0, ordering: .sequentiallyConsistent)
        passed.store(0, ordering: .sequentiallyConsistent)
        endedBy.store(0, ordering: .sequentiallyConsistent)
        replaced.withLock { replaced in
            for number in signals {
                var old = sigaction()
                guard sigaction(number, nil, &old) == 0, !isIgnored(old) else { continue }  // ignored stays ignored
                var action = sigaction()
                action.__sigaction_handler.sa_handler = { number in SignalForwarding.deliver(number) }
                sigemptyset(&action.sa_mask)
                action.sa_flags = SA_RESTART
                if sigaction(number, &action, nil) == 0 { replaced.append((number, old)) }
            }
        }
        return true
    }

    /// Makes the started child take the signals claimed for it, and sends it one that came while it started.
    /// - Parameter child: The child's process identifier.
    static func attach(_ child: pid_t) {
        target.store(child, ordering: .sequentiallyConsistent)
        let number = held.exchange(0, ordering: .sequentiallyConsistent)
        if number != 0 { pass(number, to: child) }
    }

    /// Stops passing signals on (before the child is reaped, waiting out a handler still sending one, so none reaches a
    /// process that took its identifier; or when it could not be started) and puts back the actions the handler
    /// replaced. A signal held for a child that never started ends this process, as it would have without the handler.
    static func release() {
        guard target.exchange(0, ordering: .sequentiallyConsistent) != 0 else { return }
        while delivering.load(ordering: .sequentiallyConsistent) != 0 { sched_yield() }
        let actions = replaced.withLock { replaced in
            defer { replaced.removeAll() }
            return replaced
        }
        for (number, action) in actions {
            var old = action
            _ = sigaction(number, &old, nil)
        }
        let number = held.exchange(0, ordering: .sequentiallyConsistent)
        if number != 0 { endThisProcess(by: number) }
    }

    /// Notes how the child that took signals ended, once it is reaped.
    /// - Parameter termination: How it ended.
    static func childEnded(_ termination: ChildProcess.Termination) {
        let number = termination.status
        guard termination.signalled, number > 0, number < 64, passed.load(ordering: .sequentiallyConsistent) & (1 << UInt64(number)) != 0 else { return }
        endedBy.store(number, ordering: .sequentiallyConsistent)
    }

    /// The signal passed on to the last child that took signals and that it ended by, or nil when it ended otherwise.
    static var childEndedByPassedSignal: Int32? {
        let number = endedBy.load(ordering: .sequentiallyConsistent)
        return number == 0 ? nil : number
    }

    /// Ends this process by a signal at its default action. Sent to the process, not raised on this thread: the threads
    /// of Swift's pool block signals, and one raised there would wait for ever. Returns only if no thread of the
    /// process takes it within a second.
    /// - Parameter number: The signal.
    static func endThisProcess(by number: Int32) {
        _ = signal(number, SIG_DFL)
        _ = kill(getpid(), number)
        for _ in 0..<100 { usleep(10_000) }
    }

    /// Whether an action ignores its signal.
    private static func isIgnored(_ action: sigaction) -> Bool {
        unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
    }

    /// Sends a signal on to the child, noting it.
    private static func pass(_ number: Int32, to child: pid_t) {
        if number > 0, number < 64 { passed.bitwiseOr(1 << UInt64(number), ordering: .sequentiallyConsistent) }
        _ = kill(child, number)
    }

    /// The handler: passes the signal on to the child, holds it while the child starts, or, with none (a signal that
    /// came as forwarding ended), puts back the default action and raises it.
    private static func deliver(_ number: Int32) {
        let saved = errno
        defer { errno = saved }
        delivering.add(1, ordering: .sequentiallyConsistent)
        defer { delivering.subtract(1, ordering: .sequentiallyConsistent) }
        let child = target.load(ordering: .sequentiallyConsistent)
        if child > 0 {
            pass(number, to: child)
            return
        }
        if child == starting {
            held.store(number, ordering: .sequentiallyConsistent)
            // `attach` or `release` may have looked at `held` before this store: whichever of them and this takes it
            // back first acts on it, once.
            let now = target.load(ordering: .sequentiallyConsistent)
            guard now != starting, held.exchange(0, ordering: .sequentiallyConsistent) != 0 else { return }
            if now > 0 {
                pass(number, to: now)
                return
            }
        }
        _ = signal(number, SIG_DFL)
        _ = raise(number)
    }
}

extension ChildProcess {
    /// Ends this process by the signal it passed on to a child (``init(_:_:environment:input:output:errors:forwarding:)``)
    /// that the child then ended by, when `status` is what a shell reports for that (128 plus the signal): a wrapper
    /// stopped through its program ends as the program did. Returns when that is not so.
    /// - Parameter status: The exit status the process would exit with.
    package static func endBySignalPassedOn(ifStatusIs status: Int32) {
        guard let number = SignalForwarding.childEndedByPassedSignal, status == 128 + number else { return }
        SignalForwarding.endThisProcess(by: number)
    }
}
