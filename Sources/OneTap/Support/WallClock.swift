/// The source of time for everything in OneTap that reads the time or waits: token ages and expiry,
/// provider timeouts, refresh back-off, channel-health cool-downs.
///
/// Nothing in OneTap calls `Date()` or sleeps on its own; it asks the clock it was given. Production
/// code uses ``SystemClock``; tests use `FakeClock` from `OneTapTesting`, which only moves when told to.
public protocol WallClock: Sendable {
    /// The current wall-clock time.
    /// - Returns: Now, as this clock sees it.
    func now() -> Date

    /// Suspends the calling task for `duration` of this clock's time.
    /// - Parameter duration: How long to wait; zero or negative returns at once.
    /// - Throws: `CancellationError` if the task is cancelled while waiting.
    func sleep(for duration: Duration) async throws
}

/// The real clock: `Date()` for the time, `ContinuousClock` for waiting.
public struct SystemClock: WallClock {
    /// Creates the system clock.
    public init() {}

    /// The current wall-clock time.
    /// - Returns: `Date()`.
    public func now() -> Date { Date() }

    /// Waits on `ContinuousClock`, which keeps counting while the machine sleeps.
    /// - Parameter duration: How long to wait.
    /// - Throws: `CancellationError` if the task is cancelled while waiting.
    public func sleep(for duration: Duration) async throws {
        guard duration > .zero else {
            try Task.checkCancellation()
            return
        }
        try await ContinuousClock().sleep(for: duration)
    }
}
