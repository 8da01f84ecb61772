/// The statements one connection has prepared on the server (named prepared statements), so a statement
/// the connection runs again is parsed once, not on every call (and planned once when PostgreSQL settles
/// on a generic plan for it, after its fifth run), and its text is not sent again.
///
/// - A statement is prepared on its **second** run on the connection: one that runs once (a migration's
///   DDL, the session's `set_config`) never takes a name on the server.
/// - The key is the text **and the parameter types** sent with it: a prepared statement keeps the types
///   it was prepared with, and a `NULL` travels untyped (the server infers its type), so a statement run
///   once with a `NULL` and once with a value in the same place is two prepared statements.
/// - The cache is bounded: at most ``capacity`` names the server accepted on this connection, forgotten
///   ones included (a forgotten statement stays on the server until the connection closes), so the
///   server holds at most that many for it; past that, a new statement runs unprepared. The texts seen
///   once are bounded too, started afresh when full. (OneTap's statements are fixed texts, a few dozen.)
/// - Names are `onetap_<prefix>_1`, `onetap_<prefix>_2`…, the prefix drawn at random per connection, so a
///   pooler that mixes up server connections makes a name unknown (26000, which the connection recovers
///   from) rather than run another connection's statement. A forgotten statement's name is never reused.
/// - A name the server no longer knows (26000) means the session's prepared statements were dropped
///   together (`DEALLOCATE ALL`, `DISCARD ALL`, a pooler's reset): every statement is forgotten at once
///   (``forgetAll()``), so the statements after it, in the same transaction too, run unprepared rather
///   than fail one by one.
///
/// Touched by one thread at a time, as its connection is (lent to one caller at a time). A pure value: the
/// connection asks ``plan(_:types:)`` what to send and reports what the server accepted.
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

    private let prefix: String
    private var names: [Key: String] = [:]
    private var seenOnce: Set<Key> = []
    private var issued = 0
    private var forgotten = 0

    /// An empty cache.
    /// - Parameter prefix: What every name starts with (`onetap_3f9a06c1…_`): random per connection.
    init(prefix: String) {
        self.prefix = prefix
    }

    /// A prefix for a new connection: `onetap_` and 128 random bits in hex, from the system's random number
    /// generator, so that connections a pooler lends one server connection in turn never share a name (32 bits let two
    /// meet). With its counter a name stays within PostgreSQL's 63 bytes.
    static func randomPrefix() -> String {
        var generator = SystemRandomNumberGenerator()
        let hex = [generator.next() as UInt64, generator.next() as UInt64].map { bits in
            let digits = String(bits, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }
        return "onetap_" + hex.joined() + "_"
    }

    /// How many statements are prepared and remembered now.
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
            guard names.count + forgotten < Self.capacity else { return .unprepared }
            issued += 1
            return .prepare(prefix + String(issued))
        }
        if seenOnce.count >= Self.capacity { seenOnce.removeAll(keepingCapacity: true) }
        seenOnce.insert(key)
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
        if names.removeValue(forKey: Key(sql: sql, types: types)) != nil { forgotten += 1 }
    }

    /// Forgets every statement: the server said it no longer has one of them (26000), which happens when
    /// the session's prepared statements are dropped together (`DEALLOCATE ALL`, `DISCARD ALL`, a pooler's
    /// reset). They still count against the bound, as every forgotten one does: behind a pooler that mixes
    /// up server connections another server connection may hold them yet. The texts seen once are kept, so
    /// each statement is prepared again on its next run, under a new name, while the bound allows.
    mutating func forgetAll() {
        forgotten += names.count
        names.removeAll(keepingCapacity: true)
    }
}
