import OneTap

/// A ``GuestDataStore`` wrapper that acts out what happens around a merge, for the lost-update checks
/// of ``GuestDataStoreConformance`` and the merge tests: another writer (the app) changing data right
/// after the merger read it, and a crash right after the merger changed the account.
///
/// - ``afterRead(of:times:_:)``: after a read of an owner's data returns, a hook runs on the base store
///   (the read's answer is already stale when the merger gets it).
/// - ``afterMerge(_:)``: after each merge of a kind, a hook runs on the base store (a slow store, or another
///   applier acting between two kinds).
/// - ``crash(afterAccountChanges:)``: once the merger changed the account's data that many times, every
///   call fails with ``StoreError`` of kind `io` (the process died) until ``heal()``.
package final class ScriptedGuestDataStore: GuestDataStore {
    /// A hook: runs on the base store after a read.
    package typealias Hook = @Sendable (_ base: any GuestDataStore, _ run: Int) async throws -> Void

    private struct Script: Sendable {
        var hooks: [Identity: (remaining: Int?, runs: Int, hook: Hook)] = [:]
        var merges = 0
        var afterMerge: Hook?
        var crashAfter: Int?
        var accountChanges = 0
        var crashed = false
    }

    /// The store every call goes to.
    package let base: any GuestDataStore
    private let script = LockedValue(Script())

    /// Wraps a store.
    /// - Parameter base: The store.
    package init(_ base: any GuestDataStore) { self.base = base }

    /// Runs `hook` after each of the next `times` reads of `owner`'s data (every read when nil).
    /// - Parameters:
    ///   - owner: Whose reads.
    ///   - times: How many reads run it; nil for every one.
    ///   - hook: What runs, given the base store and the run's number (from 1).
    package func afterRead(of owner: Identity, times: Int? = 1, _ hook: @escaping Hook) {
        script.withLock { $0.hooks[owner] = (times, 0, hook) }
    }

    /// Runs `hook` after each merge of a kind (applied or not), given the base store and the merge's number (from 1).
    /// - Parameter hook: What runs.
    package func afterMerge(_ hook: @escaping Hook) {
        script.withLock { $0.afterMerge = hook }
    }

    /// Fails every call once the account's data was changed `count` times (through this store).
    /// - Parameter count: How many changes of an account go through first.
    package func crash(afterAccountChanges count: Int) {
        script.withLock {
            $0.crashAfter = count
            $0.accountChanges = 0
            $0.crashed = false
        }
    }

    /// Stops failing and removes the crash.
    package func heal() {
        script.withLock {
            $0.crashAfter = nil
            $0.crashed = false
        }
    }

    private func checkAlive() throws(StoreError) {
        if script.withLock({ $0.crashed }) { throw StoreError(.io, message: "the store is down (scripted crash)") }
    }

    /// Counts a change of an owner's data; crashes the store after the scripted number.
    private func changed(_ owner: Identity) {
        guard case .account = owner else { return }
        script.withLock { script in
            script.accountChanges += 1
            if let limit = script.crashAfter, script.accountChanges >= limit { script.crashed = true }
        }
    }

    /// Through the base store, then the owner's hook.
    /// - Parameter owner: The owner.
    /// - Returns: The data, as read before the hook ran.
    /// - Throws: ``StoreError``.
    package func data(of owner: Identity) async throws -> [String: JSONValue] {
        try checkAlive()
        let data = try await base.data(of: owner)
        let due: (Hook, Int)? = script.withLock { script in
            guard var entry = script.hooks[owner], entry.remaining.map({ $0 > 0 }) ?? true else { return nil }
            entry.remaining = entry.remaining.map { $0 - 1 }
            entry.runs += 1
            script.hooks[owner] = entry
            return (entry.hook, entry.runs)
        }
        if let (hook, run) = due { try await hook(base, run) }
        return data
    }

    /// Through the base store.
    /// - Parameters:
    ///   - value: The data.
    ///   - kind: The kind.
    ///   - owner: The owner.
    /// - Throws: ``StoreError``.
    package func write(_ value: JSONValue, kind: String, of owner: Identity) async throws {
        try checkAlive()
        try await base.write(value, kind: kind, of: owner)
        changed(owner)
    }

    /// Through the base store.
    /// - Parameters:
    ///   - kind: The kind.
    ///   - owner: The owner.
    /// - Throws: ``StoreError``.
    package func remove(kind: String, of owner: Identity) async throws {
        try checkAlive()
        try await base.remove(kind: kind, of: owner)
        changed(owner)
    }

    /// Through the base store; a change of the owner when applied.
    /// - Parameters:
    ///   - kind: The kind.
    ///   - owner: The owner.
    ///   - current: The value as read.
    ///   - value: The new value; nil deletes.
    /// - Returns: Whether it was written.
    /// - Throws: ``StoreError``.
    package func replace(kind: String, of owner: Identity, expecting current: JSONValue?, with value: JSONValue?) async throws -> Bool {
        try checkAlive()
        let written = try await base.replace(kind: kind, of: owner, expecting: current, with: value)
        if written { changed(owner) }
        return written
    }

    /// Through the base store; a change of the account when applied.
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
    /// - Throws: ``StoreError``.
    package func merge(
        kind: String, of guest: GuestID, expecting guestValue: JSONValue, into account: AccountID, expecting accountValue: JSONValue?,
        setting merged: JSONValue, recording journal: MergeJournal, over version: Int
    ) async throws -> Bool {
        try checkAlive()
        let applied = try await base.merge(kind: kind, of: guest, expecting: guestValue, into: account, expecting: accountValue, setting: merged, recording: journal, over: version)
        if applied { changed(.account(account)) }
        let due: (Hook, Int)? = script.withLock { script in
            script.merges += 1
            return script.afterMerge.map { ($0, script.merges) }
        }
        if let (hook, run) = due { try await hook(base, run) }
        return applied
    }

    /// Through the base store.
    /// - Parameter guest: The guest.
    /// - Returns: The journal.
    /// - Throws: ``StoreError``.
    package func journal(for guest: GuestID) async throws -> MergeJournal? {
        try checkAlive()
        return try await base.journal(for: guest)
    }

    /// Through the base store.
    /// - Parameter journal: The journal.
    /// - Returns: The stored one.
    /// - Throws: ``StoreError``.
    package func createJournal(_ journal: MergeJournal) async throws -> MergeJournal {
        try checkAlive()
        return try await base.createJournal(journal)
    }

    /// Through the base store.
    /// - Parameters:
    ///   - journal: The journal.
    ///   - version: The expected version.
    /// - Returns: Whether it was stored.
    /// - Throws: ``StoreError``.
    package func replaceJournal(_ journal: MergeJournal, expecting version: Int) async throws -> Bool {
        try checkAlive()
        return try await base.replaceJournal(journal, expecting: version)
    }
}
