import Foundation
import OneTapTesting
import Testing
@testable import OneTap

/// Scenarios: snapshot + scripted provider answers → expected trace and outcome.
@Suite struct LoginCoordinatorTests {
    struct Scenario: Sendable, CustomTestStringConvertible {
        let name: String
        var snapshot = DeviceSnapshot(sim: .present, plmn: try! PLMN("46000"))
        var mobile: [MockAnswer<OneTapResult>] = []
        var tianyi: [MockAnswer<OneTapResult>] = []
        var smsSucceeds = true
        var smsNumber: PhoneNumber? = try! PhoneNumber("13800138000")
        var withTianyi = true
        let ending: Decision.Ending
        let flow: LoginFlow?
        let steps: [String]
        var alerts: [String] = []
        var testDescription: String { name }
    }

    static func mobile(_ code: ResultCode, _ n: Int = 1) -> MockAnswer<OneTapResult> { .value(MockOneTapProvider.answer(code, n, flow: .mobile)) }
    static func tianyi(_ code: ResultCode, _ n: Int = 1) -> MockAnswer<OneTapResult> { .value(MockOneTapProvider.answer(code, n, flow: .tianyi)) }
    static let telecom = DeviceSnapshot(sim: .present, plmn: try! PLMN("46011"))

    static let scenarios: [Scenario] = [
        Scenario(name: "China Mobile success", mobile: [mobile(103000)], ending: .success, flow: .mobile, steps: ["mobile:103000:success"]),
        Scenario(name: "user closes the China Mobile page: no SMS", mobile: [mobile(200020)], ending: .cancelled, flow: .mobile, steps: ["mobile:200020:cancelled"]),
        Scenario(name: "seed 002's 102121 cancel", mobile: [mobile(102121)], ending: .cancelled, flow: .mobile, steps: ["mobile:102121:cancelled"]),
        Scenario(name: "no network falls back to SMS", mobile: [mobile(102101)], ending: .success, flow: .sms, steps: ["mobile:102101:fallback", "sms:0:success"]),
        Scenario(name: "transient retried once then success", mobile: [mobile(200023), mobile(103000, 2)], ending: .success, flow: .mobile,
                 steps: ["mobile:200023:retry", "mobile:103000:success"]),
        Scenario(name: "transient twice then SMS", mobile: [mobile(200023), mobile(200023)], ending: .success, flow: .sms,
                 steps: ["mobile:200023:retry", "mobile:200023:fallback", "sms:0:success"]),
        Scenario(name: "other login method switches to SMS", mobile: [mobile(200060)], ending: .success, flow: .sms, steps: ["mobile:200060:switch", "sms:0:success"]),
        Scenario(name: "misconfigured falls back and alerts", mobile: [mobile(103101)], ending: .success, flow: .sms,
                 steps: ["mobile:103101:misconfigured", "sms:0:success"], alerts: ["mobile:103101"]),
        Scenario(name: "unknown China Mobile code goes to SMS (seed 002)", mobile: [mobile(424242)], ending: .success, flow: .sms,
                 steps: ["mobile:424242:fallback", "sms:0:success"]),
        Scenario(name: "success code without a token is a provider fault", mobile: [.value(OneTapResult(resultCode: 103000))],
                 ending: .success, flow: .sms, steps: ["mobile:103000:fallback", "sms:0:success"]),
        Scenario(name: "success code without a uniqueid is a provider fault", mobile: [.value(OneTapResult(resultCode: 103000, credential: CarrierCredential(flow: .mobile, token: Secret("t"))))],
                 ending: .success, flow: .sms, steps: ["mobile:103000:fallback", "sms:0:success"]),
        Scenario(name: "a credential of another flow is a provider fault",
                 mobile: [.value(OneTapResult(resultCode: 103000, credential: CarrierCredential(flow: .tianyi, token: Secret("t"))))],
                 ending: .success, flow: .sms, steps: ["mobile:provider-error:fallback", "sms:0:success"]),
        Scenario(name: "a one-tap credential claiming a verified number is a provider fault (the number comes only from the exchange)",
                 mobile: [.value(OneTapResult(resultCode: 103000, credential: CarrierCredential(
                     flow: .mobile, token: Secret("t"), uniqueID: "u", phoneNumber: try! PhoneNumber("13900139000"))))],
                 ending: .success, flow: .sms, steps: ["mobile:provider-error:fallback", "sms:0:success"]),
        // A credential matters only on a success code, as the server's machine reads it: a stray one beside the user's
        // cancel leaves the cancel (a reviewer's read: the coordinator made it a fault and pushed the user to SMS).
        Scenario(name: "a cancel beside a stray credential of another flow is still the user's cancel",
                 mobile: [.value(OneTapResult(resultCode: 200020, credential: CarrierCredential(flow: .tianyi, token: Secret("t"))))],
                 ending: .cancelled, flow: .mobile, steps: ["mobile:200020:cancelled"]),
        Scenario(name: "provider throws", mobile: [.error(CocoaLikeError())], ending: .success, flow: .sms, steps: ["mobile:provider-error:fallback", "sms:0:success"]),
        Scenario(name: "SMS fails after fallback", mobile: [mobile(102101)], smsSucceeds: false, ending: .failed, flow: .sms,
                 steps: ["mobile:102101:fallback", "sms:1:failed"]),
        Scenario(name: "user gives no number on the SMS page", mobile: [mobile(102101)], smsNumber: nil, ending: .cancelled, flow: .sms,
                 steps: ["mobile:102101:fallback", "sms:no-phone-number:cancelled"]),
        Scenario(name: "no SIM: SMS straight away", snapshot: DeviceSnapshot(sim: .absent), ending: .success, flow: .sms, steps: ["sms:0:success"]),
        Scenario(name: "Tianyi success", snapshot: telecom, tianyi: [tianyi(0)], ending: .success, flow: .tianyi, steps: ["tianyi:0:success"]),
        Scenario(name: "Tianyi -8994014 goes to SMS (seed 002)", snapshot: telecom, tianyi: [tianyi(-8994014)], ending: .success, flow: .sms,
                 steps: ["tianyi:-8994014:fallback", "sms:0:success"]),
        Scenario(name: "unknown Tianyi error is shown, no SMS (seed 002)", snapshot: telecom, tianyi: [tianyi(-424242)], ending: .failed, flow: .tianyi,
                 steps: ["tianyi:-424242:failed"]),
        Scenario(name: "Tianyi success without accessToken", snapshot: telecom, tianyi: [.value(OneTapResult(resultCode: 0))], ending: .success,
                 flow: .sms, steps: ["tianyi:0:fallback", "sms:0:success"]),
        Scenario(name: "no Tianyi provider: skipped to SMS", snapshot: telecom, withTianyi: false, ending: .success, flow: .sms,
                 steps: ["tianyi:unavailable:fallback", "sms:0:success"]),
    ]

