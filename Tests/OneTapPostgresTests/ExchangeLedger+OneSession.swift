import Foundation
import OneTap
import OneTapTesting

/// The one login session the PostgreSQL ledger tests claim for, unless a test names another.
enum OneSession {
    static let id = try! LoginSessionID("postgres-test-session0")
    static let other = try! LoginSessionID("another-login-session1")
}

extension ExchangeLedger {
    /// A claim for ``OneSession/id``, answering the state alone.
    func claim(_ token: SHA256Digest, at now: Date) async throws -> ExchangeLedgerState? {
        try await claim(token, for: OneSession.id, at: now)?.state
    }

    /// The unknown exchanges alone (no pending ones).
    func unknownExchanges(since: Date) async throws -> [ExchangeLedgerEntry] {
        try await unknownExchanges(since: since, pendingClaimedBefore: .distantPast)
    }
}

extension ExchangeGuard {
    /// An exchange for ``OneSession/id``, its events dropped.
    func exchange(_ credential: CarrierCredential, receivedAt: Date, rules: ExchangeRules) async throws -> ExchangeOutcome {
        try await exchange(credential, for: OneSession.id, receivedAt: receivedAt, rules: rules, events: DiscardingEventSink())
    }
}
