import Foundation
import OneTap
@testable import OneTapGateways
import OneTapTesting
import Testing

/// The Tianyi gateway as the exchange guard's provider: with the defaults (the guard's 5 s, the gateway's 6 s) a slow
/// answer ends as the guard's time-out, recorded unknown; a request that never left is recorded failed, not unknown.
@Suite(.timeLimit(.minutes(3))) struct TianyiUnderExchangeGuardTests {
    static let session = try! LoginSessionID("gateway-test-session00")
    static let json = ["Content-Type": "application/json"]

    static func gateway(_ transport: ScriptedHTTPTransport, clock: FakeClock) throws -> TianyiTokenExchange {
        try TianyiTokenExchange(configuration: TianyiConfiguration(appID: "8013818507", appSecret: Secret("S3cretS3cretS3cretS3cretS3cret12")), transport: transport, clock: clock)
    }

    static func credential(_ token: String) -> CarrierCredential { CarrierCredential(flow: .tianyi, token: Secret(token)) }

    @Test func aSuccessIsTheNumberAndASlowAnswerIsTheGuardsTimeOutLeftUnknown() async throws {
        let clock = FakeClock()
        let body = Array(#"{"result":0,"mobileName":"18912345678"}"#.utf8)
        let transport = ScriptedHTTPTransport([.answer(HTTPResponse(status: 200, headers: Self.json, body: body)), .delay(.seconds(30), HTTPResponse(status: 200, headers: Self.json, body: body))], clock: clock)
        let ledger = InMemoryExchangeLedger()
        let exchange = ExchangeGuard(provider: try Self.gateway(transport, clock: clock), ledger: ledger, clock: clock)
        let first = try await exchange.exchange(Self.credential("AT-1"), for: Self.session, receivedAt: clock.now(), rules: .builtIn, events: DiscardingEventSink())
        #expect(first.answer == .answered("0", phoneNumber: try PhoneNumber("18912345678")))
        let started = clock.now()
        let call = Task { try await exchange.exchange(Self.credential("AT-2"), for: Self.session, receivedAt: clock.now(), rules: .builtIn, events: DiscardingEventSink()).answer }
        await clock.waitForSleepers(2)
        clock.advance(by: .seconds(5))
        #expect(try await call.value == .timeout)
        let unknown = try await ledger.unknownExchanges(since: started.addingTimeInterval(-1), pendingClaimedBefore: .distantPast)
        #expect(unknown.map(\.token) == [CarrierCredential.digest(of: Secret("AT-2"))])
    }

    @Test func aRequestThatNeverLeftIsFailedNotUnknown() async throws {
        let clock = FakeClock()
        let transport = ScriptedHTTPTransport([.fail(GatewayError(gateway: "tianyi", .notSent("the connection was refused")))], clock: clock)
        let ledger = InMemoryExchangeLedger()
        let exchange = ExchangeGuard(provider: try Self.gateway(transport, clock: clock), ledger: ledger, clock: clock)
        let outcome = try await exchange.exchange(Self.credential("AT-3"), for: Self.session, receivedAt: clock.now(), rules: .builtIn, events: DiscardingEventSink())
        guard case .fault = outcome.answer else {
            Issue.record("expected a fault, got \(outcome.answer)")
            return
        }
        #expect(try await ledger.unknownExchanges(since: .distantPast, pendingClaimedBefore: .distantPast).isEmpty)
        let entry = try await ledger.claim(CarrierCredential.digest(of: Secret("AT-3")), for: Self.session, at: clock.now())
        guard case .failed? = entry?.state else {
            Issue.record("expected the token recorded failed, got \(String(describing: entry))")
            return
        }
    }
}
