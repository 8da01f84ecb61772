/// A record a store keeps by id at a version, replaced by compare-and-swap, until it expires: a login
/// session, an app session. The in-memory stores keep them in ``InMemoryVersionedRecords``; the
/// PostgreSQL stores in a table of their own each, read and written the same way.
package protocol VersionedRecord: Sendable {
    /// The record's id type.
    associatedtype ID: Hashable & Sendable
    /// The record's id.
    var id: ID { get }
    /// The record's version: a replace is made from one and raises it.
    var version: Int { get }
    /// When the record may be removed.
    var expiresAt: Date { get }
    /// The store errors' subject for a record's id.
    /// - Parameter id: The id.
    /// - Returns: The subject.
    static func subject(_ id: ID) -> StoreError.Entry
    /// The record's name in a store error (`"session"`, `"app session"`).
    static var named: String { get }
    /// Its indefinite article (`"a"`, `"an"`).
    static var article: String { get }
}

extension LoginSession: VersionedRecord {
    package static func subject(_ id: LoginSessionID) -> StoreError.Entry { .session(id) }
    package static var named: String { "session" }
    package static var article: String { "a" }
}

extension AppSessionRecord: VersionedRecord {
    package static func subject(_ id: AppSessionID) -> StoreError.Entry { .appSession(id) }
    package static var named: String { "app session" }
    package static var article: String { "an" }
}
