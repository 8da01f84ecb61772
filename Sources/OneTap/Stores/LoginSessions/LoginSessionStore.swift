/// Where login sessions live between the app's requests, shared by every server instance: create,
/// load, compare-and-swap on the version, and clean up expired ones. Shaped for one SQL row per session
/// with a version column (`UPDATE … WHERE id = $1 AND version = $2`).
///
/// OneTap ships ``InMemoryLoginSessionStore``; `OneTapPostgres` ships one on PostgreSQL; an adapter for
/// another store proves itself with `LoginSessionStoreConformance` from `OneTapTesting`.
public protocol LoginSessionStore: Sendable {
    /// Stores a new session.
    /// - Parameter session: The session (version 1).
    /// - Throws: ``StoreError`` of kind `duplicate` when its id is taken, or `io`.
    func create(_ session: LoginSession) async throws

    /// Reads a session.
    /// - Parameter id: The id.
    /// - Returns: The session, or nil when none has the id (or it was cleaned up).
    /// - Throws: ``StoreError`` of kind `io` or `corrupt`.
    func load(_ id: LoginSessionID) async throws -> LoginSession?

    /// Replaces a session if it is still at `version` (compare-and-swap).
    /// - Parameters:
    ///   - session: The session after a report (its version is greater than `version`).
    ///   - version: The version the report was applied to.
    /// - Throws: ``StoreError`` of kind `conflict` when the stored version differs (someone
    ///   else's report won), `not-found` when the session is gone, or `io`. Nothing is written then.
    func replace(_ session: LoginSession, expecting version: Int) async throws

    /// Removes sessions that expired before an instant.
    /// - Parameters:
    ///   - instant: The instant.
    ///   - limit: The most to remove in one call.
    /// - Returns: How many were removed.
    /// - Throws: ``StoreError`` of kind `io`.
    func removeExpired(before instant: Date, limit: Int) async throws -> Int
}
