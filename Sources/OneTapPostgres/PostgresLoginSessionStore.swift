import OneTap

/// Login sessions in PostgreSQL, shared by every server instance: what ``LoginServer`` keeps between a
/// login's requests. Make one with ``PostgresStores/loginSessionStore()``.
///
/// - One row per session in `<schema>.login_sessions`: the id (`text COLLATE "C"`), the version, the
///   expiry (`expires_at_ms`, milliseconds since 1970, indexed) and the session as its JSON
///   (``LoginSession/json()``, `onetap-session/2`, in a `text` column: readable as `session::json`, and
///   never rejected for what a report's text holds, as `jsonb` would reject an escaped NUL; a row of an
///   earlier version, `onetap-session/1`, is read as it is).
///   The JSON holds token digests only, never a token.
/// - ``replace(_:expecting:)`` is one compare-and-swap statement (`UPDATE … WHERE id = $1 AND version =
///   $2`), so of many instances racing one report exactly one wins; the others get `conflict`.
/// - With a ``PostgresExchangeLedger`` over the same pool (``PostgresStores`` makes both), the
///   compare-and-swap and the ledger's claim or settle of a token go in one statement, both or neither
///   (``LoginSessionLedgerStore``, ``PostgresLoginSessionLedgerWrites``). With `LoginServer`, which reports on
///   the copy of the session it stored last, a one-tap login is three round trips.
/// - Every value is a bound parameter; only the validated, quoted schema name is part of the statement
///   text. Errors never quote a session's contents.
/// - A database that is down or unreachable, or a statement that outlives the statement timeout (a row
///   held by a stuck transaction), fails the call with `io`, and nothing is written. When the connection
///   breaks while a write is on its way, the write may or may not have been committed, but the stored
///   session is always whole: the previous one or the new one.
package typealias PostgresLoginSessionStore = PostgresVersionedStore<LoginSession>

extension LoginSession: PostgresVersionedRecord {
    package static var storeName: String { "PostgresLoginSessionStore" }
    package static var table: String { "login_sessions" }
    package static var jsonColumn: String { "session" }
    package static var copiedColumns: [String] { ["expires_at_ms"] }
    package var copiedValues: [PostgresValue] { [.instant(expiresAt)] }
    package static func key(_ id: LoginSessionID) -> String { id.text }
}

/// The login-session store's operations are the versioned store's (``LoginSessionStore``).
extension PostgresVersionedStore: LoginSessionStore where Record == LoginSession {}
