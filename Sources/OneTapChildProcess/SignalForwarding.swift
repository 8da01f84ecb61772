#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Signals sent to this process passed on to one child while it runs, as a shell's `exec` would leave them: `kill
/// <onetap>` (or `timeout`, a supervisor, a CI job's cancel) reaches the tool `onetap` runs, instead of ending
/// `onetap` and leaving the tool running with no one to read its output.
///
/// One child at a time per process: a second child asked to take signals while one does is refused (its caller
/// goes on without). While no child takes them, a signal this process gets does what it did before (its default
/// action: the handler puts that back and raises the signal again), so installing the handler changes nothing else.
/// The handler does only what a signal handler may: an atomic load and store, `kill`, `signal` and `raise`.
enum SignalForwarding {
    /// The child that takes forwarded signals, or 0 when none does.
    private static let target = Atomic<Int32>(0)

    /// Makes `child` take `signals` sent to this process until ``end(_:)``.
    /// - Parameters:
    ///   - signals: The signals (`SIGTERM`, `SIGINT`, `SIGHUP`); the handler is installed for each anew (a signal
    ///     that came while no child took it put its default action back).
    ///   - child: The child's process identifier.
    /// - Returns: Whether it takes them: false when another child of this process does.
    static func begin(_ signals: [Int32], to child: pid_t) -> Bool {
        // The atomic is made before any handler can read it (a global's first use is not safe in a handler).
        guard target.compareExchange(expected: 0, desired: child, ordering: .sequentiallyConsistent).exchanged else { return false }
        for number in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in SignalForwarding.deliver(number) }
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            _ = sigaction(number, &action, nil)   // a number that is no signal is refused, and left alone
        }
        return true
    }

    /// Ends forwarding to `child` (before it is reaped, so a signal never reaches a process that took its identifier).
    /// - Parameter child: The child given to ``begin(_:to:)``.
    static func end(_ child: pid_t) {
        _ = target.compareExchange(expected: child, desired: 0, ordering: .sequentiallyConsistent)
    }

    /// The handler: passes the signal on to the child, or, with none, puts back the default action and raises it.
    private static func deliver(_ number: Int32) {
        let child = target.load(ordering: .sequentiallyConsistent)
        if child > 0 {
            _ = kill(child, number)
        } else {
            _ = signal(number, SIG_DFL)
            _ = raise(number)
        }
    }
}
