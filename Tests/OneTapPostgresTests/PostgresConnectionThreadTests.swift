import Dispatch
import Foundation
@testable import OneTapPostgres
import Testing

/// `PostgresConnectionThread`: each connection's connecting (and, without a `PostgresSocketWaiter`, its waits for the
/// server) on a thread of its own.
@Suite struct PostgresConnectionThreadTests {
    /// An attacker's read of the PostgreSQL layer: each connection ran on a serial dispatch queue, and libdispatch gives
    /// serial queues at most 255 threads a process, where a pool holds up to 1,000 connections: past 255 connections
    /// waiting on their sockets, the next connection's work waited for a thread, with no time limit running (255
    /// queues of this machine's libdispatch started, of 300). 300 connection threads each blocked, a 301st still runs
    /// its work at once.
    @Test(.timeLimit(.minutes(3))) func threeHundredBlockedConnectionsHoldUpNoOther() async {
        let gate = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let threads = (0..<300).map { _ in PostgresConnectionThread() }
        for thread in threads { thread.submit { started.signal(); gate.wait() } }
        var running = 0
        while running < 300, started.wait(timeout: .now() + 10) == .success { running += 1 }
        #expect(running == 300)
        let another = PostgresConnectionThread()
        let ran = DispatchSemaphore(value: 0)
        another.submit { ran.signal() }
        #expect(ran.wait(timeout: .now() + 10) == .success, "the 301st connection's work ran")
        for _ in threads { gate.signal() }
        for thread in threads + [another] { thread.stop() }
    }

    /// Jobs run one at a time in the order given, on the thread named for connections, and `stop` ends it after them.
    @Test func jobsRunInOrderOnTheConnectionsThread() {
        let thread = PostgresConnectionThread()
        let seen = LockedOrder()
        let done = DispatchSemaphore(value: 0)
        for index in 0..<100 { thread.submit { seen.append(index, onConnectionThread: PostgresConnectionThread.isCurrent) } }
        thread.submit { done.signal() }
        thread.stop()
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(seen.values == Array(0..<100))
        #expect(seen.allOnConnectionThread)
        #expect(!PostgresConnectionThread.isCurrent)
    }
}

/// What the jobs saw, in order.
private final class LockedOrder: @unchecked Sendable {
    private let lock = NSLock()
    private var order: [Int] = []
    private var onThread = true

    func append(_ value: Int, onConnectionThread: Bool) {
        lock.withLock {
            order.append(value)
            onThread = onThread && onConnectionThread
        }
    }

    var values: [Int] { lock.withLock { order } }
    var allOnConnectionThread: Bool { lock.withLock { onThread } }
}
