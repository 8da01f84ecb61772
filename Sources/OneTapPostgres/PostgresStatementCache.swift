/// The statements one connection has prepared on the server (named prepared statements), so a statement
/// the connection runs again is parsed and planned once, not on every call, and its text is not sent
/// again.
///
/// - A statement is prepared on its **second** run on the connection: one that runs once (a migration's
///   DDL, the session's `set_config`) never takes a name on the server.
/// - The key is the text **and the parameter types** sent with it: a prepared statement keeps the types
///   it was prepared with, and a `NULL` travels untyped (the server infers its type), so a statement run
///   once with a `NULL` and once with a value in the same place is two prepared statements.
/// - The cache is bounded: at most ``capacity`` prepared statements and as many texts seen once; past
///   that, a new statement runs unprepared (OneTap's statements are fixed texts, a few dozen of them).
/// - Names are `onetap_1`, `onetap_2`… per connection; a forgotten statement's name is never reused.
///
/// Touched only on the connection's queue. A pure value: the connection asks ``plan(_:types:)`` what
/// to send and reports what the server accepted.
struct PostgresStatementCache {
    /// What to send for a statement.
    enum Plan: Equatable {
        /// Send it with its text, unnamed (`PQsendQueryParams`).
        case unprepared
        /// Prepare it under this name (`PQsendPrepare`), then run it by name; report with ``prepared(_:types:name:)``.
        case prepare(String)
        /// Run it by this name (`PQsendQueryPrepared`).
        case prepared(String)
    }

    /// A statement's text and the type of each value sent with it.
    private struct Key: Hashable {
        let sql: String
        let types: [UInt32]
    }

    /// The most statements prepared on one connection, and the most texts remembered as seen once.
    static let capacity = 256

    private var names: [Key: String] = [:]
    private var seenOnce: Set<Key> = []
    private var issued = 0

    /// How many statements are prepared now.
    var count: Int { names.count }

    /// What to send for `sql` run with values of `types`.
    /// - Parameters:
    ///   - sql: The statement's text.
    ///   - types: The type of each value (0 for an untyped `NULL`).
    /// - Returns: `.prepared` for a statement prepared before; `.prepare` with a new name on its second
    ///   run while there is room; else `.unprepared`.
    /// - Complexity: O(n) in the length of `sql` (one hash).
    mutating func plan(_ sql: String, types: [UInt32]) -> Plan {
        let key = Key(sql: sql, types: types)
        if let name = names[key] { return .prepared(name) }
        if seenOnce.contains(key) {
            guard names.count < Self.capacity else { return .unprepared }
            issued += 1
            return .prepare("onetap_\(issued)")
        }
        if seenOnce.count < Self.capacity { seenOnce.insert(key) }
        return .unprepared
    }

    /// Records that the server accepted the statement prepared under `name`.
    /// - Parameters:
    ///   - sql: The statement's text.
    ///   - types: The types it was prepared with.
    ///   - name: The name ``plan(_:types:)`` gave.
    mutating func prepared(_ sql: String, types: [UInt32], name: String) {
        let key = Key(sql: sql, types: types)
        seenOnce.remove(key)
        names[key] = name
    }

    /// Forgets the statement (the server no longer has it, or its plan no longer fits the tables): the
    /// next run sends it unprepared, the one after prepares it again under a new name.
    /// - Parameters:
    ///   - sql: The statement's text.
    ///   - types: The types it was prepared with.
    mutating func forget(_ sql: String, types: [UInt32]) {
        names[Key(sql: sql, types: types)] = nil
    }
}
