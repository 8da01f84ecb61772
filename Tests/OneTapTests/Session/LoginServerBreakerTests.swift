import Foundation
import OneTapTesting
import Testing
@testable import OneTap

/// Issue 21, scenario 5: the shared circuit breaker moves on what the server observes (its exchange's
/// answers and time-outs), and on client reports only counted once per distinct client. Ten fake
/// sessions reporting `timeout` for China Mobile must not close one-tap for every user.
@Suite struct LoginServerBreakerTests {
    let clock = FakeClock()
    let store = InMemoryLoginSessionStore()
    static let mobileSIM = DeviceSnapshot(sim: .present, plmn: try! PLMN("46000"))
    static let number = try! PhoneNumber("13800138000")
    /// The carrier unreached (the adapter says the request never left): what the server itself saw.
    static let carrierDown = ExchangeNotSentError("connection refused by the carrier")

    /// The breaker's defaults: 20 attempts kept, 10 before it may open, half of them failures, 60 s.
    func health() -> ChannelHealth { ChannelHealth() }

    func server(health: ChannelHealth, exchange: ExchangeGuard? = nil, store: (any LoginSessionStore)? = nil) -> LoginServer {
        LoginServer(store: store ?? self.store, exchange: exchange, health: health, clock: clock, events: DiscardingEventSink())
    }

    /// An app session of its own (a distinct session id and guest), as a fake client can make many.
    static func client(_ index: Int) -> AccessClaims {
        let suffix = String(index).leftPadded(to: 4)
        let now = Date(timeIntervalSince1970: 1_795_000_000)
        return TestAppSession.keys.accessToken(
            session: try! AppSessionID("FakeClientSession0" + suffix), identity: .guest(try! GuestID("FakeClientGuest000" + suffix)), epoch: 0, issuedAt: now,
            expiresAt: now.addingTimeInterval(86_400 * 365)
        ).claims
    }

    static func success(_ token: String) -> LoginReport {
        .result(.mobile, code: "103000", credential: CarrierCredential(flow: .mobile, token: Secret(token), uniqueID: "uid-1"))
    }

    func opened(_ health: ChannelHealth) -> Bool {
        if case .open = health.state(of: .mobile, for: .mobile, at: clock.now()) { return true }
        return false
    }

    /// Ten app sessions that give no address (or one fake client behind them) report China Mobile
    /// timeouts: one client's word, counted once. Before: the breaker opened for everyone.
    @Test func tenFakeSessionsWithoutAnAddressDoNotOpenTheBreaker() async throws {
        let health = health()
        let logins = server(health: health)
        for index in 0..<10 {
            let claims = Self.client(index)
            let started = try await logins.start(Self.mobileSIM, for: claims)
            let next = try await logins.report(.timeout(.mobile), to: started.session.id, version: 1, from: claims)
            #expect(next.session.next == "sms")
        }
        #expect(health.state(of: .mobile, for: .mobile, at: clock.now()) == .closed)
        #expect(health.admit(.mobile, for: .mobile, at: clock.now()) == .allowed)
    }

    /// The same from ten logins of ONE app session.
    @Test func tenLoginsOfOneAppSessionDoNotOpenTheBreaker() async throws {
        let health = health()
        let logins = server(health: health)
        for _ in 0..<10 {
            let started = try await logins.start(Self.mobileSIM, for: TestAppSession.me)
            _ = try await logins.report(.fault(.mobile, "SDK said no"), to: started.session.id, version: 1, from: TestAppSession.me)
        }
        #expect(health.state(of: .mobile, for: .mobile, at: clock.now()) == .closed)
    }

    /// Ten distinct clients (app session, guest and address each their own) reporting timeouts are ten
    /// clients' word: the circuit opens, as it should when China Mobile's SDK really fails.
    @Test func tenDistinctClientsReportingTimeoutsOpenTheBreaker() async throws {
        let health = health()
        let logins = server(health: health)
        for index in 0..<10 {
            let claims = Self.client(index)
            let address = try IPAddress("203.0.113.\(index + 1)")
            let started = try await logins.start(Self.mobileSIM, for: claims, address: address)
            _ = try await logins.report(.timeout(.mobile), to: started.session.id, version: 1, from: claims, address: address)
        }
        #expect(opened(health))
    }

