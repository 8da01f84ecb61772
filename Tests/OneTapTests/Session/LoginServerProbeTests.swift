import Foundation
import OneTapTesting
import Testing
@testable import OneTap

/// Issue 21 review: a half-open circuit reserved its one probe for the whole cool-down (60 s) to the
/// first login that started, reported or not. One client starting a login each minute, never
/// reporting, kept China Mobile's one-tap closed for everyone. Now each distinct client holds at most
/// one of a few probes, and a probe that never reports is freed after the probe time limit (20 s).
@Suite struct LoginServerProbeTests {
    let clock = FakeClock()
    static let mobileSIM = DeviceSnapshot(sim: .present, plmn: try! PLMN("46000"))
    /// The carrier unreached (the adapter says the request never left): what the server itself saw.
    static let carrierDown = ExchangeNotSentError("connection refused by the carrier")

    /// A client of its own: its app session and its guest.
    static func client(_ index: Int) -> AccessClaims {
        let now = Date(timeIntervalSince1970: 1_795_000_000)
        return TestAppSession.keys.accessToken(
            session: try! AppSessionID("ProbeTestsSession0" + String(1_000 + index)), identity: .guest(try! GuestID("ProbeTestsGuest000" + String(1_000 + index))),
            epoch: 0, issuedAt: now, expiresAt: now.addingTimeInterval(86_400 * 365)
        ).claims
    }

    /// A server whose breaker is half open for China Mobile: ten exchanges failed at the carrier, then
    /// the cool-down passed.
    func halfOpen() async throws -> (LoginServer, ChannelHealth) {
        let health = ChannelHealth()
        let carrier = MockTokenExchange(Array(repeating: .error(Self.carrierDown), count: 10), number: try PhoneNumber("13800138000"), clock: clock)
        let logins = LoginServer(exchange: ExchangeGuard(provider: carrier, clock: clock), health: health, clock: clock, events: DiscardingEventSink())
        for index in 0..<10 {
            let started = try await logins.start(Self.mobileSIM, for: TestAppSession.me)
            let token = CarrierCredential(flow: .mobile, token: Secret("T-open-\(index)"), uniqueID: "u")
            _ = try await logins.report(.result(.mobile, code: "103000", credential: token), to: started.session.id, version: 1, from: TestAppSession.me)
        }
        clock.advance(by: .seconds(60))
        #expect(health.state(of: .mobile, for: .mobile, at: clock.now()) == .halfOpen)
        return (logins, health)
    }

    func probes(_ logins: LoginServer, _ client: Int, address: String) async throws -> Bool {
        let started = try await logins.start(Self.mobileSIM, for: Self.client(client), address: try IPAddress(address))
        return started.session.stage == .flow(.mobile, attempt: 1)
    }

    /// A client that holds a probe and never reports does not hold the channel closed for the others.
    @Test func aProbeThatNeverReportsDoesNotShutOutOtherClients() async throws {
        let (logins, _) = try await halfOpen()
        #expect(try await probes(logins, 1, address: "198.51.100.1"))
        clock.advance(by: .seconds(1))
        #expect(try await probes(logins, 2, address: "198.51.100.2"), "another client probes while the first one's probe is silent")
    }

    /// A few distinct clients may probe at once (three); a fourth waits until a probe reports or its time
    /// limit passes (20 s), never the whole cool-down.
    @Test func probesAreFewAndTimeLimited() async throws {
        let (logins, _) = try await halfOpen()
        for client in 1...3 {
            #expect(try await probes(logins, client, address: "198.51.100.\(client)"))
        }
        #expect(try await probes(logins, 4, address: "198.51.100.4") == false, "three probes are under way")
        clock.advance(by: .seconds(20))
        #expect(try await probes(logins, 4, address: "198.51.100.4"), "the silent probes' time limit passed")
    }

    /// An attacker's read of the session machine: a client that probed and then said it has no provider for the flow
    /// (`unavailable`) fell back without a word to the breaker, so its probe held a slot for the probe's whole time
    /// limit; three such clients held every slot. `unavailable` frees the probe as a cancel does, counting nothing.
    @Test func aProbeThatSaysItsProviderIsUnavailableFreesItsSlot() async throws {
        let (logins, _) = try await halfOpen()
        for client in 1...3 {
            let started = try await logins.start(Self.mobileSIM, for: Self.client(client), address: try IPAddress("198.51.100.\(client)"))
            #expect(started.session.stage == .flow(.mobile, attempt: 1))
            let next = try await logins.report(.unavailable(.mobile), to: started.session.id, version: started.session.version, from: Self.client(client))
            #expect(next.session.stage == .flow(.sms, attempt: 1))
        }
        #expect(try await probes(logins, 4, address: "198.51.100.4"), "the three probes said their provider was unavailable")
    }

    /// One client holds one probe: its second login replaces its first probe instead of taking another
    /// slot, so a single client cannot take every slot.
    @Test func oneClientHoldsOneProbe() async throws {
        let (logins, _) = try await halfOpen()
        for _ in 0..<5 {
            #expect(try await probes(logins, 1, address: "198.51.100.1"))
        }
        #expect(try await probes(logins, 2, address: "198.51.100.2"))
        #expect(try await probes(logins, 3, address: "198.51.100.3"))
    }
}

/// Review of issue 21: a client that drops its connection while the carrier has its token was counted as
/// the server's own exchange time-out, in full; ten such drops by ONE client opened China Mobile's
/// circuit for everyone. A disconnect is the client's word, once per client.
@Suite(.timeLimit(.minutes(3))) struct LoginServerDisconnectBreakerTests {
    let clock = FakeClock()
    static let mobileSIM = DeviceSnapshot(sim: .present, plmn: try! PLMN("46000"))

    @Test func tenDisconnectsByOneClientDoNotOpenTheBreaker() async throws {
        let health = ChannelHealth()
        let carrier = HeldTokenExchange()  // never answers: each call waits until its task is cancelled
        let logins = LoginServer(exchange: ExchangeGuard(provider: carrier, clock: clock), health: health, clock: clock, events: DiscardingEventSink())
        for index in 0..<10 {
            let started = try await logins.start(Self.mobileSIM, for: TestAppSession.me)
            let report = LoginReport.result(.mobile, code: "103000", credential: CarrierCredential(flow: .mobile, token: Secret("T-drop-\(index)"), uniqueID: "u"))
            let call = Task { try await logins.report(report, to: started.session.id, version: 1, from: TestAppSession.me) }
            await carrier.waitForCalls(index + 1)
            call.cancel()
            _ = await call.result
        }
        #expect(carrier.calls == 10)
        #expect(health.state(of: .mobile, for: .mobile, at: clock.now()) == .closed)
    }
}
