import Foundation
import OneTap
@testable import OneTapGateways
import OneTapTesting
import Testing

/// The aggregators' gateways as the exchange guard's provider: a token is sent once, a failure once the request may
/// have left stays `unknown` (it may be billed), and a request that never left is `failed`.
@Suite(.timeLimit(.minutes(3))) struct AggregatorsUnderExchangeGuardTests {
    static let session = try! LoginSessionID("gateway-test-session00")

    static func providers(_ transport: ScriptedHTTPTransport, clock: FakeClock) throws -> [(String, any TokenExchangeProvider, String)] {
        [
            ("jverification", try JVerificationGateway(
                configuration: JVerificationConfiguration(appKey: "k1", masterSecret: Secret("m1"), privateKey: Secret(try TestKeys.pem("app-private-pkcs8.pem"))), transport: transport), "t-jv"),
            ("shanyan", try ShanyanGateway(configuration: ShanyanConfiguration(appID: "a1", appKey: Secret("k1")), transport: transport), "t-sy"),
            ("yidun", try YidunGateway(configuration: YidunConfiguration(secretID: "s1", secretKey: Secret("k1"), businessID: "b1"), transport: transport, clock: clock), "t-yd:acc"),
        ]
    }

    @Test(arguments: [0, 1, 2])
    func aGatewayErrorAfterSendingStaysUnknownAndANotSentOneIsFailed(index: Int) async throws {
        let clock = FakeClock()
        let transport = ScriptedHTTPTransport([
            .answer(HTTPResponse(status: 502, headers: ["Content-Type": "application/json"], body: Array("bad gateway".utf8))),
            .fail(GatewayError(gateway: "x", .notSent("the connection was refused"))),
        ], clock: clock)
        let (name, provider, token) = try Self.providers(transport, clock: clock)[index]
        let ledger = InMemoryExchangeLedger()
        let exchange = ExchangeGuard(provider: provider, ledger: ledger, clock: clock)
        let rules = try ExchangeRules.builtIn.serving(.unicom, with: name)  // the aggregator's rows read its answers
        let first = try await exchange.exchange(CarrierCredential(flow: .unicom, token: Secret(token)), for: Self.session, receivedAt: clock.now(), rules: rules, events: DiscardingEventSink())
        guard case .fault = first.answer else {
            Issue.record("\(name): expected a fault, got \(first.answer)")
            return
        }
        let unknown = try await ledger.unknownExchanges(since: .distantPast, pendingClaimedBefore: .distantPast)
        #expect(unknown.map(\.token) == [CarrierCredential.digest(of: Secret(token))])
        // The same token again is never sent again.
        _ = try await exchange.exchange(CarrierCredential(flow: .unicom, token: Secret(token)), for: try LoginSessionID("another-login-session1"), receivedAt: clock.now(), rules: rules, events: DiscardingEventSink())
        #expect(transport.requests.count == 1)
        let other = token + "-2"
        _ = try await exchange.exchange(CarrierCredential(flow: .unicom, token: Secret(other)), for: try LoginSessionID("third-login-session001"), receivedAt: clock.now(), rules: rules, events: DiscardingEventSink())
        let entry = try await ledger.claim(CarrierCredential.digest(of: Secret(other)), for: Self.session, at: clock.now())
        guard case .failed? = entry?.state else {
            Issue.record("\(name): expected the token recorded failed, got \(String(describing: entry))")
            return
        }
        #expect(transport.requests.count == 2)
    }
}
