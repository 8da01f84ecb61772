import Foundation
import OneTapTesting
@testable import OneTap

/// The one login session the guard and ledger tests exchange for, unless a test names another.
enum OneSession {
    static let id = try! LoginSessionID("exchange-test-session0")
    static let other = try! LoginSessionID("another-login-session1")

    /// The `index`th of many logins (0 to 999).
    static func numbered(_ index: Int) -> LoginSessionID { try! LoginSessionID("exchange-test-sess-\(String(1000 + index).suffix(3))") }
}

extension ExchangeGuard {
    /// An exchange for ``OneSession/id``, its events dropped: the tests of one login's exchanges.
    func exchange(_ credential: CarrierCredential, receivedAt: Date, rules: ExchangeRules) async throws -> ExchangeOutcome {
        try await exchange(credential, for: OneSession.id, receivedAt: receivedAt, rules: rules, events: DiscardingEventSink())
    }
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
