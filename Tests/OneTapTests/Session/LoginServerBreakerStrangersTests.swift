import Foundation
import OneTapTesting
import Testing
@testable import OneTap

/// An attacker's read of the shared circuit breaker: strangers with free guest sessions, each from an address of
/// its own, reporting China Mobile's SDK failing, pushed a busy channel's successes out of its 20-attempt window:
/// ten such words opened the circuit for every user (to paid SMS) for a minute, and again each minute. Clients'
/// words are now weighed against the distinct clients the server saw succeed on the channel in the last two
/// minutes, not against a window of twenty attempts.
@Suite struct LoginServerBreakerStrangersTests {
    let clock = FakeClock()
    static let mobileSIM = DeviceSnapshot(sim: .present, plmn: try! PLMN("46000"))
    static let number = try! PhoneNumber("13800138000")

    /// A client of its own: an app session and a guest (free to make).
    static func client(_ index: Int) -> AccessClaims { LoginServerProbeTests.client(index) }

    /// A server with the breaker's defaults whose carrier answers every exchange with the number.
    func server(_ health: ChannelHealth) -> LoginServer {
        let carrier = MockTokenExchange(number: Self.number, clock: clock)
        return LoginServer(exchange: ExchangeGuard(provider: carrier, clock: clock), health: health, clock: clock, events: DiscardingEventSink())
    }

    /// Client `index` logs in by one-tap from `address`, and the exchange succeeds.
    func succeeds(_ logins: LoginServer, _ index: Int, address: String) async throws {
        let claims = Self.client(index)
        let from = try IPAddress(address)
        let started = try await logins.start(Self.mobileSIM, for: claims, address: from)
        try #require(started.session.stage == .flow(.mobile, attempt: 1), "\(started.session.trace)")
        let credential = CarrierCredential(flow: .mobile, token: Secret("T-honest-\(index)-\(clock.now().timeIntervalSince1970)"), uniqueID: "u")
        let done = try await logins.report(.result(.mobile, code: "103000", credential: credential), to: started.session.id, version: 1, from: claims, address: from)
        #expect(done.session.ending == .success, "\(done.session.trace)")
    }

    /// Client `index` starts a one-tap login from `address` and reports that the SDK timed out.
    func saysItFails(_ logins: LoginServer, _ index: Int, address: String) async throws {
        let claims = Self.client(index)
        let from = try IPAddress(address)
        let started = try await logins.start(Self.mobileSIM, for: claims, address: from)
        guard started.session.stage == .flow(.mobile, attempt: 1) else { return }  // the channel is skipped: nothing to report
        _ = try await logins.report(.timeout(.mobile), to: started.session.id, version: 1, from: claims, address: from)
    }

    func state(_ health: ChannelHealth) -> ChannelHealth.CircuitState { health.state(of: .mobile, for: .mobile, at: clock.now()) }

    /// Forty users logged in within the last minute, each from an address of its own. Strangers from distinct
    /// addresses saying the SDK fails open the circuit only once they are as many as those users: 39 leave it
    /// closed, the 40th opens it. Before: the tenth opened it.
    @Test func strangersMustBeAsManyAsTheClientsTheServerSawSucceed() async throws {
        let health = ChannelHealth()
        let logins = server(health)
        for index in 0..<40 {
            try await succeeds(logins, index, address: "100.64.\(index).1")
            clock.advance(by: .seconds(1))
        }
        for index in 0..<39 {
            try await saysItFails(logins, 1_000 + index, address: "203.0.\(index).7")
            #expect(state(health) == .closed, "after \(index + 1) strangers")
        }
        try await saysItFails(logins, 1_039, address: "203.0.39.7")
        #expect(state(health) == .open(until: clock.now().addingTimeInterval(60)))
    }

    /// The users' successes weigh for two minutes: after that, ten clients saying the SDK fails open the circuit
    /// (an outage on a quiet channel is still seen).
    @Test func successesOlderThanTwoMinutesNoLongerWeigh() async throws {
        let health = ChannelHealth()
        let logins = server(health)
        for index in 0..<40 { try await succeeds(logins, index, address: "100.64.\(index).1") }
        clock.advance(by: .seconds(120))
        for index in 0..<9 { try await saysItFails(logins, 1_000 + index, address: "203.0.\(index).7") }
        // Nine failing clients: fewer than the ten the circuit needs.
        #expect(state(health) == .closed)
        try await saysItFails(logins, 1_009, address: "203.0.9.7")
        #expect(state(health) == .open(until: clock.now().addingTimeInterval(60)))
    }

    /// Strangers who opened a fresh server's circuit (no success seen yet: as a real outage must) cannot hold it:
    /// after the cool-down, users' successful probes weigh against the strangers' words until they outnumber them,
    /// and the same strangers saying it again change nothing. Before: the first probe's success closed the circuit
    /// and forgot everything, and the same ten strangers opened it again at once, each minute.
    @Test func theSameStrangersCannotOpenItAgainOnceUsersSucceed() async throws {
        let health = ChannelHealth()
        let logins = server(health)
        for index in 0..<10 { try await saysItFails(logins, 1_000 + index, address: "203.0.\(index).7") }
        #expect(state(health) == .open(until: clock.now().addingTimeInterval(60)))
        clock.advance(by: .seconds(60))
        for index in 0..<10 {
            try await succeeds(logins, index, address: "100.64.\(index).1")
            #expect(state(health) == .halfOpen, "\(index + 1) users against ten strangers: still probing")
        }
        try await succeeds(logins, 10, address: "100.64.10.1")
        #expect(state(health) == .closed, "eleven users outnumber ten strangers")
        for index in 0..<10 { try await saysItFails(logins, 1_000 + index, address: "203.0.\(index).7") }
        #expect(state(health) == .closed, "the same strangers again: each still one client's word")
    }

    /// While clients' words hold a circuit half open, a client whose probe it says failed takes no probe slot until the
    /// circuit opens or closes: a stranger starting again at once after each failed probe cannot keep a slot taken
    /// from the users.
    /// Before: its new start took a slot again, and three such strangers kept every user off the channel.
    @Test func aClientWhoseProbeItSaysFailedTakesNoSlotAgain() async throws {
        let health = ChannelHealth()
        let logins = server(health)
        for index in 0..<10 { try await saysItFails(logins, 1_000 + index, address: "203.0.\(index).7") }
        clock.advance(by: .seconds(60))
        let stranger = Self.client(2_000)
        let address = try IPAddress("198.51.100.9")
        let probe = try await logins.start(Self.mobileSIM, for: stranger, address: address)
        #expect(probe.session.stage == .flow(.mobile, attempt: 1))
        _ = try await logins.report(.timeout(.mobile), to: probe.session.id, version: 1, from: stranger, address: address)
        #expect(state(health) == .halfOpen, "a client's word never re-opens a half-open circuit")
        _ = try await logins.start(Self.mobileSIM, for: stranger, address: address)   // at once again
        for index in 0..<3 {
            let claims = Self.client(index)
            let started = try await logins.start(Self.mobileSIM, for: claims, address: try IPAddress("100.64.\(index).1"))
            #expect(started.session.stage == .flow(.mobile, attempt: 1), "user \(index + 1) of 3 probes: \(started.session.trace)")
        }
    }
}