    struct CocoaLikeError: Error, CustomStringConvertible { var description: String { "SDK crashed" } }

    static func summary(_ step: LoginStep) -> String { "\(step.flow):\(step.result.code):\(step.action)" }

    @Test(arguments: scenarios)
    func scenario(_ scenario: Scenario) async throws {
        let sms = MockSMSProvider(number: scenario.smsNumber, verify: scenario.smsSucceeds ? [] : [.value(SMSVerification(resultCode: 1))])
        let events = RecordingEventSink()
        let coordinator = LoginCoordinator(
            providers: LoginProviders(
                mobile: MockOneTapProvider(.mobile, scenario.mobile), tianyi: scenario.withTianyi ? MockOneTapProvider(.tianyi, scenario.tianyi) : nil, sms: sms),
            events: events)
        let outcome = try await coordinator.login(scenario.snapshot)
        #expect(outcome.ending == scenario.ending)
        #expect(outcome.flow == scenario.flow)
        #expect(outcome.trace.map(Self.summary) == scenario.steps)
        #expect(outcome.alerts.map { "\($0.flow):\($0.code)" } == scenario.alerts)
        #expect((outcome.credential != nil) == (scenario.ending == .success))
        if scenario.ending == .cancelled && scenario.steps.first?.hasPrefix("mobile") == true && scenario.steps.count == 1 {
            #expect(sms.codesSent == 0)   // nothing pushed on a user who backed out
        }
        #expect(events.names.first == "planned")
        #expect(events.names.last == ["success": "succeeded", "cancelled": "cancelled", "failed": "failed"][scenario.ending.rawValue])
        #expect(events.names.filter { $0 == "alert" }.count == scenario.alerts.count)
    }

    @Test func successCarriesTheCredentialAndTheExchangedLogin() async throws {
        let exchange = MockTokenExchange(number: try PhoneNumber("13800138000"), account: "acc-1")
        let coordinator = LoginCoordinator(
            providers: LoginProviders(mobile: MockOneTapProvider(.mobile, codes: [103000]), sms: MockSMSProvider(), exchange: exchange), events: DiscardingEventSink())
        let outcome = try await coordinator.login(DeviceSnapshot(plmn: try PLMN("46000")))
        #expect(outcome.trace.map(Self.summary) == ["mobile:103000:success", "mobile:exchange-103000:success"])
        #expect(outcome.credential?.token.reveal() == "mobile-token-1")
        #expect(outcome.credential?.uniqueID == "uid-1")
        #expect(outcome.verified?.account == "acc-1")
        #expect(exchange.flowsExchanged == [.mobile])
    }

    @Test func failedExchangeFallsBack() async throws {
        let exchange = MockTokenExchange([.error(CocoaLikeError())], number: try PhoneNumber("13800138000"))
        let coordinator = LoginCoordinator(
            providers: LoginProviders(mobile: MockOneTapProvider(.mobile, codes: [103000]), sms: MockSMSProvider(), exchange: exchange), events: DiscardingEventSink())
        let outcome = try await coordinator.login(DeviceSnapshot(plmn: try PLMN("46000")))
        #expect(outcome.trace.map(Self.summary) == ["mobile:103000:success", "mobile:exchange-failed:fallback", "sms:0:success"])
        #expect(outcome.verified?.phoneNumber.digits == "13800138000")
    }

