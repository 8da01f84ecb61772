#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
    /// - Throws: When the ledger cannot be read or written (a database ledger throws
    ///   ``ExchangeLedgerError``); the token is then not exchanged.
    func claim(_ token: SHA256Digest, at now: Date) async throws -> ExchangeLedgerState?

    /// Records how a claimed token's exchange ended.
    /// - Parameters:
    ///   - token: The token's SHA-256.
    ///   - state: `answered`, `unknown` (timed out) or `failed` (no answer at all).
    ///   - now: The time.
    /// - Throws: When the ledger cannot be written.
    func settle(_ token: SHA256Digest, _ state: ExchangeLedgerState, at now: Date) async throws

    /// The exchanges whose result is unknown (they timed out), oldest first: the list to reconcile
    /// with the carrier's bill.
    /// - Parameter since: The earliest time to list.
    /// - Returns: The tokens' digests and when they were given up on.
    /// - Throws: When the ledger cannot be read.
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

/// What a database-backed ``ExchangeLedger`` reports. New kinds may be added; match kinds with a
/// `default` case.
public struct ExchangeLedgerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong.
    public struct Kind: ErrorKind {
        /// The stable identifier, e.g. `"io"`.
        public let id: String

        private init(_ id: String) { self.id = id }

        /// The ledger failed (a database that is down).
        public static let io = Kind("io")
        /// What the ledger holds for a token cannot be read back.
        public static let corrupt = Kind("corrupt")
        /// The ledger did not answer within its time limit.
        public static let timeout = Kind("timeout")
    }

    /// What went wrong.
    public let kind: Kind
    /// An explanation, never a token or its digest.
    public let message: String

    /// Creates a ledger error (for ledger adapters outside OneTap).
    /// - Parameters:
    ///   - kind: What went wrong.
    ///   - message: An explanation.
    public init(_ kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    /// `io: …`.
    public var description: String { "\(kind): \(message)" }
}

/// An exchange ledger in this process's memory. It forgets a token a day after its claim (no one-tap
/// token lives that long: `Data/token-lifetimes.csv`), so it stays bounded.
public final class InMemoryExchangeLedger: ExchangeLedger {
    private struct Entry {
        var state: ExchangeLedgerState
        var claimedAt: Date
        var settledAt: Date
    }

    private let entries = LockedValue<[SHA256Digest: Entry]>([:])
    /// How long a token is remembered: one day.
    public let retention: Duration

    /// Creates an empty ledger.
    /// - Parameter retention: How long a token is remembered; one day.
    public init(retention: Duration = .seconds(86_400)) {
        self.retention = retention
    }

    /// Claims a token (``ExchangeLedger/claim(_:at:)``).
    /// - Parameters:
    ///   - token: The token's SHA-256.
    ///   - now: The time.
    /// - Returns: Nil when it was never claimed, else its state.
    public func claim(_ token: SHA256Digest, at now: Date) async throws -> ExchangeLedgerState? {
        let horizon = now.addingTimeInterval(-retention.seconds)
        return entries.withLock { entries in
            if entries.count > 4096 { entries = entries.filter { $0.value.claimedAt >= horizon } }
            if let entry = entries[token], entry.claimedAt >= horizon { return entry.state }
            entries[token] = Entry(state: .pending, claimedAt: now, settledAt: now)
            return nil
        }
    }

    /// Records how an exchange ended (``ExchangeLedger/settle(_:_:at:)``).
    /// - Parameters:
    ///   - token: The token's SHA-256.
    ///   - state: How it ended.
    ///   - now: The time.
    public func settle(_ token: SHA256Digest, _ state: ExchangeLedgerState, at now: Date) async throws {
        entries.withLock { entries in
            entries[token, default: Entry(state: state, claimedAt: now, settledAt: now)].state = state
            entries[token]?.settledAt = now
        }
    }

    /// The exchanges with an unknown result (``ExchangeLedger/unknownExchanges(since:)``).
    /// - Parameter since: The earliest time to list.
    /// - Returns: Their digests and times, oldest first.
    public func unknownExchanges(since: Date) async throws -> [(token: SHA256Digest, at: Date)] {
        entries.withLock { entries in
            entries.filter { $0.value.state == .unknown && $0.value.settledAt >= since }
                .map { (token: $0.key, at: $0.value.settledAt) }
                .sorted { $0.at < $1.at }
        }
    }
}
