import Foundation
import OneTapTesting
import Testing
@testable import OneTap

/// Issue 21, "abuse runs as load": a bounded flood of fake starts and reports (forty fake clients at
/// once, 1,800 starts and a report for each admitted one) against a server with the built-in quotas, the
/// breaker and a guarded exchange over the in-memory stores, while one honest user logs in. Nothing is
/// lost, the breaker stays closed, the quotas hold, and the ledger holds one row per exchange and
/// forgets them on schedule.
@Suite struct LoginFloodTests {
    let clock = FakeClock()

    /// A flood of one fake login still lets the honest user start (half of one was none, and it waited for ever).
    @Test(.timeLimit(.minutes(3))) func aFloodOfOneEnds() async throws {
        let sessions = InMemoryLoginSessionStore()
        let server = LoginServer(
            store: sessions, exchange: ExchangeGuard(provider: FloodCarrier(), ledger: InMemoryExchangeLedger(), clock: clock), clock: clock,
            events: DiscardingEventSink())
        let outcome = try await LoginFlood(now: clock.now()).run(server, store: sessions, size: .init(clients: 1, loginsPerClient: 1))
        #expect(outcome.admittedStarts + outcome.refusedStarts == 1)
        #expect(outcome.honest != nil, "\(outcome.problems)")
    }

    @Test func aFloodOfFakeLoginsLosesNothingAndTheHonestUserLogsIn() async throws {
        let sessions = InMemoryLoginSessionStore()
        let ledger = InMemoryExchangeLedger()
        let carrier = FloodCarrier()
        let health = ChannelHealth()
        let quotaStore = InMemoryLoginQuotaStore()
        let server = LoginServer(
            store: sessions, exchange: ExchangeGuard(provider: carrier, ledger: ledger, clock: clock), health: health,
            quotas: LoginQuotas(policy: .builtIn, store: quotaStore), clock: clock, events: DiscardingEventSink())
        let flood = try LoginFlood(now: clock.now())

        let outcome = await flood.run(server, store: sessions, size: .init(clients: 40, loginsPerClient: 45, addressBlocks: 4))

        #expect(outcome.problems.isEmpty, "\(outcome.problems.prefix(5))")
        #expect(outcome.admittedStarts + outcome.refusedStarts == 1800)
        // Data/login-quotas.csv: 60 starts a minute per address block (the clock stands still): four /64
        // blocks, and the shared "unknown" bucket of the fifth of the clients that give no address.
        #expect(outcome.admittedStarts == 5 * 60)
        #expect(outcome.requests == 1800 + 300)
        // Every admitted start got one report, taken or refused; every one is stored as its answer left it.
        #expect(outcome.acceptedReports + outcome.refusedExchanges + outcome.rejectedReports == outcome.admittedStarts)
        #expect(outcome.storedSessions == outcome.admittedStarts)
        #expect(sessions.count == outcome.admittedStarts + 1)
        // Made-up successes reached the (mock) carrier.
        #expect(outcome.exchanges >= 10)

        // The honest user: China Mobile's one-tap (the breaker closed), `done success` with the number,
        // one carrier call; stored as answered.
        let honest = try #require(outcome.honest)
        guard case .done(.success, .mobile, let verified) = honest.instruction else {
            Issue.record("the honest login ended \(honest.instruction)")
            return
        }
        #expect(verified?.phoneNumber == LoginFlood.honestNumber)
        #expect(carrier.calls(for: LoginFlood.honestToken) == 1)
        #expect(outcome.honestStored == honest.session)
        // More than ten fake clients reported China Mobile time-outs: its channel stayed closed (one-tap on).
        #expect(outcome.clientsReportingTimeouts.count >= 10)
        #expect(health.state(of: .mobile, for: .mobile, at: clock.now()) == .closed)

        // Each exchange is one carrier call and one ledger row; the quotas bound them (10 per device an hour).
        #expect(carrier.totalCalls == outcome.exchanges + 1)
        #expect(ledger.count == outcome.exchanges + 1)
        #expect(outcome.exchanges <= 40 * 10)

        // A day later the sweeper empties the ledger, the sessions and the quota counters.
        clock.advance(by: .seconds(86_401))
        let sweeper = ExpiredRecordSweeper(
            stores: [.exchangeLedger(ledger), .loginSessions(sessions), .loginQuotas(quotaStore)], clock: clock, events: DiscardingEventSink())
        let removed = await sweeper.sweepOnce()
        #expect(removed["exchange-ledger"] == outcome.exchanges + 1)
        #expect(removed["login-sessions"] == outcome.admittedStarts + 1)
        #expect(ledger.count == 0 && sessions.count == 0 && quotaStore.count == 0)
    }
}
