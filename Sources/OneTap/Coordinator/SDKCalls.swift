import Foundation

/// The one-tap SDK calls a ``LoginCoordinator`` has under way, those its logins gave up on included (past their time
/// limit, or cancelled, the SDK ignoring the cancellation): a flow whose SDK still runs a call is not called again over
/// it (China Mobile's SDK answers an overlapping call "busy"), for at most ``FlowTimeouts/hold`` from when its login
/// gave up on it, so an SDK that never calls back is called again after that.
///
/// A call is registered before its work is started, and its work calls the SDK only if it starts before its login is
/// done with it: a login cancelled before the work ran leaves nothing that calls the SDK later, over a newer login's call.
final class SDKCalls: Sendable {
    private struct Call {
        let flow: LoginFlow
        /// Whether its work started (it calls the SDK, and is removed when the SDK answers).
        var running = false
        /// When its login gave up on it and how long it holds its flow from then; nil while its login waits for it.
        var given: (at: Date, hold: Duration)? = nil
    }

    private let calls = LockedValue<(next: Int, open: [Int: Call])>((0, [:]))

    /// Whether a call of `flow` its login gave up on still runs within its hold.
    /// - Parameters:
    ///   - flow: The flow.
    ///   - now: The time.
    /// - Returns: True when the flow's SDK must not be called now.
    func isBusy(_ flow: LoginFlow, at now: Date) -> Bool {
        calls.withLock { state in
            Self.settle(&state.open, at: now)
            return state.open.values.contains { call in call.flow == flow && call.running && call.given.map { Self.holds($0, at: now) } ?? true }
        }
    }

    /// Brings the instants calls were given up at back to `now` where they lie ahead of it (a clock set back, which must
    /// not hold a flow for the size of the jump).
    private static func settle(_ open: inout [Int: Call], at now: Date) {
        for (ticket, call) in open {
            if let given = call.given, given.at > now { open[ticket]?.given = (now, given.hold) }
        }
    }

    /// Whether a hold still holds at `now`.
    private static func holds(_ given: (at: Date, hold: Duration), at now: Date) -> Bool {
        now < given.at.addingTimeInterval(given.hold.seconds)
    }

    /// Registers a call about to be made, dropping calls whose hold has passed (an SDK that never answered).
    /// - Parameters:
    ///   - flow: Its flow.
    ///   - now: The time.
    /// - Returns: Its ticket.
    func begin(_ flow: LoginFlow, at now: Date) -> Int {
        calls.withLock { state in
            Self.settle(&state.open, at: now)
            state.open = state.open.filter { $0.value.given.map { Self.holds($0, at: now) } ?? true }
            state.next += 1
            state.open[state.next] = Call(flow: flow)
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
    /// holds its flow until the SDK answers, for at most `hold` from now.
    /// - Parameters:
    ///   - ticket: The call's ticket.
    ///   - now: The time.
    ///   - hold: How long a call still running keeps its flow from being called again.
    func release(_ ticket: Int, at now: Date, hold: Duration) {
        calls.withLock { state in
            guard let call = state.open[ticket] else { return }
            if call.running { state.open[ticket]?.given = (now, hold) } else { state.open[ticket] = nil }
        }
    }
}
