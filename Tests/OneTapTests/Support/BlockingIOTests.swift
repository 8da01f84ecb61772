import Dispatch
import Foundation
@testable import OneTap
import Testing

@Suite struct BlockingIOTests {
    /// Calls blocked on a slow disk hold up no other call: sixteen calls (eight times this machine's two cores),
    /// submitted at once from one thread, all run at once, each on a thread of its own with the runner's label.
    /// Before (a reviewer's read), the calls shared a concurrent queue's pool of about one thread per core: two ran,
    /// the rest waited for libdispatch to add threads, one a second. Submitted and awaited off Swift's cooperative
    /// pool, so the test waits on no other test's tasks; the bound, 5 s, is far above sixteen threads' start.
    @Test func blockedCallsHoldUpNoOtherCall() async throws {
        let io = BlockingIO(label: "onetap.test-blocking-io")
        let blocked = 16
        let labels = LockedValue<Set<String>>([])
        let allRan = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                let gate = DispatchSemaphore(value: 0)
                let allStarted = DispatchSemaphore(value: 0)
                let ended = DispatchGroup()
                let started = LockedValue(0)
                for _ in 0..<blocked {
                    ended.enter()
                    io.submit {
                        labels.withLock { _ = $0.insert(BlockingIO.currentLabel ?? "not a OneTap I/O thread") }
                        if started.withLock({ $0 += 1; return $0 }) == blocked { allStarted.signal() }
                        gate.wait()
                        ended.leave()
                    }
                }
                let ran = allStarted.wait(timeout: .now() + 5) == .success
                for _ in 0..<blocked { gate.signal() }
                ended.wait()
                continuation.resume(returning: ran)
            }
        }
        #expect(allRan, "not every one of \(blocked) blocked calls ran within 5 s")
        #expect(labels.withLock { $0 } == ["onetap.test-blocking-io"])
    }
}
