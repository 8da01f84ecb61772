import Foundation
import OneTap
import OneTapGateways
@testable import OneTapPostgres
import OneTapPostgresTestSupport
import OneTapTesting
import Testing

/// Issue 23, item 3: the login-session store writes a session together with the exchange ledger of its own
/// pool, one statement each (the joint writes' conformance suite), and a whole one-tap login through China
/// Mobile's gateway against its fake sends three statements, one round trip each: the start's insert, the
/// move to the exchange with the token's claim, the answer with the settle. The report reads no session: the
/// server decides on the copy it stored at the start (``RecentLoginSessions``). Before, six, then four.
@Suite(.connectionBudget, .timeLimit(.minutes(3))) struct PostgresLoginRoundTripsTests {
    @Test func conformsToTheJointWritesContract() async throws {
        try await checkConformance(try await TestDatabase.url(), { stores -> (store: any LoginSessionLedgerStore, ledger: any ExchangeLedger) in
            (PostgresLoginSessionStore(pool: stores.pool), stores.exchangeLedger())
        }) { make in
            try await LoginSessionLedgerWritesConformance.check(concurrency: 20) { try await make() }
        }
    }

    /// A joint claim that waited on the row while another transaction removed it (the sweeper, a login's end) is
    /// `not-found`, as the plain replace says: it answered `conflict` (`expected version 1, found 1`), from the version
    /// as the statement's snapshot saw it before the wait (a review of the PostgreSQL stores).
    @Test func aJointClaimWhoseRowWentWhileItWaitedIsNotFound() async throws {
        try await TestDatabase.withStores { stores in
            let machine = LoginSessionMachine()
            let now = Date(timeIntervalSinceReferenceDate: 786_000_000.25)
            let v1 = machine.start(DeviceSnapshot(sim: .present, plmn: try PLMN("46000")), at: now, id: .random()).session
            try await stores.loginSessionStore().create(v1)
            let credential = CarrierCredential(flow: .mobile, token: Secret("swept-token"), uniqueID: "u")
            let report = LoginReport.result(.mobile, code: "103000", credential: credential)
            let v2 = try machine.advance(v1, report.bound(to: v1), version: 1, at: now.addingTimeInterval(1)).session
            let writes = try #require(PostgresLoginSessionStore(pool: stores.pool).ledgerWrites(with: stores.exchangeLedger()))
            let held = try await HeldTransaction.begin(
                stores.configuration, [("DELETE FROM \"\(stores.configuration.schema)\".login_sessions WHERE id = $1", [.text(v1.id.text)])])
            async let claimed = writes.replace(v2, expecting: 1, claiming: credential.tokenDigest, at: now.addingTimeInterval(1))
            try await waitForLockWaiters(stores, running: "WITH replaced")
            try await held.execute("COMMIT")
            await held.release()
            do {
                _ = try await claimed
                Issue.record("a claim of a removed session was written")
            } catch let error as StoreError {
                #expect(error.kind == .notFound, "\(error)")
            }
        }
    }

    /// A ledger of another pool (another instance's, or another database's) is never written with the session.
    @Test func aLedgerOfAnotherPoolIsNotWrittenWithTheSession() async throws {
        try await TestDatabase.withStores { stores in
            let other = PostgresStores(configuration: stores.configuration)
            let store = PostgresLoginSessionStore(pool: stores.pool)
            #expect(store.ledgerWrites(with: stores.exchangeLedger()) != nil)
            #expect(store.ledgerWrites(with: other.exchangeLedger()) == nil)
            #expect(store.ledgerWrites(with: InMemoryExchangeLedger()) == nil)
            await other.close()
        }
    }

    /// One login's statements, counted by the pool's statement observer after a first login opened the
    /// connection: with the joint writes (``PostgresStores``' session store and ledger) and without them (the
    /// same store behind a wrapper, which offers none).
    @Test(arguments: [true, false])
    func aOneTapLoginIsThreeRoundTrips(joint: Bool) async throws {
        let fake = try await FakeServer.start(
            "cmcc_login_token_validate.py",
            arguments: ["--appid", PostgresGatewayLoginTests.appID, "--number", LoginFlood.honestNumber.digits, "--secret", PostgresGatewayLoginTests.secret])
        defer { fake.stop() }
        var configuration = ChinaMobileConfiguration(appID: PostgresGatewayLoginTests.appID, signing: .md5(secret: Secret(PostgresGatewayLoginTests.secret)))
        configuration.url = fake.url("/unisdk/rsapi/loginTokenValidate")
        configuration.timeout = .seconds(31)
        let gateway = try ChinaMobileTokenExchange(configuration: configuration, transport: URLSessionTransport())
        let log = StatementLog()
        try await TestDatabase.withStores(poolSize: 1, observer: log.observer) { stores in
            let clock = SystemClock()
            let store: any LoginSessionStore = joint ? stores.loginSessionStore() : FaultyLoginSessionStore(stores.loginSessionStore())
            let server = LoginServer(
                store: store, exchange: ExchangeGuard(provider: gateway, ledger: stores.exchangeLedger(), timeout: .seconds(30), clock: clock), clock: clock,
                events: DiscardingEventSink())
            let flood = try LoginFlood(now: clock.now())
            let (_, warming) = await flood.honestLogin(server, user: 1)
            #expect(warming == nil)
            let before = log.statements.count
            let (done, problem) = await flood.honestLogin(server, user: 2)
            #expect(problem == nil)
            guard case .done(.success, .mobile, let verified)? = done?.instruction else {
                Issue.record("the login ended \(done.map { "\($0.instruction)" } ?? "nowhere")")
                return
            }
            #expect(verified?.phoneNumber == LoginFlood.honestNumber)
            let sent = Array(log.statements[before...])
            let table = "\"\(stores.configuration.schema)\""
            let expected: [String] =
                joint
                ? ["INSERT INTO \(table).login_sessions", "WITH replaced AS (UPDATE \(table).login_sessions", "WITH replaced AS (UPDATE \(table).login_sessions"]
                // Without them the answer's session write goes before its settle: a retry that finds the settle finds the
                // session moved on.
                : ["INSERT INTO \(table).login_sessions", "UPDATE \(table).login_sessions", "WITH claimed AS (INSERT INTO \(table).exchange_ledger",
                    "UPDATE \(table).login_sessions", "INSERT INTO \(table).exchange_ledger"]
            try #require(sent.count == expected.count, "\(sent)")
            for (statement, start) in zip(sent, expected) { #expect(statement.hasPrefix(start), "\(statement)") }
            if joint {
                #expect(sent[1].contains("alongside AS (INSERT INTO \(table).exchange_ledger AS entry"), "the claim goes with the move")
                #expect(sent[2].contains("alongside AS (INSERT INTO \(table).exchange_ledger (token, state"), "the settle goes with the answer")
            }
            let rows = try await stores.pool.execute("SELECT state, code, phone_number, sends::bigint FROM \(table).exchange_ledger ORDER BY claimed_at_ms")
            #expect(rows.rows == Array(repeating: [.text("answered"), .text("103000"), .text(LoginFlood.honestNumber.digits), .int64(1)], count: 2))
            let finished = try #require(done)
            #expect(try await stores.loginSessionStore().load(finished.session.id) == finished.session)
        }
    }
}
