#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import OneTap

/// Records every token event, for tests and for integrators' own tests.
public final class RecordingTokenObserver: TokenEventObserver {
    private let events = LockedValue<[TokenEvent]>([])

    /// Creates an empty recorder.
    public init() {}

    /// Receives one event.
    /// - Parameter event: The event.
    public func tokenEvent(_ event: TokenEvent) {
        events.withLock { $0.append(event) }
    }

    /// Every event so far, in order.
    public var recorded: [TokenEvent] { events.withLock { $0 } }

    /// The names of the events so far, in order.
    public var names: [String] { recorded.map(\.name) }

    /// Forgets the events so far.
    public func clear() { events.withLock { $0.removeAll() } }
}

/// Records every login event, for tests and for integrators' own tests.
public final class RecordingLoginObserver: LoginEventObserver {
    private let events = LockedValue<[LoginEvent]>([])

    /// Creates an empty recorder.
    public init() {}

    /// Receives one event.
    /// - Parameter event: The event.
    public func loginEvent(_ event: LoginEvent) {
        events.withLock { $0.append(event) }
    }

    /// Every event so far, in order.
    public var recorded: [LoginEvent] { events.withLock { $0 } }

    /// The names of the events so far, in order.
    public var names: [String] { recorded.map(\.name) }
}
