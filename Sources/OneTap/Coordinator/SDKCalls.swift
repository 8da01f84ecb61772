import Foundation

/// The one-tap SDK calls a ``LoginCoordinator`` has under way, those its logins gave up on included (past their time
/// limit, or cancelled, the SDK ignoring the cancellation): a flow whose SDK still runs a call is not called again over
/// it (China Mobile's SDK answers an overlapping call "busy"), for at most ``FlowTimeouts/hold(_:)`` from the call's
/// start, so an SDK that never calls back is called again after that.
///
/// A call is registered before its work is started, and its work calls the SDK only if it starts before its login is
/// done with it: a login cancelled before the work ran leaves nothing that calls the SDK later, over a newer login's call.
final class SDKCalls: Sendable {
    private struct Call {
        let flow: LoginFlow
        let startedAt: Date
        /// Whether its work started (it calls the SDK, and is removed when the SDK answers).
        var running = false
    }

    private let calls = LockedValue<(next: Int, open: [Int: Call])>((0, [:]))

    /// Whether a call of `flow` that started within `hold` before `now` still runs.
    /// - Parameters:
    ///   - flow: The flow.
    ///   - now: The time.
    ///   - hold: How long a call keeps its flow from being called again.
    /// - Returns: True when the flow's SDK must not be called now.
    func isBusy(_ flow: LoginFlow, at now: Date, hold: Duration) -> Bool {
        let since = now.addingTimeInterval(-hold.seconds)
        return calls.withLock { $0.open.values.contains { $0.flow == flow && $0.startedAt > since } }
    }

    /// Registers a call about to be made.
    /// - Parameters:
    ///   - flow: Its flow.
    ///   - now: The time.
    /// - Returns: Its ticket.
    func begin(_ flow: LoginFlow, at now: Date) -> Int {
        calls.withLock { state in
            state.next += 1
            state.open[state.next] = Call(flow: flow, startedAt: now)
            return state.next
        }
    }

    /// The call's work starts.
    /// - Parameter ticket: The call's ticket.
    /// - Returns: True to call the SDK; false when its login was done with it first (nothing is called).
    func start(_ ticket: Int) -> Bool {
        calls.withLock { state in
            guard state.open[ticket] != nil else { return false }
            state.open[ticket]?.running = true
            return true
        }
    }

    /// The SDK answered the call (or threw).
    /// - Parameter ticket: The call's ticket.
    func end(_ ticket: Int) {
        calls.withLock { _ = $0.open.removeValue(forKey: ticket) }
    }

    /// The login is done with the call: one whose work never started is dropped (it will not call the SDK), one running
    /// stays until the SDK answers.
    /// - Parameter ticket: The call's ticket.
    func release(_ ticket: Int) {
        calls.withLock { state in
            if state.open[ticket]?.running == false { state.open[ticket] = nil }
        }
    }
}