    /// The exchange's own codes: a spent token runs the flow once more, a quota alert goes to SMS.
    @Test func exchangeCodesAreClassifiedByTheExchangeTable() async throws {
        let exchange = MockTokenExchange(codes: ["104201", "105312"], number: try PhoneNumber("13800138000"))
        let coordinator = LoginCoordinator(
            providers: LoginProviders(mobile: MockOneTapProvider(.mobile, codes: [103000, 103000]), sms: MockSMSProvider(), exchange: exchange), events: DiscardingEventSink())
        let outcome = try await coordinator.login(DeviceSnapshot(plmn: try PLMN("46000")))
        #expect(outcome.trace.map(Self.summary) == [
            "mobile:103000:success", "mobile:exchange-104201:retry", "mobile:103000:success", "mobile:exchange-105312:switch", "sms:0:success",
        ])
        #expect(outcome.alerts.map(\.code) == ["exchange-105312"])
        #expect(exchange.tokensSent.values.allSatisfy { $0 == 1 })   // two tokens, each sent once
    }

    // MARK: The exchange goes through the guard

    /// The device applies the server's rules: a token older than its lifetime (China Mobile's 2 minutes,
    /// `Data/token-lifetimes.csv`) is not sent to the exchange; the flow runs once more for a new one.
    @Test func anExpiredTokenIsRefusedBeforeTheExchangeIsCalled() async throws {
        let clock = FakeClock()
        let exchange = MockTokenExchange(number: try PhoneNumber("13800138000"), clock: clock)
        let events = ClockJumpingSink(clock: clock, jump: .seconds(120))   // the first token waits its full lifetime
        let coordinator = LoginCoordinator(
            providers: LoginProviders(mobile: MockOneTapProvider(.mobile, codes: [103000, 103000], clock: clock), sms: MockSMSProvider(clock: clock), exchange: exchange),
            clock: clock, events: events)
        let outcome = try await coordinator.login(DeviceSnapshot(plmn: try PLMN("46000")))
        #expect(outcome.trace.map(Self.summary) == [
            "mobile:103000:success", "mobile:token-expired:retry", "mobile:103000:success", "mobile:exchange-103000:success",
        ])
        #expect(outcome.ending == .success && outcome.flow == .mobile)
        #expect(exchange.tokensSent == ["mobile-token-2": 1], "the expired token never reached the carrier")
        #expect(outcome.credential?.token.reveal() == "mobile-token-2")
    }

    @Test func aTokenJustWithinItsLifetimeIsExchanged() async throws {
        let clock = FakeClock()
        let exchange = MockTokenExchange(number: try PhoneNumber("13800138000"), clock: clock)
        let coordinator = LoginCoordinator(
            providers: LoginProviders(mobile: MockOneTapProvider(.mobile, codes: [103000], clock: clock), sms: MockSMSProvider(clock: clock), exchange: exchange),
            clock: clock, events: ClockJumpingSink(clock: clock, jump: .milliseconds(119_999)))
        let outcome = try await coordinator.login(DeviceSnapshot(plmn: try PLMN("46000")))
        #expect(outcome.trace.map(Self.summary) == ["mobile:103000:success", "mobile:exchange-103000:success"])
        #expect(exchange.tokensSent == ["mobile-token-1": 1])
    }

    /// One coordinator never sends a token twice: a second login whose SDK hands back a token already
    /// exchanged is told `replayed` by the guard's ledger, without a carrier call, and goes to SMS.
    @Test func aTokenIsNeverExchangedTwice() async throws {
        let same = MockAnswer<OneTapResult>.value(OneTapResult(resultCode: 103000, credential: CarrierCredential(flow: .mobile, token: Secret("T-same"), uniqueID: "u")))
        let exchange = MockTokenExchange(number: try PhoneNumber("13800138000"))
        let coordinator = LoginCoordinator(
            providers: LoginProviders(mobile: MockOneTapProvider(.mobile, [same, same]), sms: MockSMSProvider(), exchange: exchange), events: DiscardingEventSink())
        let first = try await coordinator.login(DeviceSnapshot(plmn: try PLMN("46000")))
        #expect(first.trace.map(Self.summary) == ["mobile:103000:success", "mobile:exchange-103000:success"])
        let second = try await coordinator.login(DeviceSnapshot(plmn: try PLMN("46000")))
        #expect(second.trace.map(Self.summary) == ["mobile:103000:success", "mobile:token-replayed:switch", "sms:0:success"])
        #expect(exchange.tokensSent == ["T-same": 1])
    }

    /// A ledger given to two coordinators is one memory of what was sent.
    @Test func anInjectedLedgerIsSharedAcrossCoordinators() async throws {
        let ledger = InMemoryExchangeLedger()
        let exchange = MockTokenExchange(number: try PhoneNumber("13800138000"))
        func coordinator() -> LoginCoordinator {
            let answer = OneTapResult(resultCode: 103000, credential: CarrierCredential(flow: .mobile, token: Secret("T-shared"), uniqueID: "u"))
            return LoginCoordinator(
                providers: LoginProviders(mobile: MockOneTapProvider(.mobile, [.value(answer)]), sms: MockSMSProvider(), exchange: exchange),
                exchangeLedger: ledger, events: DiscardingEventSink())
        }
        #expect(try await coordinator().login(DeviceSnapshot(plmn: try PLMN("46000"))).verified != nil)
        let second = try await coordinator().login(DeviceSnapshot(plmn: try PLMN("46000")))
        #expect(second.trace.map(Self.summary) == ["mobile:103000:success", "mobile:token-replayed:switch", "sms:0:success"])
        #expect(exchange.tokensSent == ["T-shared": 1])
    }

    /// A provider that hands the same token back within one login: the machine refuses the report, which
    /// the driver takes as the defect it is; the login ends as failed, and the token was sent once.
    @Test func aTokenRepeatedWithinALoginEndsItAsFailed() async throws {
        let same = MockAnswer<OneTapResult>.value(OneTapResult(resultCode: 103000, credential: CarrierCredential(flow: .mobile, token: Secret("T-again"), uniqueID: "u")))
        let exchange = MockTokenExchange(codes: ["104201"], number: try PhoneNumber("13800138000"))
        let events = RecordingEventSink()
        let coordinator = LoginCoordinator(
            providers: LoginProviders(mobile: MockOneTapProvider(.mobile, [same, same]), sms: MockSMSProvider(), exchange: exchange), events: events)
        let outcome = try await coordinator.login(DeviceSnapshot(plmn: try PLMN("46000")))
        #expect(outcome.ending == .failed && outcome.flow == .mobile)
        // A device attacker's read: the refused login emitted no ending, so the event stream never closed it
        // (`onetap stats` counted it unfinished). It ends with `failed`, saying why.
        #expect(events.names.last == "failed")
        #expect(events.recorded.last.map { $0.json().contains("refused") && !$0.json().contains("T-again") } == true, "\(String(describing: events.recorded.last?.json()))")
        #expect(outcome.trace.map(Self.summary) == ["mobile:103000:success", "mobile:exchange-104201:retry"])
        #expect(outcome.credential == nil && outcome.verified == nil)
        #expect(exchange.tokensSent == ["T-again": 1])
    }

    /// A device attacker's read: an SDK that answers `progress` (China Mobile's 200089, "busy with the previous
    /// call", after a call that timed out and still runs) made the coordinator call it again at once, in a loop
    /// without end; the fix then let three calls through before falling back. A second read: a progress code is
    /// never a call's result (the SDK's call it speaks of still runs, and a call made at once overlaps it), so a
    /// provider that answers one is at fault at its first call, and the login falls back without calling again.
    @Test func aProgressCodeAnsweredAsTheResultIsTheProvidersFaultAtOnce() async throws {
        let busy = MockOneTapProvider(.mobile, codes: Array(repeating: 200089, count: 50))
        let events = RecordingEventSink()
        let coordinator = LoginCoordinator(providers: LoginProviders(mobile: busy, sms: MockSMSProvider()), events: events)
        let outcome = try await coordinator.login(DeviceSnapshot(plmn: try PLMN("46000")))
        #expect(busy.calls == 1)
        #expect(outcome.ending == .success && outcome.flow == .sms)
        #expect(outcome.trace.map(Self.summary) == ["mobile:provider-error:fallback", "sms:0:success"])
        #expect(outcome.trace.first?.meaning.contains("200089") == true, "\(String(describing: outcome.trace.first?.meaning))")
        #expect(!events.names.contains("progress"))
    }

    /// A China Mobile login started on a coordinator whose SDK shows its page `pageAfter` into the call (telling
    /// `200087`) and answers success `tapAfter` later, on a fake clock the test steps.
    static func pageLogin(
        pageAfter: Duration, tapAfter: Duration, events: any EventSink = DiscardingEventSink()
    ) -> (FakeClock, PageThenTap, Task<LoginOutcome, any Error>) {
        let clock = FakeClock()
        let provider = PageThenTap(clock: clock, pageAfter: pageAfter, tapAfter: tapAfter)
        let coordinator = LoginCoordinator(providers: LoginProviders(mobile: provider, sms: MockSMSProvider()), clock: clock, events: events)
        return (clock, provider, Task { try await coordinator.login(DeviceSnapshot(plmn: try PLMN("46000"))) })
    }

    /// A device attacker's read: the one-tap flow's 8 s limit (the SDK's network time) ran over the user's time on
    /// the authorization page, so a user who took 9 s to tap timed out: the login fell back to SMS over the carrier's
    /// page, the tap's token was thrown away, and the channel counted a failure. The page shown (China Mobile's
    /// 200087, told through `progress`) stops the limit; the code goes to the login as its `progress` event.
    @Test(.timeLimit(.minutes(3))) func thePageShownStopsTheFlowsTimeLimit() async throws {
        let events = RecordingEventSink()
        let (clock, provider, login) = Self.pageLogin(pageAfter: .seconds(1), tapAfter: .seconds(30), events: events)
        await clock.waitForSleepers(2)   // the SDK readying its page, and the flow's 8 s limit
        clock.advance(by: .seconds(1))
        await clock.waitForSleepers(2)   // the user on the page, and the limit's 7 s left
        clock.advance(by: .seconds(30))
        let outcome = try await login.value
        #expect(outcome.ending == .success && outcome.flow == .mobile)
        #expect(outcome.trace.map(Self.summary) == ["mobile:103000:success"])
        #expect(events.names.filter { $0 == "progress" }.count == 1, "\(events.names)")
        let progress = try #require(events.recorded.first { $0.name == "progress" })
        #expect(progress.at == FakeClock.epoch.addingTimeInterval(1), "dated when the page showed")
        #expect(provider.calls == 1)
    }

    /// A device attacker's read: Tianyi's and Unicom's SDKs have no progress code for their page in the built-in table,
    /// so their users had 8 s on it, then were pushed to SMS over it, the tap's token thrown away. The provider tells
    /// the page shown by `pageShown()`: the limit gives way to the page's, and no `progress` event is made up (a China
    /// Telecom SIM here; the coordinator reads every flow's the same way).
    @Test(.timeLimit(.minutes(3))) func aPageShownWithoutACodeStopsTheFlowsTimeLimit() async throws {
        let clock = FakeClock()
        let events = RecordingEventSink()
        let flow = LoginFlow.tianyi
        let provider = PageThenTap(clock: clock, pageAfter: .seconds(1), tapAfter: .seconds(30), flow: flow)
        let coordinator = LoginCoordinator(providers: LoginProviders(tianyi: provider, sms: MockSMSProvider()), clock: clock, events: events)
        let login = Task { try await coordinator.login(DeviceSnapshot(plmn: try PLMN("46011"))) }
        await clock.waitForSleepers(2)   // the SDK readying its page, and the flow's 8 s limit
        clock.advance(by: .seconds(1))
        await clock.waitForSleepers(2)   // the user on the page, and the limit's 7 s left
        clock.advance(by: .seconds(30))
        let outcome = try await login.value
        #expect(outcome.trace.map(Self.summary) == ["\(flow):0:success"])
        #expect(!events.names.contains("progress"))
    }

    /// Without a page shown, the limit stands: an SDK that takes longer than 8 s before showing anything times out.
    @Test(.timeLimit(.minutes(3))) func anSDKThatShowsNoPageInTimeTimesOut() async throws {
        let (clock, _, login) = Self.pageLogin(pageAfter: .seconds(9), tapAfter: .seconds(1))
        await clock.waitForSleepers(2)
        clock.advance(by: .seconds(8))
        let outcome = try await login.value
        #expect(outcome.trace.map(Self.summary) == ["mobile:timeout:fallback", "sms:0:success"])
    }

    /// The page's own limit (5 minutes by default) still ends a call whose page showed and whose SDK never answers
    /// (an attacker's read of the first fix: one progress code took every limit away, and the login waited for ever).
    @Test(.timeLimit(.minutes(3))) func aCallWhosePageShowedStillEndsAtThePagesLimit() async throws {
        let (clock, _, login) = Self.pageLogin(pageAfter: .seconds(1), tapAfter: .seconds(400))
        await clock.waitForSleepers(2)
        clock.advance(by: .seconds(1))
        await clock.waitForSleepers(2)
        clock.advance(by: .seconds(7))   // the flow's 8 s: the page gives it 300 s more
        await clock.waitForSleepers(2)
        clock.advance(by: .seconds(299))
        #expect(clock.sleeperCount == 2, "not yet")
        clock.advance(by: .seconds(1))
        let outcome = try await login.value
        #expect(outcome.trace.map(Self.summary) == ["mobile:timeout:fallback", "sms:0:success"])
    }

    /// A device attacker's read: an SDK call a login gave up on (its time limit passed; the SDK ignores cancellation)
    /// still ran in the SDK, and the next login called the SDK again over it (China Mobile answers an overlapping call
    /// "busy"). Until the call ends, a later login finds the flow unavailable (the breaker told nothing) without
    /// calling the SDK; an SDK that never calls back is called again after the flow's hold (its limit and the page's).
    @Test(.timeLimit(.minutes(3))) func anSDKCallGivenUpOnIsNotOverlappedByTheNextLogin() async throws {
        let clock = FakeClock()
        let provider = StuckThenAnswering()
        let health = ChannelHealth(window: 4, minimumAttempts: 2, failureThreshold: 0.5, coolDown: .seconds(60))
        let coordinator = LoginCoordinator(
            providers: LoginProviders(mobile: provider, sms: MockSMSProvider(clock: clock)), timeouts: FlowTimeouts(mobile: .seconds(1), page: .seconds(10)),
            health: health, clock: clock, events: DiscardingEventSink())
        let first = Task { try await coordinator.login(DeviceSnapshot(plmn: try PLMN("46000"))) }
        await provider.waitUntilCalled()
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        #expect(try await first.value.trace.map(Self.summary) == ["mobile:timeout:fallback", "sms:0:success"])
        let second = try await coordinator.login(DeviceSnapshot(plmn: try PLMN("46000")))
        #expect(second.trace.map(Self.summary) == ["mobile:unavailable:fallback", "sms:0:success"])
        #expect(second.trace.first?.meaning.contains("its SDK still runs an earlier call") == true, "\(String(describing: second.trace.first?.meaning))")
        #expect(provider.calls == 1, "the SDK was not called over its running call")
        #expect(health.state(of: .mobile, for: .mobile, at: clock.now()) == .closed, "one time-out, and nothing of the skip")
        clock.advance(by: .seconds(10))   // the hold: 1 s and the page's 10 s from the call's start
        let third = try await coordinator.login(DeviceSnapshot(plmn: try PLMN("46000")))
        #expect(third.trace.map(Self.summary) == ["mobile:103000:success"])
        #expect(provider.calls == 2)
        provider.release()
    }

    /// A device attacker's read: the device's exchange ledger failing on its claim (the token never left) counted as
    /// a failure of the carrier's channel, where the server tells the breaker nothing of a store's failure: a
    /// database outage opened China Mobile's circuit.
    @Test func aLedgerFailureCountsNothingAgainstTheChannel() async throws {
        let health = ChannelHealth(window: 4, minimumAttempts: 1, failureThreshold: 0.5, coolDown: .seconds(60))
        let ledger = FaultyExchangeLedger(InMemoryExchangeLedger())
        ledger.faults.inject(.refuse(.io, "the database is down"), into: [.claim], times: nil)
        let exchange = MockTokenExchange(number: try PhoneNumber("13800138000"))
        let coordinator = LoginCoordinator(
            providers: LoginProviders(mobile: MockOneTapProvider(.mobile, codes: [103000]), sms: MockSMSProvider(), exchange: exchange), health: health,
            exchangeLedger: ledger, events: DiscardingEventSink())
        let outcome = try await coordinator.login(DeviceSnapshot(plmn: try PLMN("46000")))
        #expect(outcome.trace.map(Self.summary) == ["mobile:103000:success", "mobile:exchange-failed:fallback", "sms:0:success"])
        #expect(exchange.tokensSent.isEmpty)
        #expect(health.state(of: .mobile, for: .mobile, at: Date()) == .closed)
    }

    /// The exchange keeps the flow's time limit on the device (3 s here), not the guard's 5 s.
    @Test func theExchangeHasItsFlowsTimeLimit() async throws {
        let clock = FakeClock()
        let exchange = HangingExchange()
        let coordinator = LoginCoordinator(
            providers: LoginProviders(mobile: MockOneTapProvider(.mobile, codes: [103000]), sms: MockSMSProvider(), exchange: exchange),
            timeouts: FlowTimeouts(mobile: .seconds(3)), clock: clock, events: DiscardingEventSink())
        let login = Task { try await coordinator.login(DeviceSnapshot(plmn: try PLMN("46000"))) }
        var calls = exchange.calls.makeAsyncIterator()
        #expect(await calls.next() == .mobile)
        await clock.waitForSleepers(1)   // the exchange's time limit
        clock.advance(by: .milliseconds(2999))
        #expect(clock.sleeperCount == 1, "the exchange gave up before its flow's limit")
        clock.advance(by: .milliseconds(1))
        let outcome = try await login.value
        #expect(outcome.trace.map(Self.summary) == ["mobile:103000:success", "mobile:exchange-timeout:switch", "sms:0:success"])
        #expect(clock.elapsed == .seconds(3))
    }

    /// Cancelling the caller while the token is being exchanged: the exchange's result is unknown (the
    /// carrier had the token and may have billed; issue 21), the login goes to SMS with the token kept for
    /// reconciliation, and ends cancelled there. (Only this login may resend the token, once: the ledger's
    /// rule that made recording `unknown` safe.)
    @Test func cancellingDuringTheExchangeEndsAsCancelled() async throws {
        let clock = FakeClock()
        let exchange = HangingExchange()
        let sms = MockSMSProvider(send: [.hang], clock: clock)
        let events = RecordingEventSink()
        let coordinator = LoginCoordinator(
            providers: LoginProviders(mobile: MockOneTapProvider(.mobile, codes: [103000]), sms: sms, exchange: exchange), clock: clock, events: events)
        let outcome = try await Self.cancelledDuringTheExchange(coordinator, exchange, phoneNumber: try PhoneNumber("13800138000"))
        #expect(outcome.ending == .cancelled && outcome.flow == .sms)
        #expect(outcome.trace.map(Self.summary) == ["mobile:103000:success", "mobile:exchange-timeout:switch", "sms:caller-cancelled:cancelled"])
        #expect(outcome.trace[1].meaning == "the exchange gave no answer: its result is unknown (it may have been billed); SMS now, the token is kept for reconciliation")
        #expect(events.names.last == "cancelled")
        #expect(clock.elapsed == .zero)
    }

    /// A device attacker's read: cancelled during the exchange with no SMS provider, the login went on to the SMS
    /// flow, found it unavailable and ended `failed`, where the coordinator promises a cancelled caller's login
    /// ends cancelled. A request made once the caller is cancelled is answered as the caller's cancel.
    @Test func cancellingDuringTheExchangeWithoutAnSMSProviderEndsAsCancelled() async throws {
        let clock = FakeClock()
        let exchange = HangingExchange()
        let events = RecordingEventSink()
        let coordinator = LoginCoordinator(
            providers: LoginProviders(mobile: MockOneTapProvider(.mobile, codes: [103000]), exchange: exchange), clock: clock, events: events)
        let outcome = try await Self.cancelledDuringTheExchange(coordinator, exchange, phoneNumber: nil)
        #expect(outcome.ending == .cancelled && outcome.flow == .sms)
        #expect(outcome.trace.map(Self.summary) == ["mobile:103000:success", "mobile:exchange-timeout:switch", "sms:caller-cancelled:cancelled"])
        #expect(events.names.last == "cancelled")
    }

    /// Runs a China Mobile login on `coordinator` and cancels its caller once its token reached `exchange`.
    static func cancelledDuringTheExchange(_ coordinator: LoginCoordinator, _ exchange: HangingExchange, phoneNumber: PhoneNumber?) async throws -> LoginOutcome {
        let login = Task { try await coordinator.login(DeviceSnapshot(plmn: try PLMN("46000")), phoneNumber: phoneNumber) }
        var calls = exchange.calls.makeAsyncIterator()
        #expect(await calls.next() == .mobile)
        login.cancel()
        return try await login.value
    }

    /// A device attacker's read: a user who left while the token was being exchanged counted as a failure of
    /// China Mobile's channel on the device's breaker (ten such, and the channel was skipped), where leaving
    /// during the flow itself counts nothing. The caller's cancellation says nothing of the channel either way.
    @Test func cancellingDuringTheExchangeCountsNothingAgainstTheChannel() async throws {
        let clock = FakeClock()
        let health = ChannelHealth(window: 4, minimumAttempts: 1, failureThreshold: 0.5, coolDown: .seconds(60))
        let exchange = HangingExchange()
        let coordinator = LoginCoordinator(
            providers: LoginProviders(mobile: MockOneTapProvider(.mobile, codes: [103000]), sms: MockSMSProvider(send: [.hang], clock: clock), exchange: exchange),
            health: health, clock: clock, events: DiscardingEventSink())
        #expect(try await Self.cancelledDuringTheExchange(coordinator, exchange, phoneNumber: try PhoneNumber("13800138000")).ending == .cancelled)
        #expect(health.state(of: .mobile, for: .mobile, at: clock.now()) == .closed)
    }

    /// A device attacker's read: the coordinator took an SMS send or verify as successful only when its code was
    /// `0`, where the session machine reads the SMS success code from the result-code table: with a replacement
    /// table whose SMS success is `OK`, a verified code was reported as a bare result and refused, and the login
    /// ended failed. The coordinator now reads the table too.
    /// A result-code table with the built-in one-tap successes and defaults, and the SMS rows given.
    static func outcomes(sms: String) throws -> OutcomeTable {
        try OutcomeTable(csv: """
            flow,code,action,meaning_zh,meaning_en,source
            mobile,103000,success,成功,success,t
            mobile,*,fallback,失败,failure,t
            tianyi,0,success,成功,success,t
            tianyi,*,fallback,失败,failure,t
            unicom,0,success,成功,success,t
            unicom,*,fallback,失败,failure,t
            """ + "\n" + sms, file: "codes.csv")
    }

    @Test func theSMSStepsSuccessCodeIsTheTablesToo() async throws {
        let outcomes = try Self.outcomes(sms: """
            sms,OK,success,成功,success,t
            sms,*,failed,失败,failure,t
            """)
        let sms = MockSMSProvider(send: [.value("OK")], verify: [.value(SMSVerification(resultCode: "OK", session: Secret("s-1")))])
        let coordinator = LoginCoordinator(
            engine: LoginDecisionEngine(tables: DecisionTables(outcomes: outcomes)), providers: LoginProviders(sms: sms), events: DiscardingEventSink())
        let outcome = try await coordinator.login(DeviceSnapshot(sim: .absent))
        #expect(outcome.ending == .success && outcome.flow == .sms)
        #expect(outcome.trace.map(Self.summary) == ["sms:OK:success"])
    }

    /// A device attacker's read: an SMS provider answering a code the table calls `progress` had its page run again,
    /// a code sent each time (three, then the login failed). It is the provider's fault, as for a one-tap provider: one
    /// code sent, the login ends.
    @Test(arguments: ["send", "verify"]) func anSMSProgressCodeAsAnAnswerSendsNoMoreCodes(step: String) async throws {
        let outcomes = try Self.outcomes(sms: """
            sms,0,success,成功,success,t
            sms,7,progress,处理中,in progress,t
            sms,*,failed,失败,failure,t
            """)
        let sms = step == "send"
            ? MockSMSProvider(send: [.value(7), .value(7), .value(7)])
            : MockSMSProvider(verify: [.value(SMSVerification(resultCode: 7, session: nil)), .value(SMSVerification(resultCode: 7, session: nil))])
        let coordinator = LoginCoordinator(
            engine: LoginDecisionEngine(tables: DecisionTables(outcomes: outcomes)), providers: LoginProviders(sms: sms), events: DiscardingEventSink())
        let outcome = try await coordinator.login(DeviceSnapshot(sim: .absent))
        #expect(sms.codesSent == 1, "one code sent, not one per progress answer")
        #expect(outcome.ending == .failed)
        #expect(outcome.trace.map(Self.summary) == ["sms:provider-error:fallback"])
    }

    /// A device attacker's read: a user who left the SMS page (after giving a number, or before entering the code) had
    /// the login end `failed`, an error shown and a failure counted: the SMS page has no result code for it. Its provider
    /// throws `CancellationError`, and the login ends cancelled; any other throw is still a failure.
    @Test(arguments: ["send", "verify"]) func aUserWhoLeavesTheSMSPageCancelsTheLogin(step: String) async throws {
        let sms = step == "send" ? MockSMSProvider(send: [.error(CancellationError())]) : MockSMSProvider(verify: [.error(CancellationError())])
        let coordinator = LoginCoordinator(providers: LoginProviders(sms: sms), events: DiscardingEventSink())
        let outcome = try await coordinator.login(DeviceSnapshot(sim: .absent))
        #expect(outcome.ending == .cancelled && outcome.flow == .sms)
        #expect(outcome.trace.map(Self.summary) == ["sms:cancelled:cancelled"])
        let broken = MockSMSProvider(verify: [.error(URLError(.timedOut))])
        let failed = try await LoginCoordinator(providers: LoginProviders(sms: broken), events: DiscardingEventSink()).login(DeviceSnapshot(sim: .absent))
        #expect(failed.ending == .failed)
    }

    /// A flow without a limit of its own (`FlowTimeouts(mobile: nil)`: the SDK's own time-out governs) still bounds the
    /// exchange, by the guard's 5 s (a device attacker's read: the exchange of such a flow had no limit, and a carrier
    /// that never answered held the login until its caller gave up).
    @Test(.timeLimit(.minutes(3))) func anExchangeOfAFlowWithoutALimitHasTheGuardsLimit() async throws {
        let clock = FakeClock()
        let exchange = HangingExchange()
        let coordinator = LoginCoordinator(
            providers: LoginProviders(mobile: MockOneTapProvider(.mobile, codes: [103000]), sms: MockSMSProvider(), exchange: exchange),
            timeouts: FlowTimeouts(mobile: nil), clock: clock, events: DiscardingEventSink())
        let login = Task { try await coordinator.login(DeviceSnapshot(plmn: try PLMN("46000"))) }
        var calls = exchange.calls.makeAsyncIterator()
        #expect(await calls.next() == .mobile)
        await clock.waitForSleepers(1)   // the exchange's time limit
        clock.advance(by: .seconds(5))
        let outcome = try await login.value
        #expect(outcome.trace.map(Self.summary) == ["mobile:103000:success", "mobile:exchange-timeout:switch", "sms:0:success"])
        #expect(clock.elapsed == .seconds(5))
    }

    @Test func unicomFlowEndToEnd() async throws {
        let policy = try RoutingPolicy(csv: """
            condition,flows,reason,source
            sim-absent,sms,no-sim,s
            sim-not-ready,sms,sim-not-ready,s
            no-network,sms,no-network,s
            mobile-data-off,sms,mobile-data-off,s
            cellular-restricted,sms,cellular-restricted,s
            virtual-operator,sms,virtual-operator,s
            carrier:mobile,mobile sms,policy,s
            carrier:unicom,unicom tianyi sms,policy,s
            carrier:telecom,tianyi sms,policy,s
            carrier:tietong,tianyi sms,policy,s
            carrier:broadnet,sms,carrier-unsupported,s
            carrier:other,sms,carrier-unsupported,s
            carrier:unknown,mobile sms,carrier-unknown,s
            """, file: "unicom.csv")
        let unicom = MockOneTapProvider(.unicom, codes: ["1", "0"])
        let coordinator = LoginCoordinator(
            engine: LoginDecisionEngine(policy: policy),
            providers: LoginProviders(tianyi: MockOneTapProvider(.tianyi, codes: [-8994014]), unicom: unicom, sms: MockSMSProvider()), events: DiscardingEventSink())
        let fallsBack = try await coordinator.login(DeviceSnapshot(plmn: try PLMN("46001")))
        #expect(fallsBack.trace.map(Self.summary) == ["unicom:1:fallback", "tianyi:-8994014:fallback", "sms:0:success"])
        let succeeds = try await coordinator.login(DeviceSnapshot(plmn: try PLMN("46001")))
        #expect(succeeds.trace.map(Self.summary) == ["unicom:0:success"])
        #expect(succeeds.credential?.token.reveal() == "unicom-code-2")
        #expect(unicom.calls == 2)
    }

    @Test func anSMSCodeThatWasNotSentEndsTheLoginAsTheTableSays() async throws {
        let sms = MockSMSProvider(send: [.value(5)])
        let coordinator = LoginCoordinator(providers: LoginProviders(sms: sms), events: DiscardingEventSink())
        let outcome = try await coordinator.login(DeviceSnapshot(sim: .absent))
        #expect(outcome.trace.map(Self.summary) == ["sms:5:failed"])
        #expect(sms.verifications == 0)
    }

    @Test func aVerifiedSMSCodeWithoutASessionIsAProviderFault() async throws {
        let sms = MockSMSProvider(verify: [.value(SMSVerification(resultCode: 0))])
        let coordinator = LoginCoordinator(providers: LoginProviders(sms: sms), events: DiscardingEventSink())
        let outcome = try await coordinator.login(DeviceSnapshot(sim: .absent))
        #expect(outcome.ending == .failed)
        #expect(outcome.trace.map(Self.summary) == ["sms:provider-error:fallback"])
        #expect(outcome.credential == nil)
    }

    @Test func cancellingBeforeTheFirstFlowAnswersEndsAsCancelled() async throws {
        let clock = FakeClock()
        let mobile = MockOneTapProvider(.mobile, [.hang], clock: clock)
        let coordinator = LoginCoordinator(providers: LoginProviders(mobile: mobile, sms: MockSMSProvider()), clock: clock, events: DiscardingEventSink())
        let login = Task {
            withUnsafeCurrentTask { $0?.cancel() }   // cancelled before the first provider call
            return try await coordinator.login(DeviceSnapshot(plmn: try PLMN("46000")))
        }
        let outcome = try await login.value
        #expect(outcome.ending == .cancelled)
        #expect(outcome.trace.map(Self.summary) == ["mobile:caller-cancelled:cancelled"])
    }

    @Test func hangBecomesATimeoutOnTheFakeClock() async throws {
        let clock = FakeClock()
        let events = RecordingEventSink()
        let coordinator = LoginCoordinator(
            providers: LoginProviders(mobile: MockOneTapProvider(.mobile, [.hang]), sms: MockSMSProvider()), clock: clock, events: events)
        let login = Task { try await coordinator.login(DeviceSnapshot(plmn: try PLMN("46000"))) }
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(7999))
        #expect(clock.sleeperCount == 1)   // not yet
        clock.advance(by: .milliseconds(1))
        let outcome = try await login.value
        #expect(outcome.trace.map(Self.summary) == ["mobile:timeout:fallback", "sms:0:success"])
        // The timeout is a step like any other: one result event, 8 s into the login on the fake clock.
        let timeout = try #require(events.recorded.first { event in
            if case .login(.result(let step), _) = event.payload { step.result == .timeout } else { false }
        })
        guard case .login(_, let context) = timeout.payload else { Issue.record("not a login event"); return }
        #expect(context.elapsedMilliseconds(at: timeout.at) == 8000)
        #expect(context.carrier == .mobile)
    }

    @Test func configurableTimeouts() async throws {
        let clock = FakeClock()
        let coordinator = LoginCoordinator(
            providers: LoginProviders(tianyi: MockOneTapProvider(.tianyi, [.delay(.seconds(4), MockOneTapProvider.answer(0, 1, flow: .tianyi))], clock: clock), sms: MockSMSProvider()),
            timeouts: FlowTimeouts(tianyi: .seconds(3)), clock: clock)
        let login = Task { try await coordinator.login(Self.telecom) }
        await clock.waitForSleepers(2)   // the provider's delay and the time limit
        clock.advance(by: .seconds(3))
        #expect(try await login.value.trace.map(Self.summary) == ["tianyi:timeout:fallback", "sms:0:success"])
    }

    @Test func cancellingTheCallerCancelsTheProviderCallPromptly() async throws {
        let clock = FakeClock()
        let sms = MockSMSProvider()
        let coordinator = LoginCoordinator(providers: LoginProviders(mobile: MockOneTapProvider(.mobile, [.hang]), sms: sms), clock: clock)
        let login = Task { try await coordinator.login(DeviceSnapshot(plmn: try PLMN("46000"))) }
        await clock.waitForSleepers(1)
        login.cancel()
        let outcome = try await login.value
        #expect(outcome.ending == .cancelled)
        #expect(outcome.flow == .mobile)
        #expect(sms.codesSent == 0)
        #expect(clock.elapsed == .zero)   // no time passed: it did not wait for the timeout
    }

    /// A device attacker's read: a login cancelled while it probed a half-open channel kept the probe's slot (a
    /// caller's cancel reported nothing), so with one probe allowed the device skipped the channel as
    /// `circuit-open` until the probe's time-out (20 s). A cancel counts nothing and frees the slot: the next
    /// login probes.
    @Test func aLoginCancelledWhileItProbesFreesTheProbe() async throws {
        let clock = FakeClock()
        let health = ChannelHealth(window: 4, minimumAttempts: 1, failureThreshold: 0.5, coolDown: .seconds(60), probes: 1)
        health.record(.mobile, for: .mobile, action: .fallback, at: clock.now())
        clock.advance(by: .seconds(61))
        #expect(health.state(of: .mobile, for: .mobile, at: clock.now()) == .halfOpen)
        let provider = MockOneTapProvider(.mobile, [.hang, .value(MockOneTapProvider.answer(103000, 2, flow: .mobile))], clock: clock)
        let coordinator = LoginCoordinator(providers: LoginProviders(mobile: provider, sms: MockSMSProvider()), health: health, clock: clock, events: DiscardingEventSink())
        let first = Task { try await coordinator.login(DeviceSnapshot(plmn: try PLMN("46000"))) }
        await clock.waitForSleepers(1)
        first.cancel()
        #expect(try await first.value.ending == .cancelled)
        let second = try await coordinator.login(DeviceSnapshot(plmn: try PLMN("46000")))
        #expect(second.trace.map(Self.summary) == ["mobile:103000:success"])
        #expect(health.state(of: .mobile, for: .mobile, at: clock.now()) == .closed)
    }

    /// A device attacker's read: a `retry` code on a half-open channel's probe (China Mobile's `200034`, a pre-fetched
    /// token that expired) counted as the probe's failure and opened the circuit again, and the retry that then
    /// succeeded was not heard: the next login skipped one-tap for another cool-down. A retry says nothing of the
    /// channel; the attempt it leads to does.
    @Test func aRetryOnAProbeWaitsForTheRetrysOwnAnswer() async throws {
        let clock = FakeClock()
        let health = ChannelHealth(window: 4, minimumAttempts: 1, failureThreshold: 0.5, coolDown: .seconds(60), probes: 1)
        health.record(.mobile, for: .mobile, action: .fallback, at: clock.now())
        clock.advance(by: .seconds(61))
        let provider = MockOneTapProvider(.mobile, codes: [200034, 103000, 103000], clock: clock)
        let coordinator = LoginCoordinator(providers: LoginProviders(mobile: provider, sms: MockSMSProvider()), health: health, clock: clock, events: DiscardingEventSink())
        let first = try await coordinator.login(DeviceSnapshot(plmn: try PLMN("46000")))
        #expect(first.trace.map(Self.summary) == ["mobile:200034:retry", "mobile:103000:success"])
        #expect(health.state(of: .mobile, for: .mobile, at: clock.now()) == .closed, "the retry's success closed the circuit")
        let second = try await coordinator.login(DeviceSnapshot(plmn: try PLMN("46000")))
        #expect(second.trace.map(Self.summary) == ["mobile:103000:success"])
    }

    /// A retry that the flow's retries used up falls back, and counts as the attempt's failure.
    @Test func aRetryPastTheRetriesCountsAsAFailure() async throws {
        let clock = FakeClock()
        let health = ChannelHealth(window: 4, minimumAttempts: 1, failureThreshold: 0.5, coolDown: .seconds(60), probes: 1)
        let provider = MockOneTapProvider(.mobile, codes: [200034, 200034], clock: clock)
        let coordinator = LoginCoordinator(providers: LoginProviders(mobile: provider, sms: MockSMSProvider()), health: health, clock: clock, events: DiscardingEventSink())
        let outcome = try await coordinator.login(DeviceSnapshot(plmn: try PLMN("46000")))
        #expect(outcome.trace.map(Self.summary) == ["mobile:200034:retry", "mobile:200034:fallback", "sms:0:success"])
        #expect(health.state(of: .mobile, for: .mobile, at: clock.now()) == .open(until: clock.now().addingTimeInterval(60)), "one failure of one attempt meets the opening rule")
    }

    @Test func aSecondConcurrentLoginIsRejected() async throws {
        let clock = FakeClock()
        let coordinator = LoginCoordinator(providers: LoginProviders(mobile: MockOneTapProvider(.mobile, [.hang]), sms: MockSMSProvider()), clock: clock)
        let first = Task { try await coordinator.login(DeviceSnapshot(plmn: try PLMN("46000"))) }
        await clock.waitForSleepers(1)
        await #expect(throws: LoginCoordinatorError.busy) {
            try await coordinator.login(DeviceSnapshot(plmn: try PLMN("46000")))
        }
        clock.advance(by: .seconds(8))
        #expect(try await first.value.ending == .success)
        // Free again once the first ended.
        #expect(try await coordinator.login(DeviceSnapshot(sim: .absent)).ending == .success)
    }

    @Test func eventsAndDescriptionsNeverCarryTokens() async throws {
        let events = RecordingEventSink()
        let coordinator = LoginCoordinator(
            providers: LoginProviders(
                mobile: MockOneTapProvider(.mobile, [.value(OneTapResult(resultCode: 103000, credential: CarrierCredential(flow: .mobile, token: Secret("MOBILE-SECRET"), uniqueID: "u")))]),
                sms: MockSMSProvider()),
            events: events)
        let outcome = try await coordinator.login(DeviceSnapshot(plmn: try PLMN("46000")))
        var dumped = ""
        dump(outcome, to: &dumped)
        var texts = [outcome.description, "\(outcome.credential!)", dumped, String(reflecting: outcome)]
        for event in events.recorded {
            texts.append(event.description)
            texts.append(event.json())
        }
        for step in outcome.trace { texts.append(try step.jsonText()) }
        for text in texts { #expect(!text.contains("MOBILE-SECRET"), "leaked: \(text)") }
        #expect(outcome.credential?.token.reveal() == "MOBILE-SECRET")
    }

    @Test func eventStreamDeliversEvents() async throws {
        let (stream, sink) = EventStream.make()
        let coordinator = LoginCoordinator(providers: LoginProviders(sms: MockSMSProvider()), events: sink)
        _ = try await coordinator.login(DeviceSnapshot(sim: .absent))
        sink.finish()
        var names: [String] = []
        for await event in stream { names.append(event.name) }
        #expect(names == ["planned", "flow-started", "result", "succeeded"])
    }
}

