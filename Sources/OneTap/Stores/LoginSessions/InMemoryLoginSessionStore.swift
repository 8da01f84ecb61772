/// Login sessions in this process's memory: the default, and the model the conformance suite checks
/// other stores against. Thread-safe; every operation is atomic.
public final class InMemoryLoginSessionStore: LoginSessionStore {
    private let table = InMemoryVersionedRecords<LoginSession>()
    private var sessions: LockedValue<[LoginSessionID: LoginSession]> { table.records }

    /// Creates an empty store.
    public init() {}

    /// How many sessions are stored.
    package var count: Int { sessions.withLock { $0.count } }

    /// Stores a new session (``LoginSessionStore/create(_:)``).
    /// - Parameter session: The session.
    /// - Throws: ``StoreError`` of kind `duplicate`.
    public func create(_ session: LoginSession) async throws {
        try table.create(session)
    }

    /// Reads a session (``LoginSessionStore/load(_:)``).
    /// - Parameter id: The id.
    /// - Returns: The session, or nil.
    public func load(_ id: LoginSessionID) async throws -> LoginSession? {
        sessions.withLock { $0[id] }
    }

    /// Replaces a session if it is still at `version` (``LoginSessionStore/replace(_:expecting:)``).
    /// - Parameters:
    ///   - session: The new session.
    ///   - version: The version it was made from.
    /// - Throws: ``StoreError`` of kind `conflict` or `not-found`.
    public func replace(_ session: LoginSession, expecting version: Int) async throws {
        try table.replace(session, expecting: version)
    }

    /// Removes expired sessions (``LoginSessionStore/removeExpired(before:limit:)``).
    /// - Parameters:
    ///   - instant: The instant.
    ///   - limit: The most to remove.
    /// - Returns: How many were removed.
    public func removeExpired(before instant: Date, limit: Int) async throws -> Int {
        table.removeExpired(before: instant, limit: limit)
    }
}
