/// Login sessions in this process's memory: the default, and the model the conformance suite checks
/// other stores against. Thread-safe; every operation is atomic. Its operations are its table's
/// (``InMemoryVersionedRecords``); with an ``InMemoryExchangeLedger`` it writes a session and a ledger row
/// together (``LoginSessionLedgerStore``).
package final class InMemoryLoginSessionStore: LoginSessionStore, InMemoryVersionedStore, LoginSessionLedgerStore {
    /// The sessions.
    package let table = InMemoryVersionedRecords<LoginSession>()

    /// Creates an empty store.
    package init() {}

    /// The joint writes with an ``InMemoryExchangeLedger`` (``LoginSessionLedgerStore/ledgerWrites(with:)``).
    /// - Parameter ledger: The guard's ledger.
    /// - Returns: The joint writes, or nil for any other kind of ledger.
    package func ledgerWrites(with ledger: any ExchangeLedger) -> (any LoginSessionLedgerWrites)? {
        (ledger as? InMemoryExchangeLedger).map { Joint(table: table, ledger: $0) }
    }

    /// A replace and a ledger write under the table's lock, the ledger's taken inside it (the ledger never
    /// takes the table's, so the two locks are always taken in this order).
    private struct Joint: LoginSessionLedgerWrites {
        let table: InMemoryVersionedRecords<LoginSession>
        let ledger: InMemoryExchangeLedger

        func replace(_ session: LoginSession, expecting version: Int, claiming token: SHA256Digest, at now: Date) async throws -> ExchangeLedgerEntry? {
            try table.replace(session, expecting: version) { ledger.claimNow(token, for: session.id, at: now) }
        }

        func replace(_ session: LoginSession, expecting version: Int, settling token: SHA256Digest, _ state: ExchangeLedgerState, at now: Date) async throws {
            try table.replace(session, expecting: version) { ledger.settleNow(token, state, at: now) }
        }
    }
}
