#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import OneTap

/// A ``GuestDataStore`` wrapper that fails on demand: after a number of successful calls every call
/// throws `io` (a crash or a database that went away mid-merge), until ``heal()``. For the crash tests
/// of merges: stop after every step in turn, then resume, and compare with a merge never stopped.
public final class FaultyGuestDataStore: GuestDataStore {
    private struct State {
        var failAfter: Int? = nil
        var calls = 0
    }

    private let base: any GuestDataStore
    private let state = LockedValue(State())

    /// Wraps a store.
    /// - Parameter base: The store that does the real work.
    public init(_ base: any GuestDataStore) { self.base = base }

    /// Lets `count` more calls through, then fails every call.
    /// - Parameter count: How many calls succeed first.
    public func fail(after count: Int) {
        state.withLock {
            $0.failAfter = count
            $0.calls = 0
        }
    }

    /// Stops failing.
    public func heal() { state.withLock { $0.failAfter = nil } }

    /// How many calls went through since the last ``fail(after:)``.
    public var calls: Int { state.withLock { $0.calls } }

    private func check() throws {
        let fails = state.withLock { state -> Bool in
            guard let limit = state.failAfter else { return false }
            if state.calls >= limit { return true }
            state.calls += 1
            return false
        }
        if fails { throw GuestDataStoreError(.io, message: "the store is down (scripted)") }
    }

    /// Through the base store, or fails.
    /// - Parameter owner: The owner.
    /// - Returns: The data.
    /// - Throws: ``GuestDataStoreError`` of kind `io` when scripted to fail.
    public func data(of owner: Identity) async throws -> [String: JSONValue] {
        try check()
        return try await base.data(of: owner)
    }

    /// Through the base store, or fails.
    /// - Parameters:
    ///   - value: The data.
    ///   - kind: The kind.
    ///   - owner: The owner.
    /// - Throws: ``GuestDataStoreError`` of kind `io` when scripted to fail.
    public func write(_ value: JSONValue, kind: String, of owner: Identity) async throws {
        try check()
        try await base.write(value, kind: kind, of: owner)
    }

    /// Through the base store, or fails.
    /// - Parameters:
    ///   - kind: The kind.
    ///   - owner: The owner.
    /// - Throws: ``GuestDataStoreError`` of kind `io` when scripted to fail.
    public func remove(kind: String, of owner: Identity) async throws {
        try check()
        try await base.remove(kind: kind, of: owner)
    }

    /// Through the base store, or fails.
    /// - Parameter guest: The guest.
    /// - Returns: The journal.
    /// - Throws: ``GuestDataStoreError`` of kind `io` when scripted to fail.
    public func journal(for guest: GuestID) async throws -> MergeJournal? {
        try check()
        return try await base.journal(for: guest)
    }

    /// Through the base store, or fails.
    /// - Parameter journal: The journal.
    /// - Returns: The stored one.
    /// - Throws: ``GuestDataStoreError`` of kind `io` when scripted to fail.
    public func createJournal(_ journal: MergeJournal) async throws -> MergeJournal {
        try check()
        return try await base.createJournal(journal)
    }

    /// Through the base store, or fails.
    /// - Parameters:
    ///   - journal: The journal.
    ///   - version: The expected version.
    /// - Returns: Whether it was stored.
    /// - Throws: ``GuestDataStoreError`` of kind `io` when scripted to fail.
    public func replaceJournal(_ journal: MergeJournal, expecting version: Int) async throws -> Bool {
        try check()
        return try await base.replaceJournal(journal, expecting: version)
    }
}
