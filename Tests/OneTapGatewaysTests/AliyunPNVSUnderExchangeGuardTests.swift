import Foundation
import OneTap
@testable import OneTapGateways
import OneTapTesting
import Testing

/// The PNVS gateway as the exchange guard's provider: a token is sent once (its second report replayed), a slow
/// answer ends as the guard's 5 s time-out before the gateway's 6 s and stays unknown, and an Aliyun token code maps
/// through the exchange-code rules like a carrier's.
@Suite(.timeLimit(.minutes(3))) struct AliyunPNVSUnderExchangeGuardTests {
    static let session = try! LoginSessionID("aliyun-test-session000")
    static let ok = HTTPResponse(
        status: 200, headers: ["Content-Type": "application/json"], body: Array(#"{"Code":"OK","RequestId":"r","GetMobileResultDTO":{"Mobile":"13800138000"}}"#.utf8))

    static func gateway(_ transport: ScriptedHTTPTransport, clock: FakeClock) throws -> AliyunPNVSGateway {
        try AliyunPNVSGateway(configuration: AliyunPNVSConfiguration(accessKeyID: "LTAI1", accessKeySecret: Secret("k")), transport: transport, clock: clock)
    }

    @Test func aTokenIsSentOnceAndItsSecondReportIsReplayed() async throws {
        let clock = FakeClock()
        let transport = ScriptedHTTPTransport([.answer(Self.ok)], clock: clock)
        let exchange = ExchangeGuard(provider: try Self.gateway(transport, clock: clock), clock: clock)
        let credential = CarrierCredential(flow: .unicom, token: Secret("aliyun-token-1"), uniqueID: "u")
        let rules = try ExchangeRules.builtIn.serving(.unicom, with: "aliyun-pnvs")  // Aliyun's rows read its answers
        let first = try await exchange.exchange(credential, for: Self.session, receivedAt: clock.now(), rules: rules, events: DiscardingEventSink())
        #expect(first.answer == .answered("OK", phoneNumber: try PhoneNumber("13800138000")))
        let again = try await exchange.exchange(credential, for: try LoginSessionID("another-aliyun-session"), receivedAt: clock.now(), rules: rules, events: DiscardingEventSink())
        #expect(again.answer == .replayed)
        #expect(transport.requests.count == 1)
    }

    /// A replacement exchange-code table that calls a new code a success (a vendor starts answering it): the number the
    /// answer carries reaches the login, which the rules decide by (an attacker's read of the tables: the adapter read
    /// success from the built-in table alone, dropped the number, and the paid exchange ended a success without it,
    /// pushed to SMS). A code no table calls a success keeps its number from no one but the rules: `fallback` here.
    @Test func aSuccessCodeOfAReplacementTableBringsItsNumber() async throws {
        let data = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let text = try String(contentsOf: data.appendingPathComponent("Data/exchange-codes.csv"), encoding: .utf8)
        let replaced = text + "unicom,aliyun-pnvs,OK_NEW,success,no,新成功码,a new success code,test\n"
        let rules = try ExchangeRules(codes: try ExchangeCodeTable(csv: replaced, file: "exchange-codes.csv")).serving(.unicom, with: "aliyun-pnvs")
        let clock = FakeClock()
        let answer = HTTPResponse(
            status: 200, headers: ["Content-Type": "application/json"],
            body: Array(#"{"Code":"OK_NEW","RequestId":"r","GetMobileResultDTO":{"Mobile":"13800138000"}}"#.utf8))
        let exchange = ExchangeGuard(provider: try Self.gateway(ScriptedHTTPTransport([.answer(answer)], clock: clock), clock: clock), clock: clock)
        let credential = CarrierCredential(flow: .unicom, token: Secret("aliyun-token-new"), uniqueID: "u")
        let outcome = try await exchange.exchange(credential, for: Self.session, receivedAt: clock.now(), rules: rules, events: DiscardingEventSink())
        #expect(outcome.answer == .answered("OK_NEW", phoneNumber: try PhoneNumber("13800138000")))
    }

    /// A refusal whose number field holds what is no number (a masked one here) stays the refusal its row says: the
    /// number is read strictly only for a code the built-in table calls a success (a review: it became `malformedBody`,
    /// its ledger entry unknown and its row's retry lost). A success code with the same field is the answer's fault.
    @Test func aRefusalCarryingJunkInItsNumberFieldStaysTheRefusal() async throws {
        for (code, refusal) in [("isv.TOKEN_INVALID", true), ("OK", false)] {
            let clock = FakeClock()
            let answer = HTTPResponse(
                status: 200, headers: ["Content-Type": "application/json"],
                body: Array(#"{"Code":"\#(code)","RequestId":"r","GetMobileResultDTO":{"Mobile":"138****0000"}}"#.utf8))
            let gateway = try Self.gateway(ScriptedHTTPTransport([.answer(answer)], clock: clock), clock: clock)
            let credential = CarrierCredential(flow: .unicom, token: Secret("aliyun-token-junk"), uniqueID: "u")
            if refusal {
                let response = try await gateway.exchange(credential)
                #expect(response.code.text == code && response.phoneNumber == nil)
            } else {
                await #expect(throws: GatewayError.self) { try await gateway.exchange(credential) }
            }
        }
    }

    /// Under rules that read the carrier's rows for the flow (the built-in ones: nobody said `serving(_:with:)`),
    /// Aliyun's `OK` is no code of China Unicom's: the exchange would be billed and the number thrown away, every
    /// login falling back. Nothing is sent; the token is recorded `failed` (as a call that never left, never sent
    /// again); the answer names the fix, whole within a trace's 200 characters.
    @Test func rulesThatReadAnotherGatewaysRowsSendNothing() async throws {
        let clock = FakeClock()
        let transport = ScriptedHTTPTransport([.answer(Self.ok)], clock: clock)
        let ledger = InMemoryExchangeLedger()
        let exchange = ExchangeGuard(provider: try Self.gateway(transport, clock: clock), ledger: ledger, clock: clock)
        let credential = CarrierCredential(flow: .unicom, token: Secret("aliyun-token-3"), uniqueID: "u")
        let outcome = try await exchange.exchange(credential, for: Self.session, receivedAt: clock.now(), rules: .builtIn, events: DiscardingEventSink())
        guard case .fault(let reason) = outcome.answer else { Issue.record("expected a fault, got \(outcome.answer)"); return }
        #expect(reason.contains(#"ExchangeRules().serving(.unicom, with: "aliyun-pnvs")"#) && reason.count <= 200, "\(reason)")
        #expect(outcome.carrierUnreached, "counted as a gateway that cannot make the call")
        #expect(transport.requests.isEmpty)
        let kept = try await ledger.claim(CarrierCredential.digest(of: Secret("aliyun-token-3")), for: Self.session, at: clock.now())
        guard case .failed? = kept?.state else { Issue.record("expected the token recorded failed, got \(String(describing: kept))"); return }
    }

    /// On a device, the coordinator takes the rules too: with Aliyun's rows for mobile its exchange returns the
    /// number; with the built-in ones (all it could use before) Aliyun is sent nothing and the login falls to SMS.
    @Test func theCoordinatorTakesTheAggregatorsRules() async throws {
        for serving in [true, false] {
            let clock = FakeClock()
            let transport = ScriptedHTTPTransport([.answer(Self.ok)], clock: clock)
            let coordinator = LoginCoordinator(
                providers: LoginProviders(mobile: MockOneTapProvider(.mobile, codes: [103000]), sms: MockSMSProvider(), exchange: try Self.gateway(transport, clock: clock)),
                exchangeRules: serving ? try ExchangeRules().serving(.mobile, with: "aliyun-pnvs") : ExchangeRules(), clock: clock, events: DiscardingEventSink())
            let outcome = try await coordinator.login(DeviceSnapshot(plmn: try PLMN("46000")))
            if serving {
                #expect(outcome.ending == .success && outcome.trace.last?.flow == .mobile, "\(outcome.trace)")
                #expect(outcome.verified?.phoneNumber == (try PhoneNumber("13800138000")))
                #expect(transport.requests.count == 1)
            } else {
                #expect(outcome.trace.last?.flow == .sms, "\(outcome.trace)")
                #expect(transport.requests.isEmpty)
            }
        }
    }

    @Test func aSlowAnswerIsTheGuardsTimeOutAndStaysUnknown() async throws {
        let clock = FakeClock()
        let transport = ScriptedHTTPTransport([.delay(.seconds(30), Self.ok)], clock: clock)
        let ledger = InMemoryExchangeLedger()
        let exchange = ExchangeGuard(provider: try Self.gateway(transport, clock: clock), ledger: ledger, clock: clock)
        let call = Task {
            try await exchange.exchange(
                CarrierCredential(flow: .tianyi, token: Secret("aliyun-token-2"), uniqueID: "u"), for: Self.session, receivedAt: clock.now(),
                rules: try ExchangeRules.builtIn.serving(.tianyi, with: "aliyun-pnvs"),
                events: DiscardingEventSink()
            ).answer
        }
        await clock.waitForSleepers(2)
        clock.advance(by: .seconds(5))
        #expect(try await call.value == .timeout)
        let unknown = try await ledger.unknownExchanges(since: .distantPast, pendingClaimedBefore: .distantPast)
        #expect(unknown.map(\.token) == [CarrierCredential.digest(of: Secret("aliyun-token-2"))])
    }
}
