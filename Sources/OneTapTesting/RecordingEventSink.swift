#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import OneTap

/// Records every event, for tests and for integrators' own tests: the test double of ``EventSink``.
public final class RecordingEventSink: EventSink {
    private struct State {
        var events: [OneTapEvent] = []
        var counts: [String: Int] = [:]
        var watchers: [(name: String, count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = LockedValue(State())

    /// Creates an empty recorder.
    public init() {}

    /// Records one event.
    /// - Parameter event: The event.
    public func receive(_ event: OneTapEvent) {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.events.append(event)
            state.counts[event.name, default: 0] += 1
            guard !state.watchers.isEmpty else { return [] }
            let counts = state.counts
            let ready = state.watchers.filter { counts[$0.name, default: 0] >= $0.count }
            state.watchers.removeAll { counts[$0.name, default: 0] >= $0.count }
            return ready.map(\.continuation)
        }
        for continuation in ready { continuation.resume() }
    }

    /// Waits until at least `count` events named `name` have been recorded (work done in the background,
    /// such as a vault's refresh, announces itself this way).
    /// - Parameters:
    ///   - name: The event's name, e.g. `refreshed`.
    ///   - count: How many.
    public func wait(for name: String, count: Int = 1) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if state.counts[name, default: 0] >= count { return true }
                state.watchers.append((name, count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Every event so far, in order.
    public var recorded: [OneTapEvent] { state.withLock { $0.events } }

    /// The SMS events so far, in order.
    public var smsEvents: [SMSEvent] {
        recorded.compactMap { if case .sms(let event) = $0.payload { event } else { nil } }
    }

    /// The token events so far, in order.
    public var tokenEvents: [TokenEvent] {
        recorded.compactMap { if case .token(let event) = $0.payload { event } else { nil } }
    }

    /// The login events so far, in order.
    public var loginEvents: [LoginEvent] {
        recorded.compactMap { if case .login(let event, _) = $0.payload { event } else { nil } }
    }

    /// The names of the events so far, in order (`stored`, `refreshed`, `flow-started`, …).
    public var names: [String] { recorded.map(\.name) }

    /// Forgets the events so far.
    public func clear() {
        state.withLock {
            $0.events.removeAll()
            $0.counts.removeAll()
        }
    }
}
