import Foundation
import OneTap
import OneTapGateways
@testable import OneTapPostgres
import OneTapPostgresTestSupport
import OneTapTesting
import Testing

/// Issue 22, item 9: a whole login end to end, nothing faked on OneTap's side. `LoginServer` keeps its sessions and
/// its exchange ledger on PostgreSQL, and exchanges China Mobile's token through `ChinaMobileTokenExchange` over
/// `URLSessionTransport` against the fake written from China Mobile's document (it checks every field and the MD5
/// sign, and answers the number once per token). Start → success report → exchange → done, one login at a time and
/// eight at once: each ends `done success` with its number, each token is sent once, and the ledger keeps each
/// answer.
@Suite(.connectionBudget, .timeLimit(.minutes(3))) struct PostgresGatewayLoginTests {
    static let appID = "300011111111"
    static let secret = "appSecret-9f8e7d"

    @Test(arguments: [1, 8])
    func aLoginThroughChinaMobilesGatewayOnPostgres(concurrent: Int) async throws {
        let fake = try await FakeServer.start(
            "cmcc_login_token_validate.py", arguments: ["--appid", Self.appID, "--number", LoginFlood.honestNumber.digits, "--secret", Self.secret])
        defer { fake.stop() }
        var configuration = ChinaMobileConfiguration(appID: Self.appID, signing: .md5(secret: Secret(Self.secret)))
        configuration.url = fake.url("/unisdk/rsapi/loginTokenValidate")
        let gateway = try ChinaMobileTokenExchange(configuration: configuration, transport: URLSessionTransport())
        try await TestDatabase.withStores(poolSize: concurrent + 1) { stores in
            let clock = SystemClock()
            let ledger = stores.exchangeLedger()
            let server = LoginServer(
                store: stores.loginSessionStore(), exchange: ExchangeGuard(provider: gateway, ledger: ledger, clock: clock), clock: clock,
                events: DiscardingEventSink())
            let flood = try LoginFlood(now: clock.now())
            let logins = await withTaskGroup(of: (Int, LoginTransition?, String?).self) { group in
                for user in 0..<concurrent {
                    group.addTask {
                        let (transition, problem) = await flood.honestLogin(server, user: user)
                        return (user, transition, problem)
                    }
                }
                var all: [(Int, LoginTransition?, String?)] = []
                for await login in group { all.append(login) }
                return all
            }
            #expect(logins.count == concurrent)
            for (user, transition, problem) in logins {
                #expect(problem == nil, "user \(user): \(problem ?? "")")
                guard let transition else { continue }
                guard case .done(.success, .mobile, let verified) = transition.instruction else {
                    Issue.record("user \(user) ended \(transition.instruction)")
                    continue
                }
                #expect(verified?.phoneNumber == LoginFlood.honestNumber)
                // The session on PostgreSQL is the one the login answered with.
                let stored = try #require(try await stores.loginSessionStore().load(transition.session.id))
                #expect(stored.version == transition.session.version)
            }
            let schema = "\"\(stores.configuration.schema)\""
            // The ledger kept China Mobile's answer for each token, each sent once.
            let rows = try await stores.pool.execute("SELECT state, code, phone_number, sends::bigint FROM \(schema).exchange_ledger")
            #expect(rows.rows.count == concurrent)
            for row in rows.rows {
                #expect(row == [.text("answered"), .text("103000"), .text(LoginFlood.honestNumber.digits), .int64(1)])
            }
        }
    }
}
