/// Login quota counters in this process's memory: the default for one instance, and the model the
/// conformance suite checks other stores against. Every update is atomic under one lock; what is kept
/// only until before now is dropped as it is read, and swept every 1,024 updates, so memory stays
/// proportional to the addresses, devices and app sessions active within the policy's longest window.
public final class InMemoryLoginQuotaStore: LoginQuotaStore {
    private struct Kept: Sendable {
        var events: [Date]
        var keepUntil: Date
    }

    private struct Storage: Sendable {
        var counters: [LoginQuotaPolicy.Counter: Kept] = [:]
        var updates = 0
    }

    private let storage = LockedValue(Storage())

    /// Creates an empty store.
    public init() {}

    /// How many counters are held.
    package var count: Int { storage.withLock { $0.counters.count } }

    /// The atomic update (``LoginQuotaStore/update(counters:at:_:)``).
    /// - Parameters:
    ///   - counters: The counters to read.
    ///   - now: The time.
    ///   - body: The change.
    /// - Returns: What `body` returned.
    public func update<Result: Sendable>(
        counters: [LoginQuotaPolicy.Counter], at now: Date, _ body: @Sendable (inout LoginQuotaState) -> Result
    ) async throws -> Result {
        storage.withLock { storage in
            storage.updates &+= 1
            if storage.updates % 1024 == 0 { _ = Self.sweep(&storage, before: now, limit: .max) }
            var events: [LoginQuotaPolicy.Counter: [Date]] = Dictionary(minimumCapacity: counters.count)
            var keepUntil = Date.distantPast
            for counter in counters {
                guard let kept = storage.counters[counter], kept.keepUntil >= now else {
                    events[counter] = []
                    continue
                }
                events[counter] = kept.events
                keepUntil = max(keepUntil, kept.keepUntil)
            }
            var state = LoginQuotaState(events: events, keepUntil: keepUntil)
            let result = body(&state)
            for counter in counters {
                let list = state.events[counter] ?? []
                storage.counters[counter] = list.isEmpty ? nil : Kept(events: list, keepUntil: state.keepUntil)
            }
            return result
        }
    }

    /// Removes what is kept only until before an instant (``LoginQuotaStore/removeExpired(before:limit:)``).
    /// - Parameters:
    ///   - instant: The instant.
    ///   - limit: The most to remove.
    /// - Returns: How many were removed.
    public func removeExpired(before instant: Date, limit: Int) async throws -> Int {
        storage.withLock { Self.sweep(&$0, before: instant, limit: max(0, limit)) }
    }

    private static func sweep(_ storage: inout Storage, before instant: Date, limit: Int) -> Int {
        var removed = 0
        for (counter, kept) in storage.counters where kept.keepUntil < instant {
            guard removed < limit else { return removed }
            storage.counters[counter] = nil
            removed += 1
        }
        return removed
    }
}
