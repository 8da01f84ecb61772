import Foundation

/// How a store waits for a lock another instance or process holds: poll, pause on the injected clock, and give
/// up once the time-out has passed. The time-out ends at whichever comes first, the pauses' sum or the time the
/// clock says passed since the wait began: attempts that are slow themselves (a loaded database, a busy disk)
/// count too, and a clock set back cannot stretch the wait past the pauses.
package struct LockWait {
    private let clock: any WallClock
    private let timeout: Duration
    private let started: Date
    private var paused = Duration.zero

    /// Begins a wait, now on `clock`.
    /// - Parameters:
    ///   - timeout: How long to wait at most.
    ///   - clock: The clock to pause and read on.
    package init(timeout: Duration, clock: any WallClock) {
        self.clock = clock
        self.timeout = timeout
        started = clock.now()
    }

    /// Whether the wait is over: the pauses' sum reached the time-out, or the clock says it passed.
    package var isOver: Bool {
        paused >= timeout || clock.now().timeIntervalSince(started) >= timeout.seconds
    }

    /// Pauses before the next attempt.
    /// - Parameter poll: How long.
    /// - Throws: `CancellationError` when the task is cancelled.
    package mutating func pause(_ poll: Duration) async throws {
        try await clock.sleep(for: poll)
        paused += poll
    }
}
