/// A login-session store that can write a session's compare-and-swap together with an exchange ledger's
/// claim or settle of a token, atomically: what lets a one-tap login's exchange cost two trips to the
/// database fewer (issue 23). ``LoginServer`` uses it when its store offers it for its ``ExchangeGuard``'s
/// ledger (``ledgerWrites(with:)`` is not nil), and takes one write after the other otherwise.
///
/// ``InMemoryLoginSessionStore`` offers it with an ``InMemoryExchangeLedger`` (both under their locks);
/// `PostgresStores` with its own exchange ledger (one statement: a data-modifying `WITH`). An adapter
/// proves itself with `LoginSessionLedgerWritesConformance` from `OneTapTesting`.
package protocol LoginSessionLedgerStore: LoginSessionStore {
    /// The writes of this store's sessions together with `ledger`'s rows.
    /// - Parameter ledger: The exchange ledger of the guard the sessions' exchanges go through.
    /// - Returns: The joint writes, or nil when `ledger` is not one this store can write atomically with a
    ///   session (another database, another kind of ledger, a wrapper).
    func ledgerWrites(with ledger: any ExchangeLedger) -> (any LoginSessionLedgerWrites)?
}

/// A login session's compare-and-swap and an exchange ledger's write of a token, as one atomic step: both
/// happen, or neither. Each is what the two calls would do one after the other
/// (``LoginSessionStore/replace(_:expecting:)`` and ``ExchangeLedger/claim(_:for:at:)`` or
/// ``ExchangeLedger/settle(_:_:at:)``), in one trip to the store.
package protocol LoginSessionLedgerWrites: Sendable {
    /// Replaces a session if it is still at `version`, and claims a token for it
    /// (``ExchangeLedger/claim(_:for:at:)``), atomically.
    /// - Parameters:
    ///   - session: The session after the report (at its exchange).
    ///   - version: The version the report was applied to.
    ///   - token: The token's SHA-256, claimed for `session`'s id.
    ///   - now: The time of the claim.
    /// - Returns: As the ledger's claim: nil when the token was never claimed (it is now, as `pending` for the
    ///   session), else the entry as the ledger holds it (unchanged; the session is replaced all the same).
    /// - Throws: ``StoreError`` of kind `conflict` or `not-found` as the replace throws them: then the token
    ///   was not claimed either. Any other ``StoreError`` (`io`, `timeout`, `corrupt`): nothing was written
    ///   (or, for a connection lost on the way, both or neither), with one exception: when another login claimed
    ///   the same token at the same moment, the claim is read again after the write, and a failure of that read
    ///   leaves the session replaced (at its exchange) and the token not claimed for it; the report's retry then
    ///   finds the session moved (`stale-version`) and recovers as any retry does.
    func replace(_ session: LoginSession, expecting version: Int, claiming token: SHA256Digest, at now: Date) async throws -> ExchangeLedgerEntry?

    /// Replaces a session if it is still at `version`, and records how a token's exchange ended
    /// (``ExchangeLedger/settle(_:_:at:)``), atomically.
    /// - Parameters:
    ///   - session: The session after the exchange's answer.
    ///   - version: The version it was made from (the session at its exchange).
    ///   - token: The token's SHA-256.
    ///   - state: How its exchange ended.
    ///   - now: The time of the settle.
    /// - Throws: ``StoreError`` of kind `conflict` or `not-found` as the replace throws them: then the settle
    ///   was not written either (write it alone). Any other ``StoreError``: nothing was written (or, for a
    ///   connection lost on the way, both or neither).
    func replace(_ session: LoginSession, expecting version: Int, settling token: SHA256Digest, _ state: ExchangeLedgerState, at now: Date) async throws
}
