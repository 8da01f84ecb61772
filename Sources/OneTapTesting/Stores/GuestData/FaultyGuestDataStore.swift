#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import OneTap

/// A ``GuestDataStore`` wrapper that fails on demand: after a number of successful calls every call
/// throws `io` (a crash or a database that went away mid-merge), until ``heal()``. For the crash tests
/// of merges: stop after every step in turn, then resume, and compare with a merge never stopped. Any
/// other fault goes through ``faults``.
public final class FaultyGuestDataStore: GuestDataStore {
    /// Which operation a fault strikes.
    public enum Operation: Hashable, Sendable {
        /// ``GuestDataStore/data(of:)``.
        case data
        /// ``GuestDataStore/write(_:kind:of:)``.
        case write
        /// ``GuestDataStore/remove(kind:of:)``.
        case remove
        /// ``GuestDataStore/journal(for:)``.
        case journal
        /// ``GuestDataStore/createJournal(_:)``.
        case createJournal
        /// ``GuestDataStore/replaceJournal(_:expecting:)``.
        case replaceJournal
    }

    private let base: any GuestDataStore
    private let counted = LockedValue(0)
    /// Which calls fail, and how.
    public let faults: Faults<Operation>

    /// Wraps a store.
    /// - Parameters:
    ///   - base: The store that does the real work.
    ///   - clock: The clock injected delays wait on.
    public init(_ base: any GuestDataStore, clock: any WallClock = SystemClock()) {
        self.base = base
        faults = Faults(clock: clock)
    }

    /// Lets `count` more calls through, then fails every call (the faults injected before are removed).
    /// - Parameter count: How many calls succeed first.
    public func fail(after count: Int) {
        faults.heal()
        counted.withLock { $0 = faults.calls() }
        faults.inject(.refuse(.io, "the store is down (scripted)"), after: count, times: nil)
    }

    /// Stops failing.
    public func heal() { faults.heal() }

    /// How many calls went through since the last ``fail(after:)``.
    public var calls: Int { faults.calls() - counted.withLock { $0 } }

    /// Through the base store, or fails.
    /// - Parameter owner: The owner.
    /// - Returns: The data.
    /// - Throws: ``StoreError`` of kind `io` when scripted to fail.
    public func data(of owner: Identity) async throws -> [String: JSONValue] {
        try await faults.run(.data) { try await base.data(of: owner) }
    }

    /// Through the base store, or fails.
    /// - Parameters:
    ///   - value: The data.
    ///   - kind: The kind.
    ///   - owner: The owner.
    /// - Throws: ``StoreError`` of kind `io` when scripted to fail.
    public func write(_ value: JSONValue, kind: String, of owner: Identity) async throws {
        try await faults.run(.write) { try await base.write(value, kind: kind, of: owner) }
    }

    /// Through the base store, or fails.
    /// - Parameters:
    ///   - kind: The kind.
    ///   - owner: The owner.
    /// - Throws: ``StoreError`` of kind `io` when scripted to fail.
    public func remove(kind: String, of owner: Identity) async throws {
        try await faults.run(.remove) { try await base.remove(kind: kind, of: owner) }
    }

    /// Through the base store, or fails.
    /// - Parameter guest: The guest.
    /// - Returns: The journal.
    /// - Throws: ``StoreError`` of kind `io` when scripted to fail.
    public func journal(for guest: GuestID) async throws -> MergeJournal? {
        try await faults.run(.journal) { try await base.journal(for: guest) }
    }

    /// Through the base store, or fails.
    /// - Parameter journal: The journal.
    /// - Returns: The stored one.
    /// - Throws: ``StoreError`` of kind `io` when scripted to fail.
    public func createJournal(_ journal: MergeJournal) async throws -> MergeJournal {
        try await faults.run(.createJournal) { try await base.createJournal(journal) }
    }

    /// Through the base store, or fails.
    /// - Parameters:
    ///   - journal: The journal.
    ///   - version: The expected version.
    /// - Returns: Whether it was stored.
    /// - Throws: ``StoreError`` of kind `io` when scripted to fail.
    public func replaceJournal(_ journal: MergeJournal, expecting version: Int) async throws -> Bool {
        try await faults.run(.replaceJournal) { try await base.replaceJournal(journal, expecting: version) }
    }
}
