/// Where app sessions live, shared by every server instance: create, load, compare-and-swap on the
/// version, the sessions of an account (to log out everywhere), and clean-up. Shaped for one SQL row per
/// session with a version column, like ``LoginSessionStore``.
///
/// OneTap ships ``InMemoryAppSessionStore``; an adapter for another store proves itself with
/// `AppSessionStoreConformance` from `OneTapTesting`.
public protocol AppSessionStore: Sendable {
    /// Stores a new session.
    /// - Parameter record: The session (version 1).
    /// - Throws: ``StoreError`` of kind `duplicate` when its id is taken, or `io`.
    func create(_ record: AppSessionRecord) async throws

    /// Reads a session.
    /// - Parameter id: The id.
    /// - Returns: The session, or nil when none has the id (or it was cleaned up).
    /// - Throws: ``StoreError`` of kind `io` or `corrupt`.
    func load(_ id: AppSessionID) async throws -> AppSessionRecord?

    /// Replaces a session if it is still at `version` (compare-and-swap).
    /// - Parameters:
    ///   - record: The session after a change (its version is greater than `version`).
    ///   - version: The version the change was made from.
    /// - Throws: ``StoreError`` of kind `conflict` when the stored version differs (another instance
    ///   changed it first), `not-found` when the session is gone, or `io`. Nothing is written then.
    func replace(_ record: AppSessionRecord, expecting version: Int) async throws

    /// The ids of the sessions logged in to an account that are not revoked.
    /// - Parameter account: The account.
    /// - Returns: The ids, in any order.
    /// - Throws: ``StoreError`` of kind `io` or `corrupt`.
    func sessions(of account: AccountID) async throws -> [AppSessionID]

    /// The ids of the sessions that hold a login's pending guest-data merge (``AppSessionRecord/pendingMerge``),
    /// a page at a time: what ``AppSessions/run(every:)`` resumes when no call of the session's own does (its
    /// answer was lost, or the process died, between the login's switch and its merge). A page is bounded, so
    /// however many merges wait, listing them never holds them all at once.
    /// - Parameters:
    ///   - cursor: The last id of the page before: this page lists the ids after it; nil for the first page.
    ///   - limit: The most ids to list; below 1 lists none.
    /// - Returns: The ids, in their order (``AppSessionID``'s `<`: the bytes of their text); fewer than `limit` on
    ///   the last page. An expired session not yet removed may be listed.
    /// - Throws: ``StoreError`` of kind `io` or `corrupt`.
    /// - Complexity: One read of the sessions with a pending merge per page, never of every session.
    func pendingMerges(after cursor: AppSessionID?, limit: Int) async throws -> [AppSessionID]

    /// Removes sessions whose expiry (``AppSessionRecord/expiresAt``) passed before an instant: a live one's refresh
    /// token's, a revoked one's the end of the access tokens issued before its revocation (its refresh token's
    /// expiry or the access lifetime after the revocation, the earlier; the first while a guest-data merge is pending
    /// in it).
    /// - Parameters:
    ///   - instant: The instant.
    ///   - limit: The most to remove in one call.
    /// - Returns: How many were removed.
    /// - Throws: ``StoreError`` of kind `io`.
    func removeExpired(before instant: Date, limit: Int) async throws -> Int
}
