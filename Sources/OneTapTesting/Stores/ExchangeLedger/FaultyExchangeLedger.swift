import OneTap

/// An ``ExchangeLedger`` wrapper that fails on demand, through ``FaultyStore/faults``: a ledger that cannot claim (the
/// guard must then call no carrier), one that cannot settle, a slow one.
public typealias FaultyExchangeLedger = FaultyStore<any ExchangeLedger>

extension FaultyStore: ExchangeLedger where Base == any ExchangeLedger {

    /// Through the base ledger, or fails (``ExchangeLedger/claim(_:at:)``).
    /// - Parameters:
    ///   - token: The token's SHA-256.
    ///   - now: The time.
    /// - Returns: Nil when it was never claimed, else its state.
    /// - Throws: ``StoreError``: the base ledger's, or the injected one.
    public func claim(_ token: SHA256Digest, at now: Date) async throws -> ExchangeLedgerState? {
        try await faults.run(.claim) { try await base.claim(token, at: now) }
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

    /// Through the base ledger, or fails (``ExchangeLedger/unknownExchanges(since:)``).
    /// - Parameter since: The earliest time to list.
    /// - Returns: Their digests and times, oldest first.
    /// - Throws: ``StoreError``: the base ledger's, or the injected one.
    public func unknownExchanges(since: Date) async throws -> [(token: SHA256Digest, at: Date)] {
        try await faults.run(.unknownExchanges) { try await base.unknownExchanges(since: since) }
    }
}