    /// Ten app sessions from one IPv4 address, and ten from addresses inside one IPv6 /56: one client.
    @Test(arguments: [
        (0..<10).map { _ in "203.0.113.7" },
        (0..<10).map { "2409:8900:1:2::\($0 + 1)" },
        (0..<10).map { "2409:8900:1:2:\($0 + 1):0:0:\($0 + 7)" },
        // Ten /64s of one /56 (2409:8900:1:200::/56): one site, after review (a client moving to a fresh
        // /64 for each report was ten clients).
        (0..<10).map { "2409:8900:1:2\($0)0::1" },
    ])
    func tenAppSessionsFromOneAddressBlockDoNotOpenTheBreaker(addresses: [String]) async throws {
        let health = health()
        let logins = server(health: health)
        for (index, text) in addresses.enumerated() {
            let claims = Self.client(index)
            let address = try IPAddress(text)
            let started = try await logins.start(Self.mobileSIM, for: claims, address: address)
            _ = try await logins.report(.timeout(.mobile), to: started.session.id, version: 1, from: claims, address: address)
        }
        #expect(health.state(of: .mobile, for: .mobile, at: clock.now()) == .closed)
    }

    /// Ten addresses but one app session (or one guest behind ten app sessions): one client.
    @Test func tenAddressesOfOneAppSessionDoNotOpenTheBreaker() async throws {
        let health = health()
        let logins = server(health: health)
        for index in 0..<10 {
            let address = try IPAddress("198.51.100.\(index + 1)")
            let started = try await logins.start(Self.mobileSIM, for: TestAppSession.me, address: address)
            _ = try await logins.report(.timeout(.mobile), to: started.session.id, version: 1, from: TestAppSession.me, address: address)
        }
        #expect(health.state(of: .mobile, for: .mobile, at: clock.now()) == .closed)
    }

