import OneTap

/// An ``AppSessionStore`` wrapper that fails on demand, through ``FaultyStore/faults``, and counts the
/// calls that reach the store.
public typealias FaultyAppSessionStore = FaultyStore<any AppSessionStore>

extension FaultyStore: AppSessionStore where Base == any AppSessionStore {
    /// Through the base store, or fails (``AppSessionStore/create(_:)``).
    /// - Parameter record: The session.
    /// - Throws: ``StoreError``: the base store's, or the injected one.
    public func create(_ record: AppSessionRecord) async throws {
        try await faults.run(.create, subject: .appSession(record.id)) { try await base.create(record) }
    }

    /// Through the base store, or fails (``AppSessionStore/load(_:)``).
    /// - Parameter id: The id.
    /// - Returns: The session, or nil.
    /// - Throws: ``StoreError``: the base store's, or the injected one.
    public func load(_ id: AppSessionID) async throws -> AppSessionRecord? {
        try await faults.run(.load, subject: .appSession(id)) { try await base.load(id) }
    }

    /// Through the base store, or fails (``AppSessionStore/replace(_:expecting:)``).
    /// - Parameters:
    ///   - record: The new session.
    ///   - version: The version it was made from.
    /// - Throws: ``StoreError``: the base store's, or the injected one.
    public func replace(_ record: AppSessionRecord, expecting version: Int) async throws {
        try await faults.run(.replace, subject: .appSession(record.id)) { try await base.replace(record, expecting: version) }
    }

    /// Through the base store, or fails (``AppSessionStore/sessions(of:)``).
    /// - Parameter account: The account.
    /// - Returns: The ids.
    /// - Throws: ``StoreError``: the base store's, or the injected one.
    public func sessions(of account: AccountID) async throws -> [AppSessionID] {
        try await faults.run(.sessions, subject: .account(account)) { try await base.sessions(of: account) }
    }

    /// Through the base store, or fails (``AppSessionStore/pendingMerges(after:limit:)``).
    /// - Parameters:
    ///   - cursor: The last id of the page before.
    ///   - limit: The most ids.
    /// - Returns: The ids.
    /// - Throws: ``StoreError``: the base store's, or the injected one.
    public func pendingMerges(after cursor: AppSessionID?, limit: Int) async throws -> [AppSessionID] {
        try await faults.run(.pendingMerges) { try await base.pendingMerges(after: cursor, limit: limit) }
    }

    /// Through the base store, or fails (``AppSessionStore/removeExpired(before:limit:)``).
    /// - Parameters:
    ///   - instant: The instant.
    ///   - limit: The most to remove.
    /// - Returns: How many were removed.
    /// - Throws: ``StoreError``: the base store's, or the injected one.
    public func removeExpired(before instant: Date, limit: Int) async throws -> Int {
        try await faults.run(.removeExpired) { try await base.removeExpired(before: instant, limit: limit) }
    }
}
