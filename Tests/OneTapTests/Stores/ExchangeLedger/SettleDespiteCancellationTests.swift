import Foundation
import OneTapTesting
import Testing
@testable import OneTap

/// A write that must land for a cancelled caller (the end of a paid call) runs where no cancellation reaches it,
/// whether the caller was cancelled before it began or while it ran.
@Suite(.timeLimit(.minutes(3))) struct SettleDespiteCancellationTests {
    /// What the write saw: whether its task was cancelled when it went on.
    final class Seen: @unchecked Sendable {
        let entered = Gate()
        let proceed = Gate()
        let cancelled = LockedValue<Bool?>(nil)
    }

    /// An attacker's read: the caller passed the check for cancellation, began the write (a pool waiting for a
    /// connection under load), and was cancelled then (its client went away): the write ran in the caller's task,
    /// saw the cancellation and gave up, and the paid call's answer stayed unwritten.
    @Test func aCallerCancelledWhileTheWriteRunsDoesNotCancelIt() async throws {
        let seen = Seen()
        let caller = Task {
            try await writeDespiteCancellation {
                seen.entered.open()
                await seen.proceed.wait()
                seen.cancelled.withLock { $0 = Task.isCancelled }
                try Task.checkCancellation()
                return 42
            }
        }
        await seen.entered.wait()
        caller.cancel()
        seen.proceed.open()
        #expect(try await caller.value == 42)
        #expect(seen.cancelled.withLock { $0 } == false)
    }

    @Test func aCallerCancelledBeforeTheWriteDoesNotCancelIt() async throws {
        let caller = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await writeDespiteCancellation { () async throws -> Bool in
                try Task.checkCancellation()
                return true
            }
        }
        #expect(try await caller.value)
    }
}
