#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Signals sent to this process passed on to one child while it runs: `kill <onetap>` (or `timeout`, a supervisor, a
/// CI job's cancel) reaches the tool `onetap` runs, instead of ending `onetap` and leaving the tool running with no one
/// reading its output.
///
/// One child at a time per process: a second child asked to take signals while one does is refused (its caller goes
/// on without). A signal this process ignores (`nohup`, a background job's `SIGINT`) stays ignored. The handler is
/// installed from ``claim(_:)`` (before the child is started, so no signal falls between its start and its taking
/// them: one that comes then is held and sent once it has started) to ``release()``, which puts back what was there.
/// The handler does only what a signal handler may: atomic loads and stores, `kill`, `signal`, `raise`, and
/// `errno` kept as it was.
enum SignalForwarding {
    /// The child that takes forwarded signals: 0 when none does, ``starting`` while one is being started.
    private static let target = Atomic<Int32>(0)
    /// A signal that came while the child was being started, sent to it once it has (0 for none).
    private static let held = Atomic<Int32>(0)
    /// The last signal passed on to a child (0 for none): what this process then ends by, as the child did.
    private static let passed = Atomic<Int32>(0)
    /// The ``target`` while a child is being started.
    private static let starting: Int32 = -1
    /// The actions the handler replaced, put back by ``release()``.
    private static let replaced = Mutex<[(signal: Int32, action: sigaction)]>([])

    /// Installs the handler for `signals` (those this process does not ignore), for a child about to be started.
    /// - Parameter signals: The signals (`SIGTERM`, `SIGINT`, `SIGHUP`).
    /// - Returns: Whether this caller's child will take them: false when another child of this process does.
    static func claim(_ signals: [Int32]) -> Bool {
        // The atomics are made before any handler can read them (a global's first use is not safe in a handler).
        _ = held.load(ordering: .sequentiallyConsistent)
        _ = passed.load(ordering: .sequentiallyConsistent)
        guard target.compareExchange(expected: 0, desired: starting, ordering: .sequentiallyConsistent).exchanged else { return false }
        replaced.withLock { replaced in
            for number in signals {
                var old = sigaction()
                guard sigaction(number, nil, &old) == 0, !Self.isIgnored(old) else { continue }  // ignored stays ignored
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
        if number != 0 {
            passed.store(number, ordering: .sequentiallyConsistent)
            _ = kill(child, number)
        }
    }

    /// Stops passing signals on (before the child is reaped, so none reaches a process that took its identifier, or
    /// when it could not be started) and puts back the actions the handler replaced. A signal held for a child that
    /// never started ends this process, as it would have without the handler.
    static func release() {
        guard target.exchange(0, ordering: .sequentiallyConsistent) != 0 else { return }
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

    /// Ends this process by a signal at its default action. Sent to the process, not raised on this thread: the threads
    /// of Swift's pool block signals, and one raised there would wait for ever. Returns only if no thread of the
    /// process takes it within a second.
    /// - Parameter number: The signal.
    static func endThisProcess(by number: Int32) {
        _ = signal(number, SIG_DFL)
        _ = kill(getpid(), number)
        for _ in 0..<100 { usleep(10_000) }
    }

    /// The last signal passed on to a child, or nil when none was.
    static var lastPassedOn: Int32? {
        let number = passed.load(ordering: .sequentiallyConsistent)
        return number == 0 ? nil : number
    }

    /// Whether an action ignores its signal.
    private static func isIgnored(_ action: sigaction) -> Bool {
        unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
    }

    /// The handler: passes the signal on to the child, holds it while the child starts, or, with none (a signal that
    /// came as forwarding ended), puts back the default action and raises it.
    private static func deliver(_ number: Int32) {
        let saved = errno
        defer { errno = saved }
        let child = target.load(ordering: .sequentiallyConsistent)
        if child > 0 {
            passed.store(number, ordering: .sequentiallyConsistent)
            _ = kill(child, number)
        } else if child == starting {
            held.store(number, ordering: .sequentiallyConsistent)
            // Started meanwhile: `attach` may have looked before the store; sending twice is harmless.
            let started = target.load(ordering: .sequentiallyConsistent)
            if started > 0, held.exchange(0, ordering: .sequentiallyConsistent) != 0 {
                passed.store(number, ordering: .sequentiallyConsistent)
                _ = kill(started, number)
            }
        } else {
            _ = signal(number, SIG_DFL)
            _ = raise(number)
        }
    }
}
