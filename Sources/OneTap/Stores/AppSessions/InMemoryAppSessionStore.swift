/// App sessions in this process's memory: the default, and the model the conformance suite checks other
/// stores against. Thread-safe; every operation is atomic.
public final class InMemoryAppSessionStore: AppSessionStore {
    private let table = InMemoryVersionedRecords<AppSessionRecord>()
    private var records: LockedValue<[AppSessionID: AppSessionRecord]> { table.records }

    /// Creates an empty store.
    public init() {}

    /// How many sessions are stored.
    package var count: Int { records.withLock { $0.count } }

    /// Stores a new session (``AppSessionStore/create(_:)``).
    /// - Parameter record: The session.
    /// - Throws: ``StoreError`` of kind `duplicate`.
    public func create(_ record: AppSessionRecord) async throws {
        try table.create(record)
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
        try table.replace(record, expecting: version)
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
        table.removeExpired(before: instant, limit: limit)
    }
}
