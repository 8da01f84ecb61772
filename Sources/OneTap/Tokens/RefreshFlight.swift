/// One refresh of one account's token, and the callers waiting for its answer: the unit of single flight.
///
/// A flight is created by ``SingleFlight/begin(_:from:background:)`` with the stored token it refreshes,
/// queued for ``TokenVault/run()``, and run by the vault under its ``RefreshDeadline``. Its state is kept
/// under a lock, so a caller waits on it (and a cancelled caller leaves it) without the vault's actor.
///
/// States and transitions:
/// - **unresolved**: callers join with ``answer()`` and park. A cancelled caller leaves at once with
///   `CancellationError`; the refresh and the other callers go on. A caller cancelled before it parked is
///   remembered and answered `CancellationError` when it parks.
/// - unresolved → **resolved** by the first ``resolve(_:)``: the refresh's answer, the time limit's (the
///   stored token or `refresh-failed`), or the vault stopping (`not-running`). Every parked caller gets
///   that answer; later callers get it at once; later results are ignored (a late answer still reaches
///   the store, never the callers).
/// - Flags beside the state: **logged out** (``markLoggedOut()``: the refresh brings nothing back),
///   **superseded** (``markSuperseded(by:)``: a login stored a new token, kept for the callers; a failure is the old
///   token's, not the account's),
///   **timed out** (``markTimedOut()``: the time limit answered the callers and counted the failure; the
///   late call goes on), and the **background slot** a flight the scan started holds until it answers or
///   times out (``giveUpBackgroundSlot()``, true once).
package final class RefreshFlight: Sendable {
    /// The account refreshed.
    package let account: AccountID
    /// The stored token the refresh started from (its version tells whether someone wrote meanwhile).
    package let stored: StoredToken
    /// Whether the background scan started it (and so holds one of its slots).
    package let background: Bool

    private struct State {
        var waiters: [Int: CheckedContinuation<AccessToken, any Error>] = [:]
        var nextWaiter = 0
        var left: Set<Int> = []
        var result: Result<AccessToken, any Error>? = nil
        var loggedOut = false
        var supersedingToken: AccessToken? = nil
        var timedOut = false
        var holdsBackgroundSlot = true
        var joins = CountWatch()
    }

    private let state = LockedValue(State())

    /// Creates an unresolved flight.
    /// - Parameters:
    ///   - account: The account.
    ///   - stored: The stored token to refresh.
    ///   - background: Whether the background scan started it.
    package init(_ account: AccountID, from stored: StoredToken, background: Bool) {
        self.account = account
        self.stored = stored
        self.background = background
    }

    /// Whether the callers have their answer.
    package var isResolved: Bool { state.withLock { $0.result != nil } }
    /// Whether the account logged out while the flight was under way.
    package var loggedOut: Bool { state.withLock { $0.loggedOut } }
    /// Whether a login stored a new token while the flight was under way.
    package var superseded: Bool { state.withLock { $0.supersedingToken != nil } }
    /// The token a login stored while the flight was under way (the last, if several did).
    package var supersedingToken: AccessToken? { state.withLock { $0.supersedingToken } }
    /// Whether the time limit answered the callers before the refresh did.
    package var timedOut: Bool { state.withLock { $0.timedOut } }

    /// The account logged out: whatever the refresh brings is discarded.
    package func markLoggedOut() { state.withLock { $0.loggedOut = true } }

    /// A login stored a new token: a failure of this refresh is the old token's, and its callers get the login's.
    /// - Parameter token: The login's token.
    package func markSuperseded(by token: AccessToken) { state.withLock { $0.supersedingToken = token } }

    /// The time limit answered the callers; the refresh call goes on as a late answer.
    package func markTimedOut() { state.withLock { $0.timedOut = true } }

    /// Gives up the flight's background slot.
    /// - Returns: True the first time for a flight that holds one (the scan's count goes down once).
    package func giveUpBackgroundSlot() -> Bool {
        state.withLock { state in
            defer { state.holdsBackgroundSlot = false }
            return background && state.holdsBackgroundSlot
        }
    }

    /// Waits for the flight's answer. Cancelling the caller makes it leave with `CancellationError` at
    /// once; the flight and the other callers go on.
    /// - Returns: The refreshed (or still usable) token.
    /// - Throws: The flight's error, or `CancellationError`.
    package func answer() async throws -> AccessToken {
        let waiter = state.withLock { state -> Int in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                join(waiter, continuation)
            }
        } onCancel: {
            leave(waiter)
        }
    }

    /// Waits for the flight's answer at most `limit` on `clock`: what a caller does while the vault has
    /// not started, so a vault that never runs answers instead of never.
    /// - Parameters:
    ///   - limit: The longest wait.
    ///   - clock: The clock the limit is measured on.
    /// - Returns: The token, or nil when the limit passed first.
    /// - Throws: The flight's error, or `CancellationError`.
    package func answer(within limit: Duration, on clock: any WallClock) async throws -> AccessToken? {
        try await withThrowingTaskGroup(of: AccessToken?.self) { group in
            group.addTask { try await self.answer() }
            group.addTask {
                try await clock.sleep(for: limit)
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next()!
        }
    }

    /// Answers every parked caller, once; later results are ignored.
    /// - Parameter result: The answer.
    package func resolve(_ result: Result<AccessToken, any Error>) {
        let waiters = state.withLock { state -> [CheckedContinuation<AccessToken, any Error>] in
            guard state.result == nil else { return [] }
            state.result = result
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(with: result) }
    }

    /// Waits until `count` callers in all have joined the flight (parked, or answered at once): lets a
    /// test line callers up before the answer instead of guessing with `Task.yield()`.
    /// - Parameter count: How many joins to wait for.
    package func waitForCallers(_ count: Int) async {
        await state.wait(until: count, on: \.joins)
    }

    /// Parks a caller, or answers it at once when the flight is resolved or the caller already left.
    private func join(_ waiter: Int, _ continuation: CheckedContinuation<AccessToken, any Error>) {
        let (answer, watchers) = state.withLock { state -> (Result<AccessToken, any Error>?, [CheckedContinuation<Bool, Never>]) in
            let watchers = state.joins.increment()
            if let result = state.result { return (result, watchers) }
            if state.left.remove(waiter) != nil { return (.failure(CancellationError()), watchers) }
            state.waiters[waiter] = continuation
            return (nil, watchers)
        }
        if let answer { continuation.resume(with: answer) }
        for watcher in watchers { watcher.resume(returning: true) }
    }

    /// A caller was cancelled: it leaves with `CancellationError`; the flight and the others go on.
    private func leave(_ waiter: Int) {
        let continuation = state.withLock { state -> CheckedContinuation<AccessToken, any Error>? in
            guard state.result == nil else { return nil }
            guard let continuation = state.waiters.removeValue(forKey: waiter) else {
                state.left.insert(waiter)  // cancelled before it parked
                return nil
            }
            return continuation
        }
        continuation?.resume(throwing: CancellationError())
    }
}
