/// App sessions in this process's memory: the default, and the model the conformance suite checks other
/// stores against. Thread-safe; every operation is atomic. Its create, load, replace and removal of
/// expired sessions are its table's (``InMemoryVersionedRecords``).
package final class InMemoryAppSessionStore: AppSessionStore, InMemoryVersionedStore {
    /// The sessions.
    package let table = InMemoryVersionedRecords<AppSessionRecord>()

    /// Creates an empty store.
    package init() {}

    /// The live sessions of an account (``AppSessionStore/sessions(of:)``).
    /// - Parameter account: The account.
    /// - Returns: Their ids.
    /// - Complexity: O(the account's sessions), never the table's size.
    package func sessions(of account: AccountID) async throws -> [AppSessionID] {
        table.records(of: account).filter { $0.revoked == nil }.map(\.id)
    }

    /// The sessions with a pending guest-data merge, a page at a time (``AppSessionStore/pendingMerges(after:limit:)``).
    /// - Parameters:
    ///   - cursor: The last id of the page before; nil for the first page.
    ///   - limit: The most ids to list.
    /// - Returns: Their ids, in order.
    /// - Complexity: O(p log p) for p sessions with a pending merge, never the table's size.
    package func pendingMerges(after cursor: AppSessionID?, limit: Int) async throws -> [AppSessionID] {
        guard limit > 0 else { return [] }
        // Ids order by their text's bytes, as PostgreSQL's `COLLATE "C"` orders them.
        return Array(table.awaitingResumption.filter { id in cursor.map { id > $0 } ?? true }.sorted().prefix(limit))
    }
}