/// A one-tap SDK that shows its page after `pageAfter` (telling China Mobile's 200087) and answers success once the
/// user taps, `tapAfter` later, on the test's clock.
final class PageThenTap: OneTapProvider {
    let clock: FakeClock
    let pageAfter: Duration
    let tapAfter: Duration
    /// The flow it serves: China Mobile tells its page by `200087`, the others by `pageShown()`.
    let flow: LoginFlow
    private let counted = LockedValue(0)
    var calls: Int { counted.withLock { $0 } }

    init(clock: FakeClock, pageAfter: Duration, tapAfter: Duration, flow: LoginFlow = .mobile) {
        (self.clock, self.pageAfter, self.tapAfter, self.flow) = (clock, pageAfter, tapAfter, flow)
    }

    func login(progress: OneTapProgress) async throws -> OneTapResult {
        let call = counted.withLock { count in
            count += 1
            return count
        }
        try await clock.sleep(for: pageAfter)
        if flow == .mobile { progress.report(200087) } else { progress.pageShown() }
        try await clock.sleep(for: tapAfter)
        return MockOneTapProvider.answer(flow == .mobile ? 103000 : 0, call, flow: flow)
    }
}

/// A one-tap SDK whose first call never answers and ignores cancellation, until ``release()``; later calls succeed.
private final class StuckThenAnswering: OneTapProvider {
    private let state = LockedValue<(calls: Int, parked: CheckedContinuation<Void, Never>?, released: Bool)>((0, nil, false))
    private let called = AsyncStream<Void>.makeStream()
    var calls: Int { state.withLock { $0.calls } }

    /// Returns once the first call has started.
    func waitUntilCalled() async {
        var iterator = called.stream.makeAsyncIterator()
        _ = await iterator.next()
    }

    func login(progress: OneTapProgress) async throws -> OneTapResult {
        let call = state.withLock { state in
            state.calls += 1
            return state.calls
        }
        if call == 1 { called.continuation.yield() }
        if call == 1 {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.released { return true }
                    state.parked = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        }
        return MockOneTapProvider.answer(103000, call, flow: .mobile)
    }

    func release() {
        let parked = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.released = true
            defer { state.parked = nil }
            return state.parked
        }
        parked?.resume()
    }
}