    /// A bounded flood: 500 fake logins at once from one /64 (each its own app session, guest and
    /// address inside the block), every one reporting a timeout, on a server with quotas wide enough
    /// to let them all start. The circuit stays closed, and every login was stored and answered.
    @Test func aConcurrentFloodOfFakeTimeoutsFromOneBlockLeavesTheBreakerClosed() async throws {
        let health = health()
        let wide = try LoginQuotaPolicy(csv: "rule,key,counts,window_seconds,limit,source\nwide,ip,starts,3600,1000,test\n", file: "wide.csv")
        let logins = LoginServer(store: store, health: health, quotas: LoginQuotas(policy: wide), clock: clock, events: DiscardingEventSink())
        let answered = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<500 {
                group.addTask {
                    let claims = Self.client(index)
                    let address = try IPAddress("2409:8900:1:2::\(String(index + 1, radix: 16))")
                    let started = try await logins.start(Self.mobileSIM, for: claims, address: address)
                    let next = try await logins.report(.timeout(.mobile), to: started.session.id, version: 1, from: claims, address: address)
                    return next.session.next == "sms"
                }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(answered == 500)
        #expect(store.count == 500)
        #expect(health.state(of: .mobile, for: .mobile, at: clock.now()) == .closed)
    }

    /// What the server saw itself: ten exchanges the carrier failed (the token came from one client, the
    /// failure from the carrier's side) open the circuit. Before: the success was counted when reported,
    /// and the exchange's failure not at all, so the circuit stayed closed.
    @Test func realExchangeFailuresObservedByTheServerOpenTheBreaker() async throws {
        let health = health()
        let carrier = MockTokenExchange(Array(repeating: .error(Self.carrierDown), count: 10), number: Self.number, clock: clock)
        let logins = server(health: health, exchange: ExchangeGuard(provider: carrier, clock: clock))
        for index in 0..<10 {
            let started = try await logins.start(Self.mobileSIM, for: TestAppSession.me)
            let next = try await logins.report(Self.success("T-\(index)"), to: started.session.id, version: 1, from: TestAppSession.me)
            #expect(next.session.trace.last?.result.code == "exchange-failed", "\(next.session.trace)")
        }
        #expect(carrier.tokensSent.count == 10)
        #expect(opened(health), "\(health.state(of: .mobile, for: .mobile, at: clock.now()))")
        let skipped = try await logins.start(Self.mobileSIM, for: TestAppSession.me)
        #expect(skipped.session.trace.map(\.result.code) == ["circuit-open"])
    }

    /// Ten fake clients (no address: one client to the breaker) send made-up tokens the carrier answers
    /// with a body the adapter cannot read: the faults are the client's word, counted once, and the
    /// breaker stays closed. Before: each fault counted in full as the server's, and ten opened it.
    @Test func faultsFromTokensTheClientsSuppliedDoNotOpenTheBreaker() async throws {
        struct MalformedBody: Error {}
        let health = health()
        let carrier = MockTokenExchange(Array(repeating: .error(MalformedBody()), count: 10), number: Self.number, clock: clock)
        let logins = server(health: health, exchange: ExchangeGuard(provider: carrier, clock: clock))
        for index in 0..<10 {
            let claims = Self.client(index)
            let started = try await logins.start(Self.mobileSIM, for: claims)
            let next = try await logins.report(Self.success("T-made-up-\(index)"), to: started.session.id, version: 1, from: claims)
            #expect(next.session.trace.last?.result.code == "exchange-failed", "\(next.session.trace)")
        }
        #expect(carrier.tokensSent.count == 10)
        #expect(health.state(of: .mobile, for: .mobile, at: clock.now()) == .closed)
    }

    /// A server that exchanges outside (no guard) hands its own call's time-outs to `exchanged`: the
    /// server saw them, so ten open the circuit.
    @Test func timeoutsOfTheServersOwnExchangeOpenTheBreaker() async throws {
        let health = try await tenOwnExchanges(failingWith: TimeoutError(limit: .seconds(5))) { _ in TestAppSession.me }
        #expect(opened(health))
    }

    /// Ten logins whose exchange the server makes itself (no guard), each exchange handed to `exchanged` as `error`.
    /// - Parameters:
    ///   - error: What each exchange threw.
    ///   - claims: The app session of the login of each index.
    /// - Returns: The breaker's health after them.
    func tenOwnExchanges(failingWith error: any Error, _ claims: (Int) -> AccessClaims) async throws -> ChannelHealth {
        let health = health()
        let logins = server(health: health)
        for index in 0..<10 {
            let started = try await logins.start(Self.mobileSIM, for: claims(index))
            let asked = try await logins.report(Self.success("T-\(index)&x"), to: started.session.id, version: 1, from: claims(index))
            guard case .exchange(let credential) = asked.instruction else {
                Issue.record("expected an exchange instruction, got \(asked.instruction)")
                return health
            }
            _ = try await logins.exchanged(.failure(error), token: credential.token, session: started.session.id, version: 2, from: claims(index))
        }
        return health
    }

    /// A server that exchanges outside (no guard) hands `exchanged` its adapter's refusal of a credential the client
    /// made up (`ExchangeNotSentError(refusedCredential: true)`: a token the vendor's request cannot carry). Nothing
    /// was sent and it is the client's doing: ten from one stranger leave the breaker closed, as on the guard's path
    /// (an attacker's read: `exchanged` counted every `ExchangeNotSentError` as the carrier unreached, so ten made-up
    /// tokens shut one-tap for every user).
    @Test func credentialsTheAdapterRefusedToSendDoNotOpenTheBreakerOnTheServersOwnExchange() async throws {
        let refused = ExchangeNotSentError("the token holds a character the request cannot carry", refusedCredential: true)
        let health = try await tenOwnExchanges(failingWith: refused) { Self.client($0) }
        #expect(health.state(of: .mobile, for: .mobile, at: clock.now()) == .closed)
        // The carrier unreached, as the adapter says of a request that never left: the server's own observation.
        #expect(opened(try await tenOwnExchanges(failingWith: Self.carrierDown) { Self.client($0) }))
    }

    /// An attacker's read: `exchanged` told the breaker every caller as one client without an address, so a
    /// carrier refusing the tokens of ten users on ten addresses was one client's word and never opened the circuit.
    /// The caller passes the address, as to `report`.
    @Test func exchangedAnswersTellEachClientByTheAddressGiven() async throws {
        let health = health()
        let logins = server(health: health)
        for index in 0..<10 {
            let address = try IPAddress("203.0.113.\(index + 1)")
            let started = try await logins.start(Self.mobileSIM, for: Self.client(index), address: address)
            let asked = try await logins.report(Self.success("T-\(index)"), to: started.session.id, version: 1, from: Self.client(index), address: address)
            guard case .exchange(let credential) = asked.instruction else {
                Issue.record("expected an exchange instruction, got \(asked.instruction)")
                return
            }
            let refused = ExchangeResponse(code: "103114")   // the carrier's failure answer to the client's token: its word
            _ = try await logins.exchanged(
                .success(refused), token: credential.token, session: started.session.id, version: 2, from: Self.client(index), address: address)
        }
        #expect(opened(health))
    }

    /// A success counts once its exchange succeeded: a success report whose exchange failed is one
    /// failure in the window, not a success and a failure.
    @Test func aSuccessCountsOnlyAfterItsExchange() async throws {
        let health = ChannelHealth(window: 2, minimumAttempts: 2, failureThreshold: 1.0)
        let carrier = MockTokenExchange([.error(Self.carrierDown), .error(Self.carrierDown)], number: Self.number, clock: clock)
        let logins = server(health: health, exchange: ExchangeGuard(provider: carrier, clock: clock))
        for index in 0..<2 {
            let started = try await logins.start(Self.mobileSIM, for: TestAppSession.me)
            _ = try await logins.report(Self.success("T-\(index)"), to: started.session.id, version: 1, from: TestAppSession.me)
        }
        #expect(opened(health), "two exchanges failed: both attempts in the window are failures")
    }

    /// Opens the circuit by ten failed exchanges and lets the cool-down pass: the next login probes.
    func openThenCoolDown(_ health: ChannelHealth, _ logins: LoginServer) async throws {
        for index in 0..<10 {
            let started = try await logins.start(Self.mobileSIM, for: TestAppSession.me)
            _ = try await logins.report(Self.success("T-open-\(index)"), to: started.session.id, version: 1, from: TestAppSession.me)
        }
        #expect(opened(health))
        clock.advance(by: .seconds(60))
        #expect(health.state(of: .mobile, for: .mobile, at: clock.now()) == .halfOpen)
    }

    /// The probe's client reports a timeout: one client's word does not re-open the circuit for
    /// everyone; the probe slot is freed and the next login probes. Before: it re-opened for 60 s.
    @Test func aProbeFailedByAClientReportDoesNotReopenTheCircuit() async throws {
        let health = health()
        let carrier = MockTokenExchange(Array(repeating: .error(Self.carrierDown), count: 10), number: Self.number, clock: clock)
        let logins = server(health: health, exchange: ExchangeGuard(provider: carrier, clock: clock))
        try await openThenCoolDown(health, logins)
        let probe = try await logins.start(Self.mobileSIM, for: Self.client(1))
        #expect(probe.session.stage == .flow(.mobile, attempt: 1), "\(probe.session.trace)")
        _ = try await logins.report(.timeout(.mobile), to: probe.session.id, version: 1, from: Self.client(1))
        #expect(health.state(of: .mobile, for: .mobile, at: clock.now()) == .halfOpen)
        let next = try await logins.start(Self.mobileSIM, for: Self.client(2))
        #expect(next.session.stage == .flow(.mobile, attempt: 1), "the next login probes at once: \(next.session.trace)")
    }

    /// The probe's exchange fails at the carrier: the server saw it, the circuit re-opens.
    @Test func aProbeWhoseExchangeFailsReopensTheCircuit() async throws {
        let health = health()
        let carrier = MockTokenExchange(Array(repeating: .error(Self.carrierDown), count: 11), number: Self.number, clock: clock)
        let logins = server(health: health, exchange: ExchangeGuard(provider: carrier, clock: clock))
        try await openThenCoolDown(health, logins)
        let probe = try await logins.start(Self.mobileSIM, for: TestAppSession.me)
        _ = try await logins.report(Self.success("T-probe"), to: probe.session.id, version: 1, from: TestAppSession.me)
        #expect(health.state(of: .mobile, for: .mobile, at: clock.now()) == .open(until: clock.now().addingTimeInterval(60)))
    }

    /// The probe's exchange succeeds: the circuit closes.
    @Test func aProbeWhoseExchangeSucceedsClosesTheCircuit() async throws {
        let health = health()
        let carrier = MockTokenExchange(Array(repeating: .error(Self.carrierDown), count: 10), number: Self.number, clock: clock)
        let logins = server(health: health, exchange: ExchangeGuard(provider: carrier, clock: clock))
        try await openThenCoolDown(health, logins)
        let probe = try await logins.start(Self.mobileSIM, for: TestAppSession.me)
        let done = try await logins.report(Self.success("T-probe"), to: probe.session.id, version: 1, from: TestAppSession.me)
        #expect(done.session.ending == .success)
        #expect(health.state(of: .mobile, for: .mobile, at: clock.now()) == .closed)
    }

    /// A report that loses its compare-and-swap tells the breaker nothing (a breaker of one attempt
    /// would open on one failure).
    @Test func aReportThatLosesItsCompareAndSwapTellsTheBreakerNothing() async throws {
        let health = ChannelHealth(window: 1, minimumAttempts: 1, failureThreshold: 0.5)
        let failing = FaultyLoginSessionStore(store)
        let carrier = MockTokenExchange([.error(Self.carrierDown)], number: Self.number, clock: clock)
        let logins = server(health: health, exchange: ExchangeGuard(provider: carrier, clock: clock), store: failing)
        let started = try await logins.start(Self.mobileSIM, for: TestAppSession.me)
        // Twice: the report is tried on this instance's copy first, then on the stored session; both lose.
        failing.faults.inject(.refuse(.conflict, "another instance wrote first (scripted)"), into: [.replace], times: 2)
        await #expect {
            try await logins.report(.timeout(.mobile), to: started.session.id, version: 1, from: TestAppSession.me)
        } throws: { error in (error as? LoginRejection)?.kind == .staleVersion }
        #expect(health.state(of: .mobile, for: .mobile, at: clock.now()) == .closed)
        // The exchange's answer (a carrier failure) loses its compare-and-swap: nothing is told either.
        failing.faults.inject(.refuse(.conflict, "another instance wrote first (scripted)"), into: [.replace], after: 1, times: 1)
        await #expect {
            try await logins.report(Self.success("T-cas"), to: started.session.id, version: 1, from: TestAppSession.me)
        } throws: { error in (error as? LoginRejection)?.kind == .staleVersion }
        #expect(health.state(of: .mobile, for: .mobile, at: clock.now()) == .closed)
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
