/// Which one-tap tokens were sent to the paid exchange: so each token is exchanged at most once, across
/// every login and every server instance that shares the ledger. Tokens are kept only as SHA-256
/// digests, never as themselves.
///
/// OneTap ships ``InMemoryExchangeLedger`` (one process); several instances share one in a database
/// (`PostgresExchangeLedger` in `OneTapPostgres`). An adapter for another database proves itself with
/// `ExchangeLedgerConformance` from `OneTapTesting`.
public protocol ExchangeLedger: Sendable {
    /// Claims a token for an exchange, atomically.
    /// - Parameters:
    ///   - token: The token's SHA-256.
    ///   - now: The time.
    /// - Returns: Nil when the token was never claimed (it is now, as `pending`), else what the ledger
    ///   holds for it.
    /// - Throws: ``StoreError`` when the ledger cannot be read or written (`io`, `timeout`, `corrupt`);
    ///   the token is then not exchanged.
    func claim(_ token: SHA256Digest, at now: Date) async throws -> ExchangeLedgerState?

    /// Records how a claimed token's exchange ended.
    /// - Parameters:
    ///   - token: The token's SHA-256.
    ///   - state: `answered`, `unknown` (timed out) or `failed` (no answer at all).
    ///   - now: The time.
    /// - Throws: ``StoreError`` when the ledger cannot be written.
    func settle(_ token: SHA256Digest, _ state: ExchangeLedgerState, at now: Date) async throws

    /// The exchanges whose result is unknown (they timed out), oldest first: the list to reconcile
    /// with the carrier's bill.
    /// - Parameter since: The earliest time to list.
    /// - Returns: The tokens' digests and when they were given up on.
    /// - Throws: ``StoreError`` when the ledger cannot be read.
    func unknownExchanges(since: Date) async throws -> [(token: SHA256Digest, at: Date)]
}

/// What a ledger holds for a token.
public enum ExchangeLedgerState: Hashable, Sendable, CustomStringConvertible {
    /// Claimed; the exchange is under way.
    case pending
    /// The exchange answered with this code.
    case answered(ResultCode)
    /// The exchange timed out: it may have been billed and spent.
    case unknown
    /// The call failed before any answer.
    case failed

    /// `pending`, `answered 103000`, `unknown`, `failed`.
    public var description: String {
        switch self {
        case .pending: "pending"
        case .answered(let code): "answered \(code)"
        case .unknown: "unknown"
        case .failed: "failed"
        }
    }
}
