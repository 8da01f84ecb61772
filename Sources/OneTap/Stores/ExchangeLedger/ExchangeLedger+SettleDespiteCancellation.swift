extension ExchangeLedger {
    /// Records how a claimed token's paid call ended, even for a caller whose task was cancelled
    /// (``writeDespiteCancellation(_:)``).
    /// - Parameters:
    ///   - token: The token's ledger key.
    ///   - state: How the call ended.
    ///   - now: The time.
    /// - Throws: ``StoreError`` when the ledger cannot be written.
    package func settleDespiteCancellation(_ token: SHA256Digest, _ state: ExchangeLedgerState, at now: Date) async throws {
        try await writeDespiteCancellation { try await self.settle(token, state, at: now) }
    }
}

/// Runs a write that must land even for a caller whose task was cancelled (the end of a paid call): a store
/// gives up at once on a cancelled task (a pool waiting for a connection does), yet the gateway may have
/// billed, so the write always runs from a task that inherits no cancellation, whether the caller was
/// cancelled before it began or is cancelled while it runs, and is awaited, so it never outlives the call.
/// - Parameter write: The write.
/// - Returns: What it returns.
/// - Throws: What it throws.
package func writeDespiteCancellation<T: Sendable>(_ write: @escaping @Sendable () async throws -> T) async throws -> T {
    try await Task { try await write() }.value
}

/// Whether a store holds exactly `record` after a write whose answer was lost (a connection broken after the commit):
/// read despite the caller's cancellation (``writeDespiteCancellation(_:)``), as the write itself would have landed.
/// False when it holds another, none, or cannot be read: the write then counts as failed.
/// - Parameters:
///   - record: The record the write meant to store.
///   - load: Reads the record as stored.
/// - Returns: Whether the read found `record`.
package func readsBack<Record: Equatable & Sendable>(_ record: Record, _ load: @escaping @Sendable () async throws -> Record?) async -> Bool {
    do {
        return try await writeDespiteCancellation(load) == record
    } catch {
        return false
    }
}
