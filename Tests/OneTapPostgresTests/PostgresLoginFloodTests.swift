import Foundation
import OneTap
@testable import OneTapPostgres
import OneTapPostgresTestSupport
import OneTapTesting
import Testing

/// Issue 21, "abuse runs as load", on PostgreSQL: the flood of `LoginFloodTests` (twenty fake clients at
/// once, 900 starts and a report for each admitted one) over PostgreSQL's login sessions and exchange
/// ledger (a pool of 4), the quota counters in memory, while one honest user logs in. Nothing is lost:
/// every admitted start is a row, every accepted report's transition is the row, the honest login ends
/// `done success` with its number after one carrier call, and the ledger holds one row per exchange.
@Suite(.connectionBudget) struct PostgresLoginFloodTests {
    let clock = FakeClock()

    @Test func aFloodOfFakeLoginsLosesNothingOnPostgres() async throws {
        try await TestDatabase.withStores { stores in
            let sessions = stores.loginSessionStore()
            let carrier = FloodCarrier()
            let health = ChannelHealth()
            let server = LoginServer(
                store: sessions, exchange: ExchangeGuard(provider: carrier, ledger: stores.exchangeLedger(), clock: clock), health: health,
                quotas: LoginQuotas(policy: .builtIn, store: InMemoryLoginQuotaStore()), clock: clock, events: DiscardingEventSink())
            let flood = try LoginFlood(now: clock.now())

            let outcome = await flood.run(server, store: sessions, size: .init(clients: 20, loginsPerClient: 45, addressBlocks: 4))

            #expect(outcome.problems.isEmpty, "\(outcome.problems.prefix(5))")
            #expect(outcome.admittedStarts + outcome.refusedStarts == 900)
            // 60 starts a minute per /64 block (four) and for the shared "unknown" address (Data/login-quotas.csv).
            #expect(outcome.admittedStarts == 5 * 60)
            #expect(outcome.acceptedReports + outcome.refusedExchanges + outcome.rejectedReports == outcome.admittedStarts)
            #expect(outcome.storedSessions == outcome.admittedStarts)
            let schema = "\"\(stores.configuration.schema)\""
            let sessionRows = try await stores.pool.execute("SELECT count(*)::bigint FROM \(schema).login_sessions")
            #expect(sessionRows.first == [.int64(Int64(outcome.admittedStarts + 1))])

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

            #expect(carrier.totalCalls == outcome.exchanges + 1)
            let ledgerRows = try await stores.pool.execute("SELECT count(*)::bigint FROM \(schema).exchange_ledger")
            #expect(ledgerRows.first == [.int64(Int64(outcome.exchanges + 1))])
            #expect(outcome.exchanges <= 20 * 10)
        }
    }
}
