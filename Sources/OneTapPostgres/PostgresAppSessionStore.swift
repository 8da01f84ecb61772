import OneTap

/// App sessions in PostgreSQL, shared by every server instance: what ``AppSessions`` keeps of each app's
/// session (refresh-token digests, the grace successor's nonce, revocations). Make one with
/// ``PostgresStores/appSessionStore()``.
///
/// - One row per session in `<schema>.app_sessions`: the id (`text COLLATE "C"`), the version, the
///   account it is logged in to (null for a guest's), when it was revoked (null while it is not), its
///   refresh token's expiry (`expires_at_ms`), every instant whole milliseconds since 1970, and the record
///   as its JSON (``AppSessionRecord/json()``, `onetap-app-session/1`, in a `text` column). The JSON holds
///   keyed digests of refresh tokens and of the last login's number, never a token or a number. The account and revocation columns are copies
///   of the JSON's, kept for the index `app_sessions_account` (the live sessions of an account); the
///   expiry is indexed for cleanup (`app_sessions_expiry`), and the rows whose JSON holds a pending merge for
///   their resumption (`app_sessions_pending_merge`, a partial index on the JSON itself: ``pendingMerges(after:limit:)``).
/// - ``replace(_:expecting:)`` is one compare-and-swap statement (`UPDATE … WHERE id = $1 AND version =
///   $2`), so of many instances refreshing one token at once exactly one rotates; the others get
///   `conflict`, read the session again, and find their token the previous one.
/// - Every value is a bound parameter; only the validated, quoted schema name is part of the statement
///   text. Errors never quote a session's contents.
/// - A database that is down or unreachable fails the call with `io`, and nothing is written. When the
///   connection breaks while a write is on its way, the write may or may not have been committed, but the
///   stored session is always whole: the previous one or the new one.
package typealias PostgresAppSessionStore = PostgresVersionedStore<AppSessionRecord>

extension AppSessionRecord: PostgresVersionedRecord {
    package static var storeName: String { "PostgresAppSessionStore" }
    package static var table: String { "app_sessions" }
    package static var jsonColumn: String { "record" }
    package static var copiedColumns: [String] { ["account", "revoked_at_ms", "expires_at_ms"] }
    /// The account, the revocation instant and the expiry.
    package var copiedValues: [PostgresValue] { [account.map { .text($0.rawValue) } ?? .null, revoked.map { .instant($0.at) } ?? .null, .instant(expiresAt)] }
    package static func key(_ id: AppSessionID) -> String { id.text }
}

/// The app-session store's operations are the versioned store's (``AppSessionStore``), and the list of an
/// account's sessions.
extension PostgresVersionedStore: AppSessionStore where Record == AppSessionRecord {
    /// The ids of an account's sessions that are not revoked (``AppSessionStore/sessions(of:)``), from the
    /// index on the account.
    /// - Parameter account: The account.
    /// - Returns: The ids, in any order.
    /// - Throws: ``StoreError`` of kind `io`, or `corrupt` for a row whose id is no app session id.
    package func sessions(of account: AccountID) async throws -> [AppSessionID] {
        let rows = try await pool.execute(
            "SELECT id FROM \(table) WHERE account = $1 AND revoked_at_ms IS NULL", [.text(account.rawValue)]
        ) { error in
            failure(error, nil, doing: "list the account's app sessions")
        }
        return try ids(rows, account: account)
    }

    /// The sessions with a pending guest-data merge, a page at a time (``AppSessionStore/pendingMerges(after:limit:)``),
    /// from the partial index `app_sessions_pending_merge` (migration 15). A row whose id is no app session id (none
    /// OneTap wrote) is passed over, so it never stops the listing of those after it.
    /// - Parameters:
    ///   - cursor: The last id of the page before; nil for the first page.
    ///   - limit: The most ids to list.
    /// - Returns: The ids, ordered by their bytes (`COLLATE "C"`).
    /// - Throws: ``StoreError`` of kind `io` (`corrupt` for an id that does not read is not reached: the statement
    ///   lists only those of the form).
    package func pendingMerges(after cursor: AppSessionID?, limit: Int) async throws -> [AppSessionID] {
        guard limit > 0 else { return [] }
        // Every id is 22 characters, so the empty text comes before the first.
        let rows = try await pool.execute(
            "SELECT id FROM \(table) WHERE \(PostgresMigrations.pendingMerge) AND id > $1 AND id ~ '^[A-Za-z0-9_-]{22}$' ORDER BY id LIMIT $2",
            [.text(cursor?.text ?? ""), .int64(Int64(limit))]
        ) { error in
            failure(error, nil, doing: "list the app sessions with a pending merge")
        }
        return try ids(rows, account: nil)
    }

    /// The app session ids a listing's rows hold (its first column).
    /// - Parameters:
    ///   - rows: The rows.
    ///   - account: The account listed, for the error; nil for none.
    /// - Returns: The ids, in the rows' order.
    /// - Throws: ``StoreError`` of kind `corrupt` for a row whose id is no app session id (left as it is).
    private func ids(_ rows: PostgresRows, account: AccountID?) throws -> [AppSessionID] {
        var ids: [AppSessionID] = []
        for row in rows.rows {
            do {
                ids.append(try AppSessionID(row.first?.text ?? ""))
            } catch {
                throw StoreError(.corrupt, account: account, message: "a row in \(schema).app_sessions has no app session id (\(error.kind)); it was left as it is")
            }
        }
        return ids
    }
}
