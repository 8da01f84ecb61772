#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import OneTap

/// An ``ExchangeLedger`` wrapper that fails on demand, through ``faults``: a ledger that cannot claim (the
/// guard must then call no carrier), one that cannot settle, a slow one.
public final class FaultyExchangeLedger: ExchangeLedger {
    /// Which operation a fault strikes.
    public enum Operation: Hashable, Sendable {
        /// ``ExchangeLedger/claim(_:at:)``.
        case claim
        /// ``ExchangeLedger/settle(_:_:at:)``.
        case settle
        /// ``ExchangeLedger/unknownExchanges(since:)``.
        case unknownExchanges
    }

    private let base: any ExchangeLedger
    /// Which calls fail, and how.
    public let faults: Faults<Operation>

    /// Wraps a ledger.
    /// - Parameters:
    ///   - base: The ledger that does the real work.
    ///   - clock: The clock injected delays wait on.
    public init(_ base: any ExchangeLedger, clock: any WallClock = SystemClock()) {
        self.base = base
        faults = Faults(clock: clock)
    }

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
