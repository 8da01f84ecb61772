import OneTap

/// An ``ExchangeLedger`` wrapper that fails on demand, through ``FaultyStore/faults``: a ledger that cannot claim (the
/// guard must then call no carrier), one that cannot settle, a slow one.
public typealias FaultyExchangeLedger = FaultyStore<any ExchangeLedger>

extension FaultyStore: ExchangeLedger where Base == any ExchangeLedger {

    /// Through the base ledger, or fails (``ExchangeLedger/claim(_:for:at:)``).
    /// - Parameters:
    ///   - token: The token's SHA-256.
    ///   - session: The login session the token came with.
    ///   - now: The time.
    /// - Returns: Nil when it was never claimed, else its entry.
    /// - Throws: ``StoreError``: the base ledger's, or the injected one.
    public func claim(_ token: SHA256Digest, for session: LoginSessionID, at now: Date) async throws -> ExchangeLedgerEntry? {
        try await faults.run(.claim) { try await base.claim(token, for: session, at: now) }
    }

    /// Through the base ledger, or fails (``ExchangeLedger/resend(_:for:at:)``; a fault injected into
    /// ``StoreOperation/claim`` strikes it too: a resend is a claim).
    /// - Parameters:
    ///   - token: The token's SHA-256.
    ///   - session: The login session asking.
    ///   - now: The time.
    /// - Returns: True when this call claimed it again.
    /// - Throws: ``StoreError``: the base ledger's, or the injected one.
    public func resend(_ token: SHA256Digest, for session: LoginSessionID, at now: Date) async throws -> Bool {
        try await faults.run(.claim) { try await base.resend(token, for: session, at: now) }
    }

    /// Through the base ledger, or fails (``ExchangeLedger/settle(_:_:at:)``).
    /// - Parameters:
    ///   - token: The token's SHA-256.
    ///   - state: How it ended.
    ///   - now: The time.
    /// - Throws: ``StoreError``: the base ledger's, or the injected one.
    public func settle(_ token: SHA256Digest, _ state: ExchangeLedgerState, at now: Date) async throws {
        try await faults.run(.settle) { try await base.settle(token, state, at: now) }
    }

    /// Through the base ledger, or fails (``ExchangeLedger/unknownExchanges(since:pendingClaimedBefore:after:limit:)``).
    /// - Parameters:
    ///   - since: The earliest time to list an unknown exchange by.
    ///   - pendingClaimedBefore: List the pending exchanges claimed before this time.
    ///   - after: The last entry of the page before; nil for the first.
    ///   - limit: The most entries to list.
    /// - Returns: Their entries, oldest first.
    /// - Throws: ``StoreError``: the base ledger's, or the injected one.
    public func unknownExchanges(since: Date, pendingClaimedBefore: Date, after: ExchangeLedgerEntry?, limit: Int) async throws -> [ExchangeLedgerEntry] {
        try await faults.run(.unknownExchanges) {
            try await base.unknownExchanges(since: since, pendingClaimedBefore: pendingClaimedBefore, after: after, limit: limit)
        }
    }
}
