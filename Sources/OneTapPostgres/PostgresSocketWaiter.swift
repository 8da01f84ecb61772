import CLibPQ
import Foundation
import OneTap

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One thread that waits on the sockets of every PostgreSQL connection of the process at once, with `epoll(7)`, and
/// resumes the statement whose socket is ready, or whose deadline passed.
///
/// A statement is sent from its caller's thread (libpq's calls on a non-blocking connection return at once) and waits
/// here for its answer, off Swift's cooperative pool: a connection of its own thread made each statement two thread
/// hops (to the connection's thread, and back), and on a busy machine each hop is a context switch the database's
/// processes wait behind. Watching a socket is an `epoll_ctl(2)` from the waiting thread; the waiter's thread wakes when
/// a socket is ready, a deadline passes, a statement's deadline comes before the thread would wake (an `eventfd` write),
/// or a second after its last work, and handles every socket ready at once in one wake-up.
///
/// Only on Linux; elsewhere (and when the kernel refuses an epoll instance or an eventfd), ``shared`` is nil and a
/// connection waits on its own thread with `poll(2)`, as it connects. A process that forks after its first statement
/// leaves its child without the waiter's thread (`fork(2)` copies only the calling thread): there, ``wait(_:for:until:)``
/// answers nil, and the child's connections wait on their own threads.
package final class PostgresSocketWaiter: Sendable {
    /// The process's waiter, made at first use; nil where there is none (see the type's summary).
    package static let shared: PostgresSocketWaiter? = PostgresSocketWaiter()

    /// The name of the waiter's thread (a thread's name holds 15 bytes on Linux).
    static let threadName = "onetap-pg-wait"

    /// A statement waiting for its socket.
    private struct Waiting {
        /// The waiting statement's task, resumed once.
        let continuation: CheckedContinuation<Bool?, Never>
        /// When it stops waiting, on ``Monotonic``.
        let deadline: UInt64
        /// The `poll(2)` events it waits for (asked once more when the deadline passes).
        let events: Int16
    }

    private struct State {
        /// The waiting statements by socket: a connection runs one statement at a time.
        var waiting: [Int32: Waiting] = [:]
        /// When the waiter's thread wakes at the latest (its earliest deadline when it went to sleep, a second after
        /// its last work, or never when idle): a statement whose deadline comes sooner wakes it.
        var wakesAt: UInt64 = .max
    }

    private let state = LockedValue(State())
    #if os(Linux)
    private let epoll: Int32
    /// Written to wake the thread when a statement's deadline comes before it would wake.
    private let wakeUp: Int32
    /// The process whose thread waits (a child forked after it has none).
    private let owner = getpid()

    /// Starts a waiter and its thread, which lives as long as the process: ``shared`` is the one connections use
    /// (tests make their own, to know what it waits on).
    /// - Parameter restsAfterWork: Whether the thread, with nothing waiting, sleeps a second at most after work before
    ///   it sleeps until woken (true: the next statements then need not wake it); tests of the wake-up turn it off.
    /// - Returns: Nil when the kernel refuses an epoll instance or an eventfd (out of file descriptors).
    init?(restsAfterWork: Bool = true) {
        let epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epoll >= 0 else { return nil }
        let wakeUp = eventfd(0, Int32(EFD_CLOEXEC) | Int32(EFD_NONBLOCK))
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.fd = wakeUp
        guard wakeUp >= 0, epoll_ctl(epoll, EPOLL_CTL_ADD, wakeUp, &event) == 0 else {
            close(epoll)
            if wakeUp >= 0 { close(wakeUp) }
            return nil
        }
        self.epoll = epoll
        self.wakeUp = wakeUp
        let thread = Thread { [state] in
            Thread.current.name = Self.threadName
            Self.loop(state: state, epoll: epoll, wakeUp: wakeUp, restsAfterWork: restsAfterWork)
        }
        thread.start()
    }
    #else
    /// No waiter: a connection waits on its own thread.
    /// - Parameter restsAfterWork: Unused.
    init?(restsAfterWork: Bool = true) { return nil }
    #endif

    /// Whether a statement waits on `socket` now (tests).
    /// - Parameter socket: The socket.
    /// - Returns: True from its ``wait(_:for:until:)`` call's start until it is resumed.
    func isWaiting(on socket: Int32) -> Bool { state.withLock { $0.waiting[socket] != nil } }

    /// Waits until `socket` is ready for `events` or `deadline` passes. Past the deadline the socket is asked once more,
    /// without waiting: an answer that came while nothing ran is taken, not thrown away as a time-out.
    /// - Parameters:
    ///   - socket: The connection's socket; no other statement waits on it (a wait on a socket that has one already
    ///     ends that one, as if its socket were ready, rather than leave it waiting for ever; unless the kernel refuses
    ///     the socket, when that one waits on to its deadline).
    ///   - events: `POLLIN`, `POLLOUT` or both.
    ///   - deadline: When to stop waiting, on ``Monotonic``.
    /// - Returns: False when the deadline passed with the socket not ready; true when it is ready (or may be: a caller
    ///   asks libpq again, which waits again when nothing came); nil, at once, when the kernel would not watch the
    ///   socket (`epoll_ctl(2)` refused it: `ENOSPC` past `fs.epoll.max_user_watches`, `ENOMEM`) or the process is a
    ///   child forked after the waiter began, so the caller waits another way.
    func wait(_ socket: Int32, for events: Int16, until deadline: UInt64) async -> Bool? {
        #if os(Linux)
        guard getpid() == owner else { return nil }
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool?, Never>) in
            var event = epoll_event()
            event.events = EPOLLONESHOT.rawValue | (events & Int16(POLLIN) != 0 ? EPOLLIN.rawValue : 0)
                | (events & Int16(POLLOUT) != 0 ? EPOLLOUT.rawValue : 0)
            event.data.fd = socket
            // Registered and armed under the lock, so the waiter's thread never resumes a wait before its socket is
            // armed (a wait resumed at once, its socket closed and its number reused, would arm another's socket).
            let (armed, displaced, wake) = state.withLock { state -> (Bool, Waiting?, Bool) in
                // Armed once per wait (one-shot): modified when the socket is known, added the first time. The kernel
                // knows a socket by its number and its open file: a new socket under a closed one's number is added.
                guard epoll_ctl(epoll, EPOLL_CTL_MOD, socket, &event) == 0
                    || (errno == ENOENT && epoll_ctl(epoll, EPOLL_CTL_ADD, socket, &event) == 0)
                else { return (false, nil, false) }
                let displaced = state.waiting.updateValue(Waiting(continuation: continuation, deadline: deadline, events: events), forKey: socket)
                guard deadline < state.wakesAt else { return (true, displaced, false) }
                state.wakesAt = deadline
                return (true, displaced, true)
            }
            displaced?.continuation.resume(returning: true)
            guard armed else {
                continuation.resume(returning: nil)
                return
            }
            if wake {
                var one: UInt64 = 1
                _ = Glibc.write(wakeUp, &one, 8)
            }
        }
        #else
        nil
        #endif
    }

    #if os(Linux)
    /// The waiter's thread: sleeps until a socket is ready or the earliest deadline, then resumes whom it concerns.
    /// - Parameters:
    ///   - state: The waiting statements.
    ///   - epoll: The epoll instance watching their sockets.
    ///   - wakeUp: The eventfd a sooner deadline is written to.
    ///   - restsAfterWork: Whether the thread, with nothing waiting, sleeps a second at most after work.
    private static func loop(state: LockedValue<State>, epoll: Int32, wakeUp: Int32, restsAfterWork: Bool) {
        let capacity = 64
        let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: capacity)
        defer { events.deallocate() }
        /// Whether the last sleep ended with nothing waiting and nothing ready.
        var idle = false
        while true {
            let timeout = state.withLock { state -> Int32 in
                let now = Monotonic.now
                var earliest = UInt64.max
                for waiting in state.waiting.values where waiting.deadline < earliest { earliest = waiting.deadline }
                if earliest == .max {
                    // Nothing waits. Fresh from work, sleep a second at most: a statement's first wait has its deadline
                    // ``PostgresConnection/answerGrace`` away at least, so the next statements need not wake this
                    // thread to say theirs (a write and a context switch each, at one connection); one that must
                    // (a later wait of a statement, nearer its deadline), wakes it. Idle a second already, sleep until
                    // woken.
                    guard !idle && restsAfterWork else {
                        state.wakesAt = .max
                        return -1
                    }
                    earliest = now + 1_000_000_000
                }
                state.wakesAt = earliest
                return Monotonic.milliseconds(until: earliest)
            }
            let count = epoll_wait(epoll, events, Int32(capacity), timeout)
            idle = count == 0 && state.withLock { $0.waiting.isEmpty }
            var ready: [CheckedContinuation<Bool?, Never>] = []
            var expired: [(socket: Int32, waiting: Waiting)] = []
            state.withLock { state in
                for index in 0..<Int(max(0, count)) {
                    let socket = events[index].data.fd
                    if socket == wakeUp {
                        var value: UInt64 = 0
                        _ = Glibc.read(wakeUp, &value, 8)
                    } else if let waiting = state.waiting.removeValue(forKey: socket) {
                        ready.append(waiting.continuation)
                    }
                }
                let now = Monotonic.now
                for (socket, waiting) in state.waiting where waiting.deadline <= now { expired.append((socket, waiting)) }
                for (socket, _) in expired { state.waiting[socket] = nil }
            }
            for continuation in ready { continuation.resume(returning: true) }
            // Past its deadline a socket is asked once more without waiting (the connection's own wait, whose rule it is).
            for (socket, waiting) in expired {
                waiting.continuation.resume(returning: PostgresConnection.wait(socket, for: waiting.events, until: waiting.deadline))
            }
        }
    }
    #endif
}
