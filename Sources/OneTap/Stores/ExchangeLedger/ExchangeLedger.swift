/// Which one-tap tokens were sent to the paid exchange, for which login session, and what the exchange
/// answered: so each token is exchanged at most once across every login and every server instance that
/// shares the ledger, and a retry of the same login gets the answer the exchange gave. Tokens are kept
/// only as SHA-256 digests, never as themselves.
///
/// A row holds the answer of an answered exchange (its code, the verified number and the account; a number
/// verification's code and verdict, ``ExchangeResponse/verdict``, which an adapter stores too): the
/// user's phone number is kept for as long as the row is, the ledger's retention (one day by default),
/// and goes with it.
///
/// OneTap ships ``InMemoryExchangeLedger`` (one process); several instances share one in a database
/// (`PostgresExchangeLedger` in `OneTapPostgres`). An adapter for another database proves itself with
/// `ExchangeLedgerConformance` from `OneTapTesting`.
public protocol ExchangeLedger: Sendable {
    /// Claims a token for one login session's exchange, atomically.
    /// - Parameters:
    ///   - token: The token's SHA-256.
    ///   - session: The login session the token came with.
    ///   - now: The time.
    /// - Returns: Nil when the token was never claimed (it is now, as `pending` for `session`, sent once),
    ///   else the entry as the ledger holds it (unchanged).
    /// - Throws: ``StoreError`` when the ledger cannot be read or written (`io`, `timeout`, `corrupt`);
    ///   the token is then not exchanged.
    func claim(_ token: SHA256Digest, for session: LoginSessionID, at now: Date) async throws -> ExchangeLedgerEntry?

    /// Claims again, atomically, a token whose exchange's result is unknown, to send it once more and
    /// learn the result: only for the session that claimed it, and only once (`unknown` becomes `pending`
    /// and its sends two). Of any number of concurrent calls at most one succeeds.
    /// - Parameters:
    ///   - token: The token's SHA-256.
    ///   - session: The login session asking.
    ///   - now: The time (the entry's new claim time).
    /// - Returns: True when this call claimed it again; false when the token is not `unknown`, belongs to
    ///   another session (or none), or was sent again before.
    /// - Throws: ``StoreError`` when the ledger cannot be read or written; the token is then not sent.
    func resend(_ token: SHA256Digest, for session: LoginSessionID, at now: Date) async throws -> Bool

    /// Records how a claimed token's exchange ended.
    /// - Parameters:
    ///   - token: The token's SHA-256.
    ///   - state: `answered` (with the answer), `unknown` (timed out, or its caller went away) or `failed`
    ///     (no answer at all).
    ///   - now: The time.
    /// - Throws: ``StoreError`` when the ledger cannot be written.
    func settle(_ token: SHA256Digest, _ state: ExchangeLedgerState, at now: Date) async throws

    /// The exchanges to reconcile with the carrier's bill, oldest first, a page at a time: those whose result is
    /// unknown (they timed out, or their caller went away), and those still `pending` though claimed before
    /// `pendingClaimedBefore` (their caller died, or could not record the end). A page is bounded, so however many
    /// exchanges strangers left unknown, listing them never holds them all at once.
    /// - Parameters:
    ///   - since: The earliest time to list an unknown exchange by (when it was given up on).
    ///   - pendingClaimedBefore: List the pending exchanges claimed before this time (now minus the
    ///     guard's time-out); `.distantPast` for none.
    ///   - after: The last entry of the page before: this page lists what comes after its time and token, in the
    ///     order below; nil for the first page.
    ///   - limit: The most entries to list; below 1 lists none.
    /// - Returns: The entries, ordered by their time (an unknown one's settle, a pending one's claim), then by their
    ///   token's bytes; fewer than `limit` on the last page.
    /// - Throws: ``StoreError`` when the ledger cannot be read.
    /// - Complexity: One read of the ledger's entries to reconcile per page.
    func unknownExchanges(since: Date, pendingClaimedBefore: Date, after: ExchangeLedgerEntry?, limit: Int) async throws -> [ExchangeLedgerEntry]
}

/// What a ledger holds for one token.
public struct ExchangeLedgerEntry: Hashable, Sendable, CustomStringConvertible {
    /// The token's SHA-256.
    public let token: SHA256Digest
    /// Where its exchange stands, with the answer once answered.
    public let state: ExchangeLedgerState
    /// The login session that claimed it; nil for a token settled without a claim.
    public let session: LoginSessionID?
    /// When it was last claimed (or resent).
    public let claimedAt: Date
    /// When its state last changed.
    public let settledAt: Date
    /// How many times it was sent to the exchange: 1, or 2 after a resend.
    public let sends: Int

    /// Creates an entry (what a ledger adapter reads back).
    /// - Parameters:
    ///   - token: The token's SHA-256.
    ///   - state: Its state.
    ///   - session: The session that claimed it.
    ///   - claimedAt: When it was claimed.
    ///   - settledAt: When its state last changed.
    ///   - sends: How many times it was sent.
    public init(token: SHA256Digest, state: ExchangeLedgerState, session: LoginSessionID?, claimedAt: Date, settledAt: Date, sends: Int) {
        self.token = token
        self.state = state
        self.session = session
        self.claimedAt = claimedAt
        self.settledAt = settledAt
        self.sends = sends
    }

    /// When it counts for reconciliation: a pending entry's claim, any other's settle.
    package var at: Date { state == .pending ? claimedAt : settledAt }

    /// `ba7816bf… unknown session q3Vn… claimed 2026-…`: the digest's first 8 digits, never a number.
    public var description: String {
        "\(token.hex.prefix(8))… \(state) session \(session?.text ?? "none") claimed \(claimedAt.iso8601)"
    }
}

/// What a ledger holds for a token.
public enum ExchangeLedgerState: Hashable, Sendable, CustomStringConvertible {
    /// Claimed; the exchange is under way.
    case pending
    /// The exchange answered: the carrier's code, and on success the number and account, kept so a retry
    /// of the same login gets the same answer; for a number verification, its code and verdict (never the
    /// number), kept so a retry of the same token and number gets the same verdict.
    case answered(ExchangeResponse)
    /// The exchange timed out, or its caller went away: it may have been billed and spent.
    case unknown
    /// The call failed before any answer.
    case failed

    /// `pending`, `answered 103000`, `unknown`, `failed`: never the number.
    public var description: String {
        switch self {
        case .pending: "pending"
        case .answered(let response): "answered \(response.code)"
        case .unknown: "unknown"
        case .failed: "failed"
        }
    }

    /// `pending`, `answered`, `unknown` or `failed`: the state's name alone.
    public var name: String {
        switch self {
        case .pending: "pending"
        case .answered: "answered"
        case .unknown: "unknown"
        case .failed: "failed"
        }
    }
}
