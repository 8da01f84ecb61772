/// Records in this process's memory by id, each at a version: the create, the compare-and-swap replace
/// and the removal of expired records that the in-memory login-session and app-session stores share.
/// Thread-safe; every operation is atomic.
///
/// The records stand in an ``InMemoryExpiringValues`` until their expiry, so a sweep reads only what is due,
/// and an index by owner finds an account's sessions: no operation reads the whole table.
package final class InMemoryVersionedRecords<Record: VersionedRecord>: Sendable {
    /// The records, and their ids by owner.
    private struct Table: Sendable {
        var records = InMemoryExpiringValues<Record.ID, Record>()
        var owned: [Record.Owner: Set<Record.ID>] = [:]
        /// The ids of the records that await resumption (``VersionedRecord/awaitsResumption``).
        var awaiting: Set<Record.ID> = []
        /// Records created, for the sweep every ``sweepEvery`` of them.
        var creates = 0

        /// Stores a record in place of the one before it (nil for none), keeping the owner index.
        mutating func put(_ record: Record, replacing old: Record?) {
            records.set(record.id, record, keepUntil: record.expiresAt)
            if record.awaitsResumption { awaiting.insert(record.id) } else if old?.awaitsResumption == true { awaiting.remove(record.id) }
            guard old?.owner != record.owner else { return }
            if let old { forget(old) }
            if let owner = record.owner { owned[owner, default: []].insert(record.id) }
        }

        /// Takes a removed record out of the owner index.
        mutating func forget(_ record: Record) {
            guard let owner = record.owner else { return }
            owned[owner]?.remove(record.id)
            if owned[owner]?.isEmpty == true { owned[owner] = nil }
        }

        mutating func sweep(before instant: Date, limit: Int) -> Int {
            var removed: [Record] = []
            let count = records.sweep(before: instant, limit: limit) { _, record in removed.append(record) }
            for record in removed {
                forget(record)
                awaiting.remove(record.id)
            }
            return count
        }
    }

    /// How many creates apart the table sweeps itself: a store made by a default (`AppSessions(keys:)`,
    /// `LoginServer(…)` without a store), which no ``ExpiredRecordSweeper`` can reach, would otherwise keep every
    /// record it ever held.
    static var sweepEvery: Int { 1024 }

    private let table = LockedValue(Table())

    /// Creates an empty table.
    package init() {}

    /// How many records are stored.
    package var count: Int { table.withLock { $0.records.count } }

    /// Reads a record.
    /// - Parameter id: The id.
    /// - Returns: The record, or nil.
    package func load(_ id: Record.ID) -> Record? {
        table.withLock { $0.records.stored(id) }
    }

    /// The records of an owner.
    /// - Parameter owner: The owner.
    /// - Returns: Its records, in no order.
    /// - Complexity: O(its records).
    package func records(of owner: Record.Owner) -> [Record] {
        table.withLock { table in (table.owned[owner] ?? []).compactMap { table.records.stored($0) } }
    }

    /// The ids of the records that await resumption (``VersionedRecord/awaitsResumption``), expired ones
    /// not yet swept among them.
    /// - Complexity: O(their count), never the table's size.
    package var awaitingResumption: [Record.ID] {
        table.withLock { Array($0.awaiting) }
    }

    /// Stores a new record.
    /// - Parameter record: The record.
    /// - Throws: ``StoreError`` of kind `duplicate` when its id is taken.
    package func create(_ record: Record) throws(StoreError) {
        try table.withLock { table throws(StoreError) in
            guard table.records.stored(record.id) == nil else {
                throw StoreError(.duplicate, subject: Record.subject(record.id), message: "\(Record.article) \(Record.named) with this id exists")
            }
            table.creates &+= 1
            // What expired before this record was made, on its maker's clock (and was kept its time past that, as a
            // sweeper keeps it): O(expired) now and then, amortised. The store's creators share one clock.
            if table.creates % Self.sweepEvery == 0 {
                _ = table.sweep(before: record.createdAt.addingTimeInterval(-Record.keptPastExpiry), limit: .max)
            }
            table.put(record, replacing: nil)
        }
    }

    /// Replaces a record if it is still at `version` and the new one is at a later version.
    /// - Parameters:
    ///   - record: The new record.
    ///   - version: The version it was made from.
    /// - Throws: ``StoreError`` of kind `conflict` or `not-found`.
    package func replace(_ record: Record, expecting version: Int) throws(StoreError) {
        try replace(record, expecting: version) {}
    }

    /// Replaces a record if it is still at `version`, and runs `alongside` under the same lock once the
    /// compare-and-swap holds and before the record is written: both happen, or neither (a refused replace
    /// runs nothing).
    /// - Parameters:
    ///   - record: The new record.
    ///   - version: The version it was made from.
    ///   - alongside: What goes with the replace (an exchange ledger's claim or settle); it must not touch this
    ///     table.
    /// - Returns: What `alongside` returns.
    /// - Throws: ``StoreError`` of kind `conflict` or `not-found`; `alongside` did not run then.
    package func replace<T>(_ record: Record, expecting version: Int, alongside: () -> T) throws(StoreError) -> T {
        try table.withLock { table throws(StoreError) in
            guard let current = table.records.stored(record.id) else {
                throw StoreError(.notFound, subject: Record.subject(record.id), message: "no \(Record.named) has this id")
            }
            guard current.version == version, record.version > version else {
                throw StoreError(.conflict, subject: Record.subject(record.id), message: "expected version \(version), found \(current.version)")
            }
            let result = alongside()
            table.put(record, replacing: current)
            return result
        }
    }

    /// Removes records that expired before `instant`, at most `limit`.
    /// - Parameters:
    ///   - instant: The instant.
    ///   - limit: The most to remove.
    /// - Returns: How many were removed.
    /// - Complexity: O((r + q) log n) for r records removed and q whose expiry moved later since they were
    ///   queued; never the table's size.
    package func removeExpired(before instant: Date, limit: Int) -> Int {
        table.withLock { $0.sweep(before: instant, limit: limit) }
    }
}

/// An in-memory store of versioned records (``InMemoryLoginSessionStore``, ``InMemoryAppSessionStore``):
/// its create, load, replace and removal of expired records are its table's.
package protocol InMemoryVersionedStore: Sendable {
    /// The records the store keeps.
    associatedtype Record: VersionedRecord
    /// The store's records.
    var table: InMemoryVersionedRecords<Record> { get }
}

extension InMemoryVersionedStore {
    /// How many records are stored.
    package var count: Int { table.count }

    /// Stores a new record.
    /// - Parameter record: The record.
    /// - Throws: ``StoreError`` of kind `duplicate`.
    package func create(_ record: Record) async throws {
        try table.create(record)
    }

    /// Reads a record.
    /// - Parameter id: The id.
    /// - Returns: The record, or nil.
    package func load(_ id: Record.ID) async throws -> Record? {
        table.load(id)
    }

    /// Replaces a record if it is still at `version`.
    /// - Parameters:
    ///   - record: The new record.
    ///   - version: The version it was made from.
    /// - Throws: ``StoreError`` of kind `conflict` or `not-found`.
    package func replace(_ record: Record, expecting version: Int) async throws {
        try table.replace(record, expecting: version)
    }

    /// Removes records that expired before `instant`, at most `limit`.
    /// - Parameters:
    ///   - instant: The instant.
    ///   - limit: The most to remove.
    /// - Returns: How many were removed.
    package func removeExpired(before instant: Date, limit: Int) async throws -> Int {
        table.removeExpired(before: instant, limit: limit)
    }
}
