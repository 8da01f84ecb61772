extension ExchangeLedger {
    /// Records how a claimed token's paid call ended, even for a caller whose task was cancelled: a store gives up at
    /// once on a cancelled task (a pool waiting for a connection does), yet the gateway may have billed, so the end
    /// is written from a task that inherits no cancellation, and awaited, so it never outlives the call.
    /// - Parameters:
    ///   - token: The token's ledger key.
    ///   - state: How the call ended.
    ///   - now: The time.
    /// - Throws: ``StoreError`` when the ledger cannot be written.
    package func settleDespiteCancellation(_ token: SHA256Digest, _ state: ExchangeLedgerState, at now: Date) async throws {
        if Task.isCancelled {
            try await Task { try await self.settle(token, state, at: now) }.value
        } else {
            try await settle(token, state, at: now)
        }
    }
}
