import OneTap

/// A ``LoginSessionStore`` wrapper that fails on demand, through ``FaultyStore/faults``: a store that is down, a
/// replace whose write lands but reports failure, a slow store; and counts the calls that reach the store.
public typealias FaultyLoginSessionStore = FaultyStore<any LoginSessionStore>

extension FaultyStore: LoginSessionStore where Base == any LoginSessionStore {

    /// Through the base store, or fails (``LoginSessionStore/create(_:)``).
    /// - Parameter session: The session.
    /// - Throws: ``StoreError``: the base store's, or the injected one.
    public func create(_ session: LoginSession) async throws {
        try await faults.run(.create, subject: .session(session.id)) { try await base.create(session) }
    }

    /// Through the base store, or fails (``LoginSessionStore/load(_:)``).
    /// - Parameter id: The id.
    /// - Returns: The session, or nil.
    /// - Throws: ``StoreError``: the base store's, or the injected one.
    public func load(_ id: LoginSessionID) async throws -> LoginSession? {
        try await faults.run(.load, subject: .session(id)) { try await base.load(id) }
    }

    /// Through the base store, or fails (``LoginSessionStore/replace(_:expecting:)``).
    /// - Parameters:
    ///   - session: The new session.
    ///   - version: The version it was made from.
    /// - Throws: ``StoreError``: the base store's, or the injected one.
    public func replace(_ session: LoginSession, expecting version: Int) async throws {
        try await faults.run(.replace, subject: .session(session.id)) { try await base.replace(session, expecting: version) }
    }

    /// Through the base store, or fails (``LoginSessionStore/removeExpired(before:limit:)``).
    /// - Parameters:
    ///   - instant: The instant.
    ///   - limit: The most to remove.
    /// - Returns: How many were removed.
    /// - Throws: ``StoreError``: the base store's, or the injected one.
    public func removeExpired(before instant: Date, limit: Int) async throws -> Int {
        try await faults.run(.removeExpired) { try await base.removeExpired(before: instant, limit: limit) }
    }
}
