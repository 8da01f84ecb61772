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
}
