import OneTap

/// A login session's compare-and-swap and the exchange ledger's claim or settle of a token in one statement
/// (``LoginSessionLedgerWrites``): a data-modifying `WITH` whose ledger write runs only when the session's
/// `UPDATE … WHERE id = $1 AND version = $2` wrote, so both land or neither, in one trip to the server. What
/// ``PostgresLoginSessionStore`` offers for an exchange ledger of the same pool (``PostgresStores`` makes
/// both over one pool and schema).
///
/// - The claim's answer is read as ``PostgresExchangeLedger/claim(_:for:at:)`` reads its own (a row inserted
///   meanwhile by another instance, which the statement's snapshot cannot see, is read again by the ledger).
/// - A refused compare-and-swap is `conflict` (or `not-found`) from the version the row had when the
///   statement began: no second statement.
struct PostgresLoginSessionLedgerWrites: LoginSessionLedgerWrites {
    private let sessions: PostgresLoginSessionStore
    private let ledger: PostgresExchangeLedger
    private let claim, settle: String

    /// The joint writes of a store and a ledger over one pool.
    init(sessions: PostgresLoginSessionStore, ledger: PostgresExchangeLedger) {
        self.sessions = sessions
        self.ledger = ledger
        let first = sessions.replaceParameterCount + 1
        claim = sessions.replaceStatement(alongside: { ledger.claimStatement(from: first, gate: $0) }, selecting: ledger.claimAnswer(from: first))
        settle = sessions.replaceStatement(alongside: { ledger.settleStatement(from: first, gate: $0) }, selecting: nil)
    }

    func replace(_ session: LoginSession, expecting version: Int, claiming token: SHA256Digest, at now: Date) async throws -> ExchangeLedgerEntry? {
        let answered = try await sessions.replace(
            session, expecting: version, statement: claim, alongside: ledger.claimParameters(token, for: session.id, at: now),
            doing: "replace the login session and claim the token's exchange (the token was not exchanged)")
        return try await ledger.claim(token, for: session.id, at: now, answered: answered)
    }

    func replace(_ session: LoginSession, expecting version: Int, settling token: SHA256Digest, _ state: ExchangeLedgerState, at now: Date) async throws {
        _ = try await sessions.replace(
            session, expecting: version, statement: settle, alongside: ledger.settleParameters(token, state, at: now),
            doing: "replace the login session and record how the token's exchange ended")
    }
}

/// The login-session store writes with an exchange ledger over the same pool (``LoginSessionLedgerStore``).
extension PostgresVersionedStore: LoginSessionLedgerStore where Record == LoginSession {
    /// The joint writes with `ledger` when it is a ``PostgresExchangeLedger`` over this store's pool (so the
    /// same database and schema), else nil.
    /// - Parameter ledger: The guard's ledger.
    /// - Returns: The joint writes, or nil.
    package func ledgerWrites(with ledger: any ExchangeLedger) -> (any LoginSessionLedgerWrites)? {
        guard let ledger = ledger as? PostgresExchangeLedger, ledger.pool === pool else { return nil }
        return PostgresLoginSessionLedgerWrites(sessions: self, ledger: ledger)
    }
}
