import Foundation
import OneTap

/// A clock on which each reading is a step after the last, and a pause takes no time of its own: time passes
/// between any two steps of a request, and work whose every attempt is slow (a loaded database, a busy disk)
/// for waits that must count the attempts' own time.
package final class TickingClock: WallClock {
    private let state: LockedValue<(now: Date, pauses: Int)>
    private let step: TimeInterval

    /// Creates a clock.
    /// - Parameters:
    ///   - start: The reading before the first.
    ///   - step: How far each reading is after the last; a second.
    package init(start: Date = Date(timeIntervalSince1970: 1_796_083_200), step: Duration = .seconds(1)) {
        state = LockedValue((start, 0))
        self.step = step.seconds
    }

    /// How many pauses were asked for.
    package var pauses: Int { state.withLock { $0.pauses } }

    /// The next reading: a step after the last.
    /// - Returns: The time.
    package func now() -> Date {
        state.withLock { state in
            state.now = state.now.addingTimeInterval(step)
            return state.now
        }
    }

    /// Counts a pause, which takes no time.
    /// - Parameter duration: Ignored.
    package func sleep(for duration: Duration) async throws {
        state.withLock { $0.pauses += 1 }
    }
}
