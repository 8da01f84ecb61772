import Foundation
@testable import OneTap
@testable import OneTapGateways
import OneTapTesting
import Testing

/// A credential the client supplied that a gateway cannot put in its request is refused before anything is sent
/// (`GatewayError.Kind.refusedCredential`, `ExchangeNotSentError.refusedCredential`): the client's doing, counted
/// as the client's word by the circuit breaker, once per client, never as the carrier unreached.
@Suite struct RefusedCredentialTests {
    static let keys = try! ServerKeyRing([(try! KeyID("test"), try! ServerKey(bytes: [UInt8](repeating: 42, count: 32)))])
    /// ONE client (one app session, one guest, no address): its word must count once in the breaker.
    static let me: AccessClaims = {
        let now = Date(timeIntervalSince1970: 1_795_000_000)
        return keys.accessToken(
            session: try! AppSessionID("MyAppSession0000000000"), identity: .guest(try! GuestID("GuestOfTheTests000000A")), epoch: 0, issuedAt: now,
            expiresAt: now.addingTimeInterval(86_400 * 365)
        ).claims
    }()

    /// Tianyi (the XXTEA mode): a token holding '&' cannot go into the request and is refused before sending. It was
    /// refused as `misconfigured`, so the exchange counted as the carrier left unreached, the server's word in full,
    /// and ten logins of one client opened the circuit for every China Telecom user (a gateway attacker's read).
    @Test func oneClientsTianyiTokensWithAmpersandDoNotOpenTheBreaker() async throws {
        let clock = FakeClock()
        let transport = ScriptedHTTPTransport([], clock: clock)
        let gateway = try TianyiTokenExchange(
            configuration: TianyiConfiguration(appID: "8013818507", appSecret: Secret("S3cretS3cretS3cretS3cretS3cret12")), transport: transport, clock: clock)
        let health = ChannelHealth()
        let logins = LoginServer(exchange: ExchangeGuard(provider: gateway, clock: clock), health: health, clock: clock, events: DiscardingEventSink())
        let telecom = DeviceSnapshot(sim: .present, plmn: try PLMN("46011"))
        for index in 0..<10 {
            let started = try await logins.start(telecom, for: Self.me)
            let report = LoginReport.result(.tianyi, code: "0", credential: CarrierCredential(flow: .tianyi, token: Secret("made-up&\(index)")))
            _ = try await logins.report(report, to: started.session.id, version: 1, from: Self.me)
        }
        #expect(transport.requests.isEmpty, "nothing was ever sent to China Telecom")
        #expect(health.state(of: .tianyi, for: .telecom, at: clock.now()) == .closed, "one client opened the tianyi circuit for everyone")
    }

    /// Yidun: a token without ':' is refused before sending the same way, and must count the same way.
    @Test func oneClientsYidunTokensWithoutAColonDoNotOpenTheBreaker() async throws {
        let clock = FakeClock()
        let transport = ScriptedHTTPTransport([], clock: clock)
        let gateway = try YidunGateway(
            configuration: YidunConfiguration(secretID: "sid1", secretKey: Secret("secretKey-9"), businessID: "bid1"), transport: transport, clock: clock)
        let health = ChannelHealth()
        let machine = LoginSessionMachine(exchanges: try ExchangeRules().serving(.mobile, with: "yidun"))
        let logins = LoginServer(machine: machine, exchange: ExchangeGuard(provider: gateway, clock: clock), health: health, clock: clock, events: DiscardingEventSink())
        let mobile = DeviceSnapshot(sim: .present, plmn: try PLMN("46000"))
        for index in 0..<10 {
            let started = try await logins.start(mobile, for: Self.me)
            let report = LoginReport.result(.mobile, code: "103000", credential: CarrierCredential(flow: .mobile, token: Secret("nocolon\(index)"), uniqueID: "uid-1"))
            _ = try await logins.report(report, to: started.session.id, version: 1, from: Self.me)
        }
        #expect(transport.requests.isEmpty, "nothing was ever sent to Yidun")
        #expect(health.state(of: .mobile, for: .mobile, at: clock.now()) == .closed, "one client opened the mobile circuit for everyone")
    }
}
