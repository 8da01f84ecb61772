import Dispatch
import Foundation
@testable import OneTap
import Testing

@Suite struct BlockingIOTests {
    /// Calls blocked on a slow disk hold up no other call: sixteen calls (eight times this machine's two cores) all run
    /// at once, each on a thread of its own, and each sees the runner's label. Before (a reviewer's read), the calls
    /// shared a concurrent queue's pool of about one thread per core: two ran, the rest waited for libdispatch to add
    /// threads, one a second. The bound, 5 s, is far above sixteen threads' start.
    @Test func blockedCallsHoldUpNoOtherCall() async throws {
        let io = BlockingIO(label: "onetap.test-blocking-io")
        let blocked = 16
        let gate = DispatchSemaphore(value: 0)
        let allStarted = DispatchSemaphore(value: 0)
        let started = LockedValue(0)
        let labels = LockedValue<Set<String>>([])
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<blocked {
                group.addTask {
                    await io.run {
                        labels.withLock { _ = $0.insert(BlockingIO.currentLabel ?? "not a OneTap I/O thread") }
                        if started.withLock({ $0 += 1; return $0 }) == blocked { allStarted.signal() }
                        gate.wait()
                    }
                }
            }
            // Waited for on a thread of its own: the test's task never blocks the cooperative pool.
            let allRan = await withCheckedContinuation { continuation in
                Thread.detachNewThread { continuation.resume(returning: allStarted.wait(timeout: .now() + 5) == .success) }
            }
            #expect(allRan, "only \(started.withLock { $0 }) of \(blocked) blocked calls ran within 5 s")
            for _ in 0..<blocked { gate.signal() }
            await group.waitForAll()
        }
        #expect(labels.withLock { $0 } == ["onetap.test-blocking-io"])
    }
}
