/// Login quota counters in this process's memory: the default for one instance, and the model the
/// conformance suite checks other stores against. Every update is atomic under one lock; what is kept
/// only until before now is dropped as it is read, and swept every 1,024 updates, so memory stays
/// proportional to the addresses, devices and app sessions active within the policy's longest window.
package final class InMemoryLoginQuotaStore: LoginQuotaStore {
    private struct Storage: Sendable {
        var counters = InMemoryExpiringValues<LoginQuotaPolicy.Counter, [Date]>()
        var updates = 0
    }

    private let storage = LockedValue(Storage())

    /// Creates an empty store.
    package init() {}

    /// How many counters are held.
    package var count: Int { storage.withLock { $0.counters.count } }

    /// The atomic update (``LoginQuotaStore/update(counters:at:_:)``).
    /// - Parameters:
    ///   - counters: The counters to read.
    ///   - now: The time.
    ///   - body: The change.
    /// - Returns: What `body` returned.
    package func update<Result: Sendable>(
        counters: [LoginQuotaPolicy.Counter], at now: Date, _ body: @Sendable (inout LoginQuotaState) -> Result
    ) async throws -> Result {
        updateNow(counters: counters, at: now, body)
    }

    /// The same update, without suspending: for the package's replays (`onetap quota`), which read their
    /// input synchronously.
    package func updateNow<Result>(counters: [LoginQuotaPolicy.Counter], at now: Date, _ body: (inout LoginQuotaState) -> Result) -> Result {
        storage.withLock { storage in
            storage.updates &+= 1
            if storage.updates % 1024 == 0 { _ = Self.sweep(&storage, before: now, limit: .max) }
            let (events, keepUntil) = storage.counters.events(counters, at: now)
            var state = LoginQuotaState(events: events, keepUntil: keepUntil)
            let result = body(&state)
            storage.counters.write(counters, state.events, keepUntil: state.keepUntil)
            return result
        }
    }

    /// Removes what is kept only until before an instant (``LoginQuotaStore/removeExpired(before:limit:)``).
    /// - Parameters:
    ///   - instant: The instant.
    ///   - limit: The most to remove.
    /// - Returns: How many were removed.
    package func removeExpired(before instant: Date, limit: Int) async throws -> Int {
        storage.withLock { Self.sweep(&$0, before: instant, limit: max(0, limit)) }
    }

    private static func sweep(_ storage: inout Storage, before instant: Date, limit: Int) -> Int {
        storage.counters.sweep(before: instant, limit: limit)
    }
}
