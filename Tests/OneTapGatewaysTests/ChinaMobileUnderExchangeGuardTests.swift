import Foundation
import OneTap
@testable import OneTapGateways
import OneTapTesting
import Testing

/// China Mobile's gateway as the exchange guard's provider: the guard's once-only rule holds over it, and with
/// the defaults (the guard's 5 s, the gateway's 6 s) a slow answer ends as the guard's time-out, recorded as
/// unknown (the token may be spent and billed), never as a failure that could be sent again.
@Suite(.timeLimit(.minutes(3))) struct ChinaMobileUnderExchangeGuardTests {
    static let session = try! LoginSessionID("gateway-test-session00")
    static let json = ["Content-Type": "application/json"]

    static func gateway(_ transport: ScriptedHTTPTransport, clock: FakeClock) throws -> ChinaMobileTokenExchange {
        try ChinaMobileTokenExchange(
            configuration: ChinaMobileConfiguration(appID: "300011111111", signing: .md5(secret: Secret("appSecret-123"))), transport: transport, clock: clock,
            messageIDs: { "msg-1" })
    }

    static func credential(_ token: String) -> CarrierCredential { CarrierCredential(flow: .mobile, token: Secret(token), uniqueID: "u") }

    @Test func aTokenIsSentOnceAndItsSecondReportIsReplayed() async throws {
        let clock = FakeClock()
        let transport = ScriptedHTTPTransport([.answer(HTTPResponse(status: 200, headers: Self.json, body: Array(#"{"inresponseto":"msg-1","resultCode":"103000","msisdn":"13800138000"}"#.utf8)))], clock: clock)
        let exchange = ExchangeGuard(provider: try Self.gateway(transport, clock: clock), clock: clock)
        let first = try await exchange.exchange(Self.credential("STsid-1"), for: Self.session, receivedAt: clock.now(), rules: .builtIn, events: DiscardingEventSink())
        #expect(first.answer == .answered("103000", phoneNumber: try PhoneNumber("13800138000")))
        let again = try await exchange.exchange(Self.credential("STsid-1"), for: try LoginSessionID("another-login-session1"), receivedAt: clock.now(), rules: .builtIn, events: DiscardingEventSink())
        #expect(again.answer == .replayed)
        #expect(transport.requests.count == 1)
    }

    @Test func aSlowAnswerIsTheGuardsTimeOutAndStaysUnknown() async throws {
        let clock = FakeClock()
        let transport = ScriptedHTTPTransport([.delay(.seconds(30), HTTPResponse(status: 200, headers: Self.json, body: Array(#"{"inresponseto":"msg-1","resultCode":"103000","msisdn":"13800138000"}"#.utf8)))], clock: clock)
        let ledger = InMemoryExchangeLedger()
        let exchange = ExchangeGuard(provider: try Self.gateway(transport, clock: clock), ledger: ledger, clock: clock)
        let started = clock.now()
        let call = Task { try await exchange.exchange(Self.credential("STsid-2"), for: Self.session, receivedAt: clock.now(), rules: .builtIn, events: DiscardingEventSink()).answer }
        await clock.waitForSleepers(2)
        clock.advance(by: .seconds(5))
        #expect(try await call.value == .timeout)
        let unknown = try await ledger.unknownExchanges(since: started.addingTimeInterval(-1), pendingClaimedBefore: .distantPast)
        #expect(unknown.map(\.token) == [CarrierCredential.digest(of: Secret("STsid-2"))])
        #expect(transport.requests.count == 1)
    }
}

extension ChinaMobileUnderExchangeGuardTests {
    /// A gateway error once the request may have left (an HTTP 502, here) leaves the token `unknown` for
    /// reconciliation, never `failed`: China Mobile may have spent and billed it.
    @Test func aGatewayErrorAfterSendingStaysUnknown() async throws {
        let clock = FakeClock()
        let transport = ScriptedHTTPTransport([.answer(HTTPResponse(status: 502, headers: Self.json, body: Array("bad gateway".utf8)))], clock: clock)
        let ledger = InMemoryExchangeLedger()
        let exchange = ExchangeGuard(provider: try Self.gateway(transport, clock: clock), ledger: ledger, clock: clock)
        let outcome = try await exchange.exchange(Self.credential("STsid-3"), for: Self.session, receivedAt: clock.now(), rules: .builtIn, events: DiscardingEventSink())
        guard case .fault = outcome.answer else {
            Issue.record("expected a fault, got \(outcome.answer)")
            return
        }
        let unknown = try await ledger.unknownExchanges(since: .distantPast, pendingClaimedBefore: .distantPast)
        #expect(unknown.map(\.token) == [CarrierCredential.digest(of: Secret("STsid-3"))])
    }

    /// China Mobile's `103107` (the msgid seen before) says the request reached it twice and the first copy's
    /// answer was lost: the token stays `unknown` for reconciliation, and the login gets no answer of China Mobile's
    /// (a `103107` answer would have been read as our own misconfiguration: an alert, a final `answered` row).
    @Test func anAnswerToARequestSentTwiceStaysUnknown() async throws {
        let clock = FakeClock()
        let transport = ScriptedHTTPTransport([.answer(HTTPResponse(status: 200, headers: Self.json, body: Array(#"{"inresponseto":"msg-1","resultCode":"103107"}"#.utf8)))], clock: clock)
        let ledger = InMemoryExchangeLedger()
        let exchange = ExchangeGuard(provider: try Self.gateway(transport, clock: clock), ledger: ledger, clock: clock)
        let outcome = try await exchange.exchange(Self.credential("STsid-5"), for: Self.session, receivedAt: clock.now(), rules: .builtIn, events: DiscardingEventSink())
        guard case .fault(let reason) = outcome.answer else {
            Issue.record("expected a fault, got \(outcome.answer)")
            return
        }
        #expect(reason.contains("twice"))
        let unknown = try await ledger.unknownExchanges(since: .distantPast, pendingClaimedBefore: .distantPast)
        #expect(unknown.map(\.token) == [CarrierCredential.digest(of: Secret("STsid-5"))])
    }

    /// China Mobile's gateway under rules that read Aliyun's rows for mobile (a server that moved the flow to the
    /// aggregator and kept the carrier's provider) is sent nothing, the answer naming the rows it needs; given a
    /// Tianyi token, which it has no rows for, it refuses it itself, as before, in its own words.
    @Test func underAnotherGatewaysRowsNothingIsSentAndAnotherFlowsTokenIsItsOwnRefusal() async throws {
        let clock = FakeClock()
        let transport = ScriptedHTTPTransport([], clock: clock)
        let exchange = ExchangeGuard(provider: try Self.gateway(transport, clock: clock), clock: clock)
        let moved = try ExchangeRules.builtIn.serving(.mobile, with: "aliyun-pnvs")
        let first = try await exchange.exchange(Self.credential("STsid-6"), for: Self.session, receivedAt: clock.now(), rules: moved, events: DiscardingEventSink())
        guard case .fault(let reason) = first.answer else { Issue.record("expected a fault, got \(first.answer)"); return }
        #expect(reason.contains(#"ExchangeRules().serving(.mobile, with: "cmcc")"#), "\(reason)")
        let tianyi = CarrierCredential(flow: .tianyi, token: Secret("tianyi-token-1"), uniqueID: "u")
        let second = try await exchange.exchange(tianyi, for: try LoginSessionID("another-login-session2"), receivedAt: clock.now(), rules: .builtIn, events: DiscardingEventSink())
        guard case .fault(let refusal) = second.answer else { Issue.record("expected a fault, got \(second.answer)"); return }
        #expect(refusal.contains("China Mobile exchanges mobile tokens"), "\(refusal)")
        #expect(transport.requests.isEmpty)
    }

    /// A request that never left (a refused connection, say) spent no token: the guard records it `failed`,
    /// not `unknown`, and it is not listed for reconciliation.
    @Test func aRequestThatNeverLeftIsFailedNotUnknown() async throws {
        let clock = FakeClock()
        let transport = ScriptedHTTPTransport([.fail(GatewayError(gateway: "cmcc", .notSent("the connection was refused")))], clock: clock)
        let ledger = InMemoryExchangeLedger()
        let exchange = ExchangeGuard(provider: try Self.gateway(transport, clock: clock), ledger: ledger, clock: clock)
        let outcome = try await exchange.exchange(Self.credential("STsid-4"), for: Self.session, receivedAt: clock.now(), rules: .builtIn, events: DiscardingEventSink())
        guard case .fault = outcome.answer else {
            Issue.record("expected a fault, got \(outcome.answer)")
            return
        }
        #expect(try await ledger.unknownExchanges(since: .distantPast, pendingClaimedBefore: .distantPast).isEmpty)
        let entry = try await ledger.claim(CarrierCredential.digest(of: Secret("STsid-4")), for: Self.session, at: clock.now())
        guard case .failed? = entry?.state else {
            Issue.record("expected the token recorded failed, got \(String(describing: entry))")
            return
        }
    }
}
