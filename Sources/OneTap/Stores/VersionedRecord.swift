/// A record a store keeps by id at a version, replaced by compare-and-swap, until it expires: a login
/// session, an app session. The in-memory stores keep them in ``InMemoryVersionedRecords``; the
/// PostgreSQL stores in a table of their own each, read and written the same way.
package protocol VersionedRecord: Sendable {
    /// The record's id type.
    associatedtype ID: Hashable & Sendable
    /// Who a record belongs to, when a store finds records by it (an app session's account); `Never` when
    /// none does.
    associatedtype Owner: Hashable & Sendable = Never
    /// The record's id.
    var id: ID { get }
    /// The record's version: a replace is made from one and raises it.
    var version: Int { get }
    /// When the record may be removed.
    var expiresAt: Date { get }
    /// When it was made, on the clock of the server that made it: an in-memory store, made with no clock, sweeps
    /// what expired before the record it is creating was made (and ``keptPastExpiry`` more).
    var createdAt: Date { get }
    /// How long past its expiry a record is kept before a sweep removes it: a login session a minute
    /// (`LoginSessionMachine.exchangeAnswerGrace`: its exchange's answer is still taken, its success still told).
    static var keptPastExpiry: TimeInterval { get }
    /// Who it belongs to, nil for no one.
    var owner: Owner? { get }
    /// Whether it holds work its own calls may never finish, which a background service resumes (an app
    /// session's pending guest merge): what ``InMemoryVersionedRecords/awaitingResumption`` lists.
    var awaitsResumption: Bool { get }
    /// The store errors' subject for a record's id.
    /// - Parameter id: The id.
    /// - Returns: The subject.
    static func subject(_ id: ID) -> StoreError.Entry
    /// The record's name in a store error (`"session"`, `"app session"`).
    static var named: String { get }
    /// Its indefinite article (`"a"`, `"an"`).
    static var article: String { get }
}

extension VersionedRecord where Owner == Never {
    /// No one: no store finds these records by an owner.
    package var owner: Never? { nil }
}

extension VersionedRecord {
    /// None: a record of this kind holds no work for a background service.
    package var awaitsResumption: Bool { false }
}

extension LoginSession: VersionedRecord {
    package static var keptPastExpiry: TimeInterval { LoginSessionMachine.exchangeAnswerGrace }
    package static func subject(_ id: LoginSessionID) -> StoreError.Entry { .session(id) }
    package static var named: String { "session" }
    package static var article: String { "a" }
}

extension AppSessionRecord: VersionedRecord {
    package static var keptPastExpiry: TimeInterval { 0 }
    package static func subject(_ id: AppSessionID) -> StoreError.Entry { .appSession(id) }
    package static var named: String { "app session" }
    package static var article: String { "an" }
    /// The account it is logged in to: what `sessions(of:)` finds it by.
    package var owner: AccountID? { account }
    /// A login's guest-data merge is pending in it: what `pendingMerges(after:limit:)` finds it by.
    package var awaitsResumption: Bool { pendingMerge != nil }
}
