/// Records in this process's memory by id, each at a version: the create, the compare-and-swap replace
/// and the removal of expired records that the in-memory login-session and app-session stores share.
/// Thread-safe; every operation is atomic.
package final class InMemoryVersionedRecords<Record: VersionedRecord>: Sendable {
    /// The records by id.
    package let records = LockedValue<[Record.ID: Record]>([:])

    /// Creates an empty table.
    package init() {}

    /// How many records are stored.
    package var count: Int { records.withLock { $0.count } }

    /// Reads a record.
    /// - Parameter id: The id.
    /// - Returns: The record, or nil.
    package func load(_ id: Record.ID) -> Record? {
        records.withLock { $0[id] }
    }

    /// Stores a new record.
    /// - Parameter record: The record.
    /// - Throws: ``StoreError`` of kind `duplicate` when its id is taken.
    package func create(_ record: Record) throws(StoreError) {
        try records.withLock { records throws(StoreError) in
            guard records[record.id] == nil else {
                throw StoreError(.duplicate, subject: Record.subject(record.id), message: "\(Record.article) \(Record.named) with this id exists")
            }
            records[record.id] = record
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
        try records.withLock { records throws(StoreError) in
            guard let current = records[record.id] else {
                throw StoreError(.notFound, subject: Record.subject(record.id), message: "no \(Record.named) has this id")
            }
            guard current.version == version, record.version > version else {
                throw StoreError(.conflict, subject: Record.subject(record.id), message: "expected version \(version), found \(current.version)")
            }
            let result = alongside()
            records[record.id] = record
            return result
        }
    }

    /// Removes records that expired before `instant`, at most `limit`.
    /// - Parameters:
    ///   - instant: The instant.
    ///   - limit: The most to remove.
    /// - Returns: How many were removed.
    package func removeExpired(before instant: Date, limit: Int) -> Int {
        records.withLock { records in
            let expired = records.values.filter { $0.expiresAt < instant }.prefix(max(0, limit)).map(\.id)
            for id in expired { records[id] = nil }
            return expired.count
        }
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
