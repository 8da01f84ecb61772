/// App sessions in this process's memory: the default, and the model the conformance suite checks other
/// stores against. Thread-safe; every operation is atomic.
public final class InMemoryAppSessionStore: AppSessionStore {
    private let records = LockedValue<[AppSessionID: AppSessionRecord]>([:])

    /// Creates an empty store.
    public init() {}

    /// How many sessions are stored.
    package var count: Int { records.withLock { $0.count } }

    /// Stores a new session (``AppSessionStore/create(_:)``).
    /// - Parameter record: The session.
    /// - Throws: ``StoreError`` of kind `duplicate`.
    public func create(_ record: AppSessionRecord) async throws {
        try records.withLock { records throws(StoreError) in
            guard records[record.id] == nil else {
                throw StoreError(.duplicate, subject: .appSession(record.id), message: "an app session with this id exists")
            }
            records[record.id] = record
        }
    }

    /// Reads a session (``AppSessionStore/load(_:)``).
    /// - Parameter id: The id.
    /// - Returns: The session, or nil.
    public func load(_ id: AppSessionID) async throws -> AppSessionRecord? {
        records.withLock { $0[id] }
    }

    /// Replaces a session if it is still at `version` (``AppSessionStore/replace(_:expecting:)``).
    /// - Parameters:
    ///   - record: The new session.
    ///   - version: The version it was made from.
    /// - Throws: ``StoreError`` of kind `conflict` or `not-found`.
    public func replace(_ record: AppSessionRecord, expecting version: Int) async throws {
        try records.withLock { records throws(StoreError) in
            guard let current = records[record.id] else {
                throw StoreError(.notFound, subject: .appSession(record.id), message: "no app session has this id")
            }
            guard current.version == version, record.version > version else {
                throw StoreError(.conflict, subject: .appSession(record.id), message: "expected version \(version), found \(current.version)")
            }
            records[record.id] = record
        }
    }

    /// The live sessions of an account (``AppSessionStore/sessions(of:)``).
    /// - Parameter account: The account.
    /// - Returns: Their ids.
    public func sessions(of account: AccountID) async throws -> [AppSessionID] {
        records.withLock { records in records.values.filter { $0.account == account && $0.revoked == nil }.map(\.id) }
    }

    /// Removes expired sessions (``AppSessionStore/removeExpired(before:limit:)``).
    /// - Parameters:
    ///   - instant: The instant.
    ///   - limit: The most to remove.
    /// - Returns: How many were removed.
    public func removeExpired(before instant: Date, limit: Int) async throws -> Int {
        records.withLock { records in
            let expired = records.values.filter { $0.expiresAt < instant }.prefix(max(0, limit)).map(\.id)
            for id in expired { records[id] = nil }
            return expired.count
        }
    }
}
