/// Guest and account data in this process's memory: the default for tests and one instance, and the
/// model the conformance suite checks other stores against. Every call is atomic.
package final class InMemoryGuestDataStore: GuestDataStore {
    private struct Storage: Sendable {
        var data: [Identity: [String: JSONValue]] = [:]
        /// Each kept until ``MergeJournal/keepUntil``: a finished merge's for 30 days, as every store keeps it.
        var journals = InMemoryExpiringValues<GuestID, MergeJournal>()
    }

    private let storage = LockedValue(Storage())

    /// Creates an empty store.
    package init() {}

    /// An owner's data (``GuestDataStore/data(of:)``).
    /// - Parameter owner: The owner.
    /// - Returns: The data by kind.
    package func data(of owner: Identity) async throws -> [String: JSONValue] {
        storage.withLock { $0.data[owner] ?? [:] }
    }

    /// Sets one kind (``GuestDataStore/write(_:kind:of:)``).
    /// - Parameters:
    ///   - value: The data.
    ///   - kind: The kind.
    ///   - owner: The owner.
    /// - Throws: ``StoreError`` of kind `invalid-kind` (``StoreError/check(dataKind:)``) or `too-large`
    ///   (``StoreError/check(dataValue:kind:)``).
    package func write(_ value: JSONValue, kind: String, of owner: Identity) async throws {
        try StoreError.check(dataKind: kind, value: value)
        storage.withLock { $0.data[owner, default: [:]][kind] = value }
    }

    /// Deletes one kind (``GuestDataStore/remove(kind:of:)``).
    /// - Parameters:
    ///   - kind: The kind.
    ///   - owner: The owner.
    /// - Throws: ``StoreError`` of kind `invalid-kind`.
    package func remove(kind: String, of owner: Identity) async throws {
        try StoreError.check(dataKind: kind)
        storage.withLock { storage in
            storage.data[owner]?[kind] = nil
            if storage.data[owner]?.isEmpty == true { storage.data[owner] = nil }
        }
    }

    /// Sets or deletes one kind if it is still as read (``GuestDataStore/replace(kind:of:expecting:with:)``).
    /// - Parameters:
    ///   - kind: The kind.
    ///   - owner: The owner.
    ///   - current: The value as read; nil for none.
    ///   - value: The new value; nil deletes.
    /// - Returns: False when the kind changed (nothing written).
    /// - Throws: ``StoreError`` of kind `invalid-kind` or `too-large`.
    package func replace(kind: String, of owner: Identity, expecting current: JSONValue?, with value: JSONValue?) async throws -> Bool {
        try StoreError.check(dataKind: kind, value: value)
        return storage.withLock { storage in
            guard JSONValue.sameText(storage.data[owner]?[kind], current) else { return false }
            storage.data[owner, default: [:]][kind] = value
            if storage.data[owner]?.isEmpty == true { storage.data[owner] = nil }
            return true
        }
    }

    /// Merges one kind and records it in the journal atomically, if both sides and the journal are as read
    /// (``GuestDataStore/merge(kind:of:expecting:into:expecting:setting:recording:over:)``).
    /// - Parameters:
    ///   - kind: The kind.
    ///   - guest: The guest.
    ///   - guestValue: The guest's value as read.
    ///   - account: The account.
    ///   - accountValue: The account's value as read; nil for none.
    ///   - merged: The account's new value.
    ///   - journal: The journal after the kind's merge.
    ///   - version: The journal's version as read.
    /// - Returns: False when a side or the journal changed (nothing written).
    /// - Throws: ``StoreError`` of kind `invalid-kind`.
    package func merge(
        kind: String, of guest: GuestID, expecting guestValue: JSONValue, into account: AccountID, expecting accountValue: JSONValue?,
        setting merged: JSONValue, recording journal: MergeJournal, over version: Int
    ) async throws -> Bool {
        try StoreError.check(dataKind: kind, value: merged)
        return storage.withLock { storage in
            guard JSONValue.sameText(storage.data[.guest(guest)]?[kind], guestValue), JSONValue.sameText(storage.data[.account(account)]?[kind], accountValue),
                journal.guest == guest, storage.journals.stored(guest)?.version == version, journal.version > version
            else { return false }
            storage.journals.set(guest, journal, keepUntil: journal.keepUntil)
            storage.data[.account(account), default: [:]][kind] = merged
            storage.data[.guest(guest)]?[kind] = nil
            if storage.data[.guest(guest)]?.isEmpty == true { storage.data[.guest(guest)] = nil }
            return true
        }
    }

    /// A guest's journal (``GuestDataStore/journal(for:)``).
    /// - Parameter guest: The guest.
    /// - Returns: The journal, or nil.
    package func journal(for guest: GuestID) async throws -> MergeJournal? {
        storage.withLock { $0.journals.stored(guest) }
    }

    /// Stores a journal unless one exists (``GuestDataStore/createJournal(_:)``).
    /// - Parameter journal: The journal.
    /// - Returns: The stored journal.
    package func createJournal(_ journal: MergeJournal) async throws -> MergeJournal {
        storage.withLock { storage in
            if let existing = storage.journals.stored(journal.guest) { return existing }
            storage.journals.set(journal.guest, journal, keepUntil: journal.keepUntil)
            return journal
        }
    }

    /// Compare-and-swap of a journal (``GuestDataStore/replaceJournal(_:expecting:)``).
    /// - Parameters:
    ///   - journal: The new journal.
    ///   - version: The version it was made from.
    /// - Returns: Whether it was stored.
    package func replaceJournal(_ journal: MergeJournal, expecting version: Int) async throws -> Bool {
        storage.withLock { storage in
            guard let current = storage.journals.stored(journal.guest), current.version == version, journal.version > version else { return false }
            storage.journals.set(journal.guest, journal, keepUntil: journal.keepUntil)
            return true
        }
    }

    /// Removes the journals of merges that finished more than ``MergeJournal/finishedRetention`` before an
    /// instant, at most a limit (what an ``ExpiredRecordSweeper`` calls through ``InMemoryStores/sweptStores()``).
    /// Data never expires.
    /// - Parameters:
    ///   - instant: The instant.
    ///   - limit: The most to remove.
    /// - Returns: How many were removed.
    /// - Complexity: O(r log n) for r journals removed; never the store's size.
    package func removeFinishedJournals(before instant: Date, limit: Int) -> Int {
        storage.withLock { $0.journals.sweep(before: instant, limit: limit) }
    }
}
