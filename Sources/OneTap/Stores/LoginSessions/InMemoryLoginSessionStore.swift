/// Login sessions in this process's memory: the default, and the model the conformance suite checks
/// other stores against. Thread-safe; every operation is atomic.
public final class InMemoryLoginSessionStore: LoginSessionStore {
    private let sessions = LockedValue<[LoginSessionID: LoginSession]>([:])

    /// Creates an empty store.
    public init() {}

    /// How many sessions are stored.
    package var count: Int { sessions.withLock { $0.count } }

    /// Stores a new session (``LoginSessionStore/create(_:)``).
    /// - Parameter session: The session.
    /// - Throws: ``StoreError`` of kind `duplicate`.
    public func create(_ session: LoginSession) async throws {
        try sessions.withLock { sessions throws(StoreError) in
            guard sessions[session.id] == nil else {
                throw StoreError(.duplicate, session: session.id, message: "a session with this id exists")
            }
            sessions[session.id] = session
        }
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
        try sessions.withLock { sessions throws(StoreError) in
            guard let current = sessions[session.id] else {
                throw StoreError(.notFound, session: session.id, message: "no session has this id")
            }
            guard current.version == version, session.version > version else {
                throw StoreError(
                    .conflict, session: session.id, message: "expected version \(version), found \(current.version)")
            }
            sessions[session.id] = session
        }
    }

    /// Removes expired sessions (``LoginSessionStore/removeExpired(before:limit:)``).
    /// - Parameters:
    ///   - instant: The instant.
    ///   - limit: The most to remove.
    /// - Returns: How many were removed.
    public func removeExpired(before instant: Date, limit: Int) async throws -> Int {
        sessions.withLock { sessions in
            let expired = sessions.values.filter { $0.expiresAt < instant }.prefix(max(0, limit)).map(\.id)
            for id in expired { sessions[id] = nil }
            return expired.count
        }
    }
}
