#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import OneTap

/// An ``SMSStore`` wrapper that fails on demand: the next updates throw `io` before anything is read,
/// or after the change was computed but before it is written (a database that drops the connection at
/// commit), so tests can check that nothing is sent or counted then. Any other fault goes through
/// ``faults``.
public final class FaultySMSStore: SMSStore {
    /// Where an update fails.
    public enum Point: Hashable, Sendable {
        /// Before reading.
        case beforeRead
        /// After the change was computed, before it is written: the change is lost.
        case beforeWrite
    }

    /// Which operation a fault strikes.
    public enum Operation: Hashable, Sendable {
        /// ``SMSStore/update(counters:code:at:_:)``.
        case update
        /// ``SMSStore/removeExpired(before:limit:)``.
        case removeExpired
    }

    private let base: any SMSStore
    /// Which calls fail, and how.
    public let faults: Faults<Operation>

    /// Wraps a store.
    /// - Parameters:
    ///   - base: The store that does the real work.
    ///   - clock: The clock injected delays wait on.
    public init(_ base: any SMSStore, clock: any WallClock = SystemClock()) {
        self.base = base
        faults = Faults(clock: clock)
    }

    /// Makes the next updates fail.
    /// - Parameters:
    ///   - point: Where.
    ///   - count: How many updates in a row.
    public func fail(_ point: Point, times count: Int = 1) {
        switch point {
        case .beforeRead: faults.inject(.refuse(.io, "the store is down (scripted)"), into: [.update], times: count)
        case .beforeWrite: faults.inject(.lose(.io, "the connection dropped at commit (scripted)"), into: [.update], times: count)
        }
    }

    /// Updates through the base store, or fails as scripted.
    /// - Parameters:
    ///   - counters: The counters.
    ///   - number: The number.
    ///   - now: The time.
    ///   - body: The change.
    /// - Returns: What `body` returned.
    /// - Throws: ``StoreError`` of kind `io` when scripted to fail.
    public func update<Result: Sendable>(
        counters: [SMSPolicy.Counter], code number: PhoneNumber, at now: Date, _ body: @Sendable (inout SMSState) -> Result
    ) async throws -> Result {
        try await faults.run(.update) {
            try await base.update(counters: counters, code: number, at: now, body)
        } workingOut: {
            // Compute the change on a copy of the state and drop it, as a failed commit would.
            _ = try await base.update(counters: counters, code: number, at: now) { state -> Result in
                var copy = state
                return body(&copy)
            }
        }
    }

    /// Removes expired entries through the base store, or fails.
    /// - Parameters:
    ///   - instant: The instant.
    ///   - limit: The most to remove.
    /// - Returns: How many were removed.
    /// - Throws: ``StoreError`` when scripted to fail.
    public func removeExpired(before instant: Date, limit: Int) async throws -> Int {
        try await faults.run(.removeExpired) { try await base.removeExpired(before: instant, limit: limit) }
    }
}
