import OneTap

/// Records every event, for tests and for integrators' own tests: the test double of ``EventSink``.
public final class RecordingEventSink: EventSink {
    private struct State {
        var events: [OneTapEvent] = []
        var counts: [String: Int] = [:]
        var watchers: [(id: Int, name: String, count: Int, continuation: CheckedContinuation<Bool, Never>)] = []
        var nextWatcher = 0
    }

    private let state = LockedValue(State())

    /// Creates an empty recorder.
    public init() {}

    /// Records one event.
    /// - Parameter event: The event.
    public func receive(_ event: OneTapEvent) {
        let ready = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            state.events.append(event)
            state.counts[event.name, default: 0] += 1
            guard !state.watchers.isEmpty else { return [] }
            let counts = state.counts
            let ready = state.watchers.filter { counts[$0.name, default: 0] >= $0.count }
            state.watchers.removeAll { counts[$0.name, default: 0] >= $0.count }
            return ready.map(\.continuation)
        }
        for continuation in ready { continuation.resume(returning: true) }
    }

    /// Waits until at least `count` events named `name` have been recorded (work done in the background,
    /// such as a vault's refresh, announces itself this way), or until a real-time limit passes, so a
    /// test whose event never comes fails instead of hanging; a cancelled task stops waiting at once.
    /// - Parameters:
    ///   - name: The event's name, e.g. `refreshed`.
    ///   - count: How many.
    ///   - limit: How long to wait in real time; 120 s by default.
    /// - Returns: True when the events came, false when the limit passed or the task was cancelled first: check it
    ///   (`#expect(await events.wait(for: "refreshed"))`), so a test whose event never came fails where it waited.
    public func wait(for name: String, count: Int = 1, limit: Duration = .seconds(120)) async -> Bool {
        let id = state.withLock { state -> Int in
            state.nextWatcher += 1
            return state.nextWatcher
        }
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await self.state.park { state, continuation in
                    if state.counts[name, default: 0] >= count { return nil }
                    state.watchers.append((id, name, count, continuation))
                    return []
                } unpark: { state in
                    guard let index = state.watchers.firstIndex(where: { $0.id == id }) else { return nil }
                    return state.watchers.remove(at: index).continuation
                }
            }
            group.addTask {
                // The limit passed, or the test was cancelled (its own time limit): either way the wait ends (the
                // watcher, cancelled below, leaves its park), so a test finishes instead of waiting for an event that
                // may never come.
                do { try await Task.sleep(for: limit) } catch {}
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    /// Every event so far, in order.
    public var recorded: [OneTapEvent] { state.withLock { $0.events } }

    /// The SMS events so far, in order.
    package var smsEvents: [SMSEvent] {
        recorded.compactMap { if case .sms(let event) = $0.payload { event } else { nil } }
    }

    /// The token events so far, in order.
    package var tokenEvents: [TokenEvent] {
        recorded.compactMap { if case .token(let event) = $0.payload { event } else { nil } }
    }

    /// The login events so far, in order.
    package var loginEvents: [LoginEvent] {
        recorded.compactMap { if case .login(let event, _) = $0.payload { event } else { nil } }
    }

    /// The names of the events so far, in order (`stored`, `refreshed`, `flow-started`, …).
    package var names: [String] { recorded.map(\.name) }

    /// Forgets the events so far.
    package func clear() {
        state.withLock {
            $0.events.removeAll()
            $0.counts.removeAll()
        }
    }
}
