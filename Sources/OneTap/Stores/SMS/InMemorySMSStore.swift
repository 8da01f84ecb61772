/// SMS counters and code records in this process's memory: the default for one instance, and the model
/// the conformance suite checks other stores against. Every update is atomic under one lock; what is
/// kept only until before now is dropped as it is read, and swept every 1,024 updates, so memory stays
/// proportional to the numbers, addresses and devices active within the policy's longest window.
package final class InMemorySMSStore: SMSStore {
    private struct Storage: Sendable {
        var counters = InMemoryExpiringValues<SMSPolicy.Counter, [Date]>()
        var codes = InMemoryExpiringValues<SMSCodeKey, SMSCodeRecord>()
        var updates = 0
    }

    private let storage = LockedValue(Storage())

    /// Creates an empty store.
    package init() {}

    /// How many counters and code records are held.
    package var count: Int { storage.withLock { $0.counters.count + $0.codes.count } }

    /// The atomic update (``SMSStore/update(counters:code:at:_:)``).
    /// - Parameters:
    ///   - counters: The counters to read.
    ///   - key: The number and session whose record to read; nil for counters only.
    ///   - now: The time.
    ///   - body: The change.
    /// - Returns: What `body` returned.
    package func update<Result: Sendable>(
        counters: [SMSPolicy.Counter], code key: SMSCodeKey?, at now: Date, _ body: @Sendable (inout SMSState) -> Result
    ) async throws -> Result {
        updateNow(counters: counters, code: key, at: now, body)
    }

    /// ``updateNow(counters:code:at:_:)`` for a number's session-less record.
    package func updateNow<Result>(
        counters: [SMSPolicy.Counter], code number: PhoneNumber, at now: Date, _ body: (inout SMSState) -> Result
    ) -> Result {
        updateNow(counters: counters, code: SMSCodeKey(number: number, session: nil), at: now, body)
    }

    /// The same update, without suspending: for the package's replays (`onetap sms`), which read their
    /// input synchronously.
    package func updateNow<Result>(
        counters: [SMSPolicy.Counter], code number: SMSCodeKey?, at now: Date, _ body: (inout SMSState) -> Result
    ) -> Result {
        storage.withLock { storage in
            storage.updates &+= 1
            if storage.updates % 1024 == 0 { _ = Self.sweep(&storage, before: now, limit: .max) }
            var (events, keepUntil) = storage.counters.events(counters, at: now)
            let code = number.flatMap { storage.codes.value($0, at: now) }
            if let code { keepUntil = max(keepUntil, code.keepUntil) }
            var state = SMSState(events: events, counters: [], code: code?.value, keepUntil: keepUntil)
            let result = body(&state)
            storage.counters.write(counters, state.events, keepUntil: state.keepUntil)
            if let number { storage.codes.set(number, state.code, keepUntil: state.keepUntil) }
            return result
        }
    }

    /// Removes what is kept only until before an instant (``SMSStore/removeExpired(before:limit:)``).
    /// - Parameters:
    ///   - instant: The instant.
    ///   - limit: The most to remove.
    /// - Returns: How many were removed.
    package func removeExpired(before instant: Date, limit: Int) async throws -> Int {
        storage.withLock { Self.sweep(&$0, before: instant, limit: max(0, limit)) }
    }

    private static func sweep(_ storage: inout Storage, before instant: Date, limit: Int) -> Int {
        let counters = storage.counters.sweep(before: instant, limit: limit)
        return counters + storage.codes.sweep(before: instant, limit: limit - counters)
    }
}
