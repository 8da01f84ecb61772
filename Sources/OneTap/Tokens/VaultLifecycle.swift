/// The ``TokenVault``'s life as a service, and the queue of refreshes its ``TokenVault/run()`` runs. A
/// value the vault's actor owns.
///
/// Phases and transitions:
/// - **idle** (created): refreshes callers start are queued for `run()`; a caller on an expired token
///   waits at most the refresh time limit, then hears `not-running`.
/// - idle → **running** when `run()` starts (``startRunning()``): the queue is drained, then refreshes
///   are run as they are queued, and the background scan runs.
/// - idle → **stopped** when ``shutdown()`` comes first (a service group stopping while the task that
///   would run the vault was still starting): the queue closes, queued refreshes are answered
///   `not-running`, and the next `run()` returns at once, once.
/// - running → **stopping** on ``shutdown()``: the queue closes, no refresh starts; those under way
///   finish (each within its time limit) and answer their callers.
/// - running or stopping → **stopped** when `run()` ends (``stopped()``): after a shutdown once no
///   caller waits, or at once when its task is cancelled (refreshes under way are cancelled and their
///   callers hear `not-running`).
/// - `run()` in any other case throws `already-running`: a vault runs once.
///
/// Fresh and stale tokens are served in every phase; only starting a refresh depends on it.
package struct VaultLifecycle: Sendable {
    /// Where the vault is in its life.
    package enum Phase: Hashable, Sendable {
        /// Created, not run yet: refreshes wait in the queue.
        case idle
        /// `run()` runs the refreshes.
        case running
        /// `shutdown()` was called: refreshes under way finish, none starts.
        case stopping
        /// `run()` returned, or `shutdown()` came before it.
        case stopped
    }

    /// What ``shutdown()`` leaves the vault to do.
    package enum Shutdown: Hashable, Sendable {
        /// Nothing will run the queued refreshes: answer their callers `not-running`.
        case answerQueued
        /// `run()` lets the refreshes under way finish: wake it to check.
        case drain
        /// Already stopping or stopped.
        case nothing
    }

    /// Where the vault is.
    package private(set) var phase = Phase.idle
    /// Whether ``shutdown()`` came before `run()`: that run returns at once instead of throwing.
    private var shutDownBeforeRunning = false
    /// The refreshes to run, in the order they were started.
    package let queue: AsyncStream<RefreshFlight>
    private let queueInput: AsyncStream<RefreshFlight>.Continuation

    /// A vault that has not run.
    package init() {
        (queue, queueInput) = AsyncStream.makeStream(of: RefreshFlight.self)
    }

    /// Whether `run()` runs and no shutdown was asked for.
    package var isRunning: Bool { phase == .running }

    /// Whether `run()` has not started yet (a caller then bounds its own wait).
    package var isIdle: Bool { phase == .idle }

    /// Whether a refresh may start: before `run()` (it is queued) or while it runs.
    package var startsRefreshes: Bool { phase == .idle || phase == .running }

    /// `run()` starts.
    /// - Returns: True to run; false when a shutdown came first and `run()` returns at once.
    /// - Throws: ``TokenError`` of kind `already-running` when the vault is running or has run.
    package mutating func startRunning() throws(TokenError) -> Bool {
        if phase == .stopped, shutDownBeforeRunning {
            shutDownBeforeRunning = false
            return false
        }
        guard phase == .idle else {
            throw TokenError(.alreadyRunning, account: nil, message: "this vault is running or has run; a vault runs once")
        }
        phase = .running
        return true
    }

    /// Queues a refresh for `run()`.
    /// - Parameter flight: The refresh.
    /// - Returns: Whether it was queued (false once the queue has closed: `run()` ended or was cancelled).
    package func enqueue(_ flight: RefreshFlight) -> Bool {
        if case .terminated = queueInput.yield(flight) { return false }
        return true
    }

    /// `shutdown()` was called: the queue closes.
    /// - Returns: What the vault must do now.
    package mutating func shutdown() -> Shutdown {
        switch phase {
        case .idle:
            phase = .stopped
            shutDownBeforeRunning = true
            queueInput.finish()
            return .answerQueued
        case .running:
            phase = .stopping
            queueInput.finish()
            return .drain
        case .stopping, .stopped:
            return .nothing
        }
    }

    /// `run()` ended.
    package mutating func stopped() {
        phase = .stopped
        queueInput.finish()
    }
}
