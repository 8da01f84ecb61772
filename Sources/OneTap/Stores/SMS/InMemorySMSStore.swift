/// SMS counters and code records in this process's memory: the default for one instance, and the model
/// the conformance suite checks other stores against. Every update is atomic under one lock; what is
/// kept only until before now is dropped as it is read, and swept every 1,024 updates, so memory stays
/// proportional to the numbers, addresses and devices active within the policy's longest window.
public final class InMemorySMSStore: SMSStore {
    private struct Kept<Value: Sendable>: Sendable {
        var value: Value
        var keepUntil: Date
    }

    private struct Storage: Sendable {
        var counters: [SMSPolicy.Counter: Kept<[Date]>] = [:]
        var codes: [SMSCodeKey: Kept<SMSCodeRecord>] = [:]
        var updates = 0
    }

    private let storage = LockedValue(Storage())

    /// Creates an empty store.
    public init() {}

    /// How many counters and code records are held.
    package var count: Int { storage.withLock { $0.counters.count + $0.codes.count } }

    /// The atomic update (``SMSStore/update(counters:code:at:_:)``).
    /// - Parameters:
    ///   - counters: The counters to read.
    ///   - key: The number and session whose record to read.
    ///   - now: The time.
    ///   - body: The change.
    /// - Returns: What `body` returned.
    public func update<Result: Sendable>(
        counters: [SMSPolicy.Counter], code key: SMSCodeKey, at now: Date, _ body: @Sendable (inout SMSState) -> Result
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
        counters: [SMSPolicy.Counter], code number: SMSCodeKey, at now: Date, _ body: (inout SMSState) -> Result
    ) -> Result {
        storage.withLock { storage in
            storage.updates &+= 1
            if storage.updates % 1024 == 0 { _ = Self.sweep(&storage, before: now, limit: .max) }
            var events: [SMSPolicy.Counter: [Date]] = Dictionary(minimumCapacity: counters.count)
            var keepUntil = Date.distantPast
            for counter in counters {
                guard let kept = storage.counters[counter], kept.keepUntil >= now else {
                    events[counter] = []
                    continue
                }
                events[counter] = kept.value
                keepUntil = max(keepUntil, kept.keepUntil)
            }
            var record: SMSCodeRecord? = nil
            if let kept = storage.codes[number], kept.keepUntil >= now {
                record = kept.value
                keepUntil = max(keepUntil, kept.keepUntil)
            }
            var state = SMSState(events: events, counters: [], code: record, keepUntil: keepUntil)
            let result = body(&state)
            for counter in counters {
                let list = state.events[counter] ?? []
                storage.counters[counter] = list.isEmpty ? nil : Kept(value: list, keepUntil: state.keepUntil)
            }
            storage.codes[number] = state.code.map { Kept(value: $0, keepUntil: state.keepUntil) }
            return result
        }
    }

    /// Removes what is kept only until before an instant (``SMSStore/removeExpired(before:limit:)``).
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
        for (number, kept) in storage.codes where kept.keepUntil < instant {
            guard removed < limit else { return removed }
            storage.codes[number] = nil
            removed += 1
        }
        return removed
    }
}
