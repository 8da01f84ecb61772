/// The time limits on one refresh call: its callers are answered at ``limit`` even when the carrier is
/// slow, and a call that goes on ``lateAnswerLimit`` longer is cancelled. Between the two, the call's
/// **late answer** is still awaited (and stored by the refresh, since the carrier may have rotated the
/// refresh token).
///
/// States of one call run by ``run(_:atLimit:)``:
/// - **calling** → **answered** when the call ends first: the time limit is cancelled.
/// - calling → **late** when ``limit`` passes first: `atLimit` runs once (it answers the callers and
///   counts the failure), and the call goes on.
/// - late → **answered** when the call ends before ``lateAnswerLimit`` passes.
/// - late → **abandoned** when it does not: the call is cancelled and left, not awaited (a call that
///   ignores its cancellation, a carrier SDK whose callback has no cancellation handler, would otherwise
///   hold its account and the vault's shutdown for ever); if it ends after all, its answer is handled as
///   any late answer (idempotently).
/// - Cancelling the task running it cancels the call: it ends **answered** once the call has given up,
///   or **abandoned** at the limits if it does not.
///
/// With no ``limit`` the call runs until it ends (and no clock sleeps).
package struct RefreshDeadline: Sendable {
    /// How a call ended.
    package enum Ending: Hashable, Sendable {
        /// The call ended by itself (or was cancelled from outside).
        case answered
        /// The call ran past both limits and was cancelled.
        case abandoned
    }

    /// How long callers wait for the call; nil for as long as it takes.
    package let limit: Duration?
    /// How long the call may go on after ``limit`` before it is cancelled.
    package let lateAnswerLimit: Duration
    /// The clock the limits are measured on.
    package let clock: any WallClock

    /// Creates the limits.
    /// - Parameters:
    ///   - limit: The callers' limit; nil for none.
    ///   - lateAnswerLimit: How long a late call may go on.
    ///   - clock: The clock.
    package init(limit: Duration?, lateAnswerLimit: Duration, clock: any WallClock) {
        self.limit = limit
        self.lateAnswerLimit = lateAnswerLimit
        self.clock = clock
    }

    /// Runs a call under the limits.
    /// - Parameters:
    ///   - call: The refresh call; it answers its callers itself when it ends.
    ///   - atLimit: What happens when ``limit`` passes before the call ends; runs at most once.
    /// - Returns: Whether the call ended or was abandoned.
    package func run(_ call: @escaping @Sendable () async -> Void, atLimit: @escaping @Sendable () async -> Void) async -> Ending {
        let limit = self.limit
        let late = lateAnswerLimit
        let clock = self.clock
        // The call answers `.answered`; the limits answer `.abandoned` once both have passed. Each runs in a
        // task of its own, raced through `FirstResult`, so a call that never returns is left, not awaited.
        let first = FirstResult<Ending>()
        let work = Task {
            await call()
            _ = first.resume(.success(.answered))
        }
        let limits: Task<Void, Never>? = limit.map { limit in
            Task {
                do { try await clock.sleep(for: limit) } catch { return }
                await atLimit()
                do { try await clock.sleep(for: late) } catch { return }
                _ = first.resume(.success(.abandoned))
            }
        }
        let ending: Ending = await withTaskCancellationHandler { () async -> Ending in
            switch await first.wait() {
            case .success(let ending): return ending
            case .failure: return .answered
            }
        } onCancel: {
            work.cancel()
        }
        if ending == .abandoned { work.cancel() } else { limits?.cancel() }
        return ending
    }
}
