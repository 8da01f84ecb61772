import Dispatch
import Foundation
import OneTap

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The thread a ``PostgresConnection`` connects on (libpq may resolve the host name, which blocks, and waits for the
/// server up to the connect timeout), and where the process has no ``PostgresSocketWaiter``, waits for its statements'
/// answers on: one for each connection, for its whole life.
///
/// A thread of its own rather than a serial dispatch queue: a connection waiting on its socket (`poll(2)`, up to the
/// statement timeout and 2 s more) holds its thread, and libdispatch gives serial queues at most 255 threads a
/// process, shared with every other queue, where a pool may hold 1,000 connections. Past that cap, work waited for a
/// thread with no time limit running, and a connection holding rows locked in a transaction could not send its next
/// statement. Jobs run one at a time, in the order given, off Swift's cooperative pool.
final class PostgresConnectionThread: Sendable {
    private let jobs = LockedValue(FIFOQueue<@Sendable () -> Void>())
    private let ready = DispatchSemaphore(value: 0)

    /// Starts the thread.
    init() {
        let (jobs, ready) = (jobs, ready)
        let thread = Thread {
            Thread.current.name = "onetap-pg"  // for debuggers (a thread's name holds 15 bytes on Linux)
            pthread_setspecific(Self.marker, UnsafeRawPointer(bitPattern: 1))
            while true {
                ready.wait()
                // A wake-up with no job is ``stop()``'s: every job given before it has run.
                guard let job = jobs.withLock({ $0.popFirst() }) else { return }
                job()
            }
        }
        thread.start()
    }

    /// Whether the caller runs on a connection's thread (tests check that jobs run there).
    static var isCurrent: Bool { pthread_getspecific(marker) != nil }

    /// Set on every connection's thread.
    private static let marker: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// Runs `job` on the thread after the jobs given before it, and returns at once.
    /// - Parameter job: The work.
    func submit(_ job: @escaping @Sendable () -> Void) {
        jobs.withLock { $0.append(job) }
        ready.signal()
    }

    /// Ends the thread once the jobs given before have run (its connection is gone: none come after).
    func stop() {
        ready.signal()
    }
}
