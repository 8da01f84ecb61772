import Foundation

extension ExchangeGuard {
    /// Records how an exchange ended with the login session's move, in one write (the session's compare-and-swap
    /// carrying the settle, ``LoginSessionLedgerWrites``), even for a caller whose task was cancelled
    /// (``writeDespiteCancellation(_:)``).
    /// - Parameters:
    ///   - settlement: How the exchange ended.
    ///   - alongside: The write of the settle together with the session's.
    /// - Returns: True when it wrote both; false when it wrote neither (a refused compare-and-swap, or the store
    ///   failed): the caller then writes the session, and then the settle alone (``record(_:events:)``).
    package func record(_ settlement: ExchangeSettlement, alongside: @escaping @Sendable (ExchangeSettlement) async throws -> Void) async -> Bool {
        do {
            try await writeDespiteCancellation { try await alongside(settlement) }
            return true
        } catch {
            return false
        }
    }

    /// Records how an exchange ended, the ledger's settle alone, even for a caller whose task was cancelled
    /// (``writeDespiteCancellation(_:)``). A login server writes the session's move first: a retry that finds an
    /// answer recorded (an unknown one may be resent once) finds the session moved on, never at its exchange. A
    /// settle that fails is an event.
    /// - Parameters:
    ///   - settlement: How the exchange ended.
    ///   - events: Where a failure to record it is told.
    package func record(_ settlement: ExchangeSettlement, events: any EventSink) async {
        let ledger = self.ledger
        do {
            try await writeDespiteCancellation { try await ledger.settle(settlement.token, settlement.state, at: settlement.at) }
        } catch {
            // The answer stands; the ledger keeps `pending`, which refuses a resend (the safe side), and
            // reconciliation lists it once it is older than the time-out. Said, never swallowed.
            let reason = PhoneNumber.maskingNumbers(in: "\(error)", limit: 200)
            events.receive(OneTapEvent(
                at: clock.now(), .exchange(.settleFailed(tokenPrefix: String(settlement.token.hex.prefix(8)), state: settlement.state.name, reason: reason))))
        }
    }
}

/// How a call to the carrier ended, to record in the ledger (``ExchangeGuard/record(_:events:)``).
package struct ExchangeSettlement: Sendable, Hashable {
    /// The token's SHA-256.
    package let token: SHA256Digest
    /// How the call ended: `answered`, `unknown` or `failed`.
    package let state: ExchangeLedgerState
    /// When it ended.
    package let at: Date
}
