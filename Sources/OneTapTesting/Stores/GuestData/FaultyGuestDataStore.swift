import OneTap

/// A ``GuestDataStore`` wrapper that fails on demand, through ``FaultyStore/faults``: for the crash tests
/// of merges, every call fails after a number of calls went through (a crash, or a database that went
/// away mid-merge: `faults.inject(.refuse(), after: n, times: nil)`) until `faults.heal()`; stop after
/// every step in turn, then resume, and compare with a merge never stopped.
public typealias FaultyGuestDataStore = FaultyStore<any GuestDataStore>

extension FaultyStore: GuestDataStore where Base == any GuestDataStore {
    /// Lets `count` more calls through, then fails every call (the faults injected before are removed).
    /// - Parameter count: How many calls succeed first.
    package func fail(after count: Int) {
        faults.heal()
        counted.withLock { $0 = faults.calls() }
        faults.inject(.refuse(.io, "the store is down (scripted)"), after: count, times: nil)
    }

    /// Stops failing.
    package func heal() { faults.heal() }

    /// How many calls went through since the last ``fail(after:)``.
    package var calls: Int { faults.calls() - counted.withLock { $0 } }

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

    /// Through the base store, or fails (a fault injected into ``StoreOperation/replace`` strikes it).
    /// - Parameters:
    ///   - kind: The kind.
    ///   - owner: The owner.
    ///   - current: The value as read.
    ///   - value: The new value; nil deletes.
    /// - Returns: Whether it was written.
    /// - Throws: ``StoreError`` of kind `io` when scripted to fail.
    public func replace(kind: String, of owner: Identity, expecting current: JSONValue?, with value: JSONValue?) async throws -> Bool {
        try await faults.run(.replace) { try await base.replace(kind: kind, of: owner, expecting: current, with: value) }
    }

    /// Through the base store, or fails (a fault injected into ``StoreOperation/write`` strikes it: it
    /// writes the account).
    /// - Parameters:
    ///   - kind: The kind.
    ///   - guest: The guest.
    ///   - guestValue: The guest's value as read.
    ///   - account: The account.
    ///   - accountValue: The account's value as read.
    ///   - merged: The account's new value.
    ///   - journal: The journal after the kind's merge.
    ///   - version: The journal's version as read.
    /// - Returns: Whether it was applied.
    /// - Throws: ``StoreError`` of kind `io` when scripted to fail.
    public func merge(
        kind: String, of guest: GuestID, expecting guestValue: JSONValue, into account: AccountID, expecting accountValue: JSONValue?,
        setting merged: JSONValue, recording journal: MergeJournal, over version: Int
    ) async throws -> Bool {
        try await faults.run(.write) {
            try await base.merge(kind: kind, of: guest, expecting: guestValue, into: account, expecting: accountValue, setting: merged, recording: journal, over: version)
        }
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
