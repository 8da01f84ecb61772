extension ExchangeLedger {
    /// How many entries a page of ``unknownExchanges(since:pendingClaimedBefore:after:limit:)`` holds when OneTap
    /// pages through them (`onetap db reconcile`): 1,000.
    package static var reconciliationPageSize: Int { 1_000 }

    /// Every exchange to reconcile, read page by page (``unknownExchanges(since:pendingClaimedBefore:after:limit:)``)
    /// and held at once: for the tests, and for ledgers known to be small. `onetap db reconcile` writes each page as
    /// it comes instead.
    /// - Parameters:
    ///   - since: The earliest time to list an unknown exchange by.
    ///   - pendingClaimedBefore: List the pending exchanges claimed before this time.
    /// - Returns: The entries, oldest first, then by token.
    /// - Throws: ``StoreError`` when the ledger cannot be read.
    package func unknownExchanges(since: Date, pendingClaimedBefore: Date) async throws -> [ExchangeLedgerEntry] {
        var every: [ExchangeLedgerEntry] = []
        let size = Self.reconciliationPageSize
        while true {
            let page = try await unknownExchanges(since: since, pendingClaimedBefore: pendingClaimedBefore, after: every.last, limit: size)
            every += page
            if page.count < size { return every }
        }
    }
}
