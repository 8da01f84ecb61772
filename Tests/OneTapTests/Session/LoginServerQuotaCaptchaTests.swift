import Foundation
import OneTapTesting
import Testing
@testable import OneTap

/// An attacker's read: the login quotas limited starts per address block, which a carrier's NAT shares among
/// thousands of subscribers (an IPv4 address, a mobile /48): one stranger behind it starting a login a second
/// refused every neighbour's login, SMS included, for up to an hour. Past an address block's (or a device's)
/// quota a start now needs a solved captcha, which the neighbour can bring and the flood must pay for.
@Suite struct LoginServerQuotaCaptchaTests {
    let clock = FakeClock()
    let store = InMemoryLoginSessionStore()
    static let mobileSIM = DeviceSnapshot(sim: .present, plmn: try! PLMN("46000"))
    static let nat = try! IPAddress("203.0.113.7")
    static let solved = "solved-by-the-owner"

    func server(
        verifier: (any CaptchaVerifier)? = ScriptedCaptchaVerifier(accepting: [Self.solved]), sms: any SMSStore = InMemorySMSStore(),
        policy: LoginQuotaPolicy = .builtIn, events: any EventSink = DiscardingEventSink()
    ) -> LoginServer {
        let service = SMSCodeService(key: .random(), sender: ScriptedSMSSender(), captcha: verifier, store: sms, events: DiscardingEventSink(), clock: clock)
        return LoginServer(store: store, sms: service, quotas: LoginQuotas(policy: policy), clock: clock, events: events)
    }

    static func client(_ index: Int) -> AccessClaims {
        TestAppSession.claims(try! AppSessionID("QuotaCaptchaSess" + String(100_000 + index)))
    }

    static func rejection(_ error: any Error) -> LoginRejection? { error as? LoginRejection }

    /// A captcha verifier that takes ten seconds of the clock's time to answer, and accepts every token.
    struct SlowVerifier: CaptchaVerifier {
        let clock: FakeClock
        func verify(_ token: Secret, context: SMSContext) async throws -> Bool {
            clock.advance(by: .seconds(10))
            return true
        }
    }

    /// An attacker's read: a start whose access token expired while the quota's captcha was checked was refused
    /// (`unauthenticated`), but its start stayed counted, one of the app session's hard `session-starts-hour`: a
    /// failure of the start's own that spent the client's quota, as a store's failure is taken back.
    @Test func aStartWhoseTokenExpiresDuringItsCaptchaCheckIsNotCounted() async throws {
        let policy = try LoginQuotaPolicy(
            csv: "rule,key,counts,window_seconds,limit,over,source\nip-starts,ip,starts,3600,1,captcha,test\nsess,session,starts,3600,2,limit,test\n",
            file: "q.csv")
        let logins = server(verifier: SlowVerifier(clock: clock), policy: policy)
        let session = try AppSessionID("ExpiringAppSession0001")
        let now = clock.now()
        func claims(expiringIn seconds: Double) -> AccessClaims {
            TestAppSession.keys.accessToken(
                session: session, identity: .guest(try! GuestID("GuestOfTheTests000000A")), epoch: 0, issuedAt: now,
                expiresAt: clock.now().addingTimeInterval(seconds)).claims
        }
        _ = try await logins.start(Self.mobileSIM, for: claims(expiringIn: 3600), address: Self.nat)
        await #expect { try await logins.start(Self.mobileSIM, for: claims(expiringIn: 5), address: Self.nat, captcha: Secret("t")) }
            throws: { ($0 as? AppSessionError)?.kind == .unauthenticated }
        let third = try await logins.start(Self.mobileSIM, for: claims(expiringIn: 3600), address: Self.nat, captcha: Secret("t"))
        #expect(third.session.version == 1)
    }

    /// The stranger's 60 starts in a minute from one NAT address (each from a guest session and device of its
    /// own, as anyone can mint them) reach the built-in `ip-starts-minute`. The neighbour behind the same address
    /// is asked for a captcha, not refused, and starts with one.
    @Test func aStrangerBehindTheSameNATCannotStopItsNeighboursLogin() async throws {
        let logins = server()
        for index in 0..<60 {
            _ = try await logins.start(Self.mobileSIM, for: Self.client(index), address: Self.nat, device: try DeviceID("stranger-\(index)"))
        }
        let owner = Self.client(1000)
        let device = try DeviceID("owners-phone")
        await #expect {
            try await logins.start(Self.mobileSIM, for: owner, address: Self.nat, device: device)
        } throws: { Self.rejection($0)?.kind == .captchaRequired && Self.rejection($0)!.message.contains("ip-starts-minute") }
        let started = try await logins.start(Self.mobileSIM, for: owner, address: Self.nat, device: device, captcha: Secret(Self.solved))
        #expect(started.session.version == 1)
        #expect(store.count == 61)
        // The stranger, solving none, starts nothing more.
        await #expect {
            try await logins.start(Self.mobileSIM, for: Self.client(61), address: Self.nat, device: try DeviceID("stranger-61"))
        } throws: { Self.rejection($0)?.kind == .captchaRequired }
        #expect(store.count == 61)
    }

    /// An attacker's read: paid exchanges per address block were a hard limit, so a stranger behind the same NAT
    /// address who reported 120 made-up successes in an hour (one token told again, which the carrier sees once)
    /// refused every neighbour's one-tap login there for as long as it kept topping them up. Past an address
    /// block's (or a device's) exchange quota a start now needs a solved captcha, and a login that started with one
    /// is exchanged past those quotas; the stranger, solving none, is refused as before.
    @Test func aStrangersMadeUpSuccessesCannotStopItsNeighboursOneTap() async throws {
        let carrier = MockTokenExchange(number: try PhoneNumber("13800138000"), clock: clock)
        let service = SMSCodeService(
            key: .random(), sender: ScriptedSMSSender(), captcha: ScriptedCaptchaVerifier(accepting: [Self.solved]), store: InMemorySMSStore(),
            events: DiscardingEventSink(), clock: clock)
        let logins = LoginServer(
            store: store, exchange: ExchangeGuard(provider: carrier, clock: clock), sms: service, quotas: LoginQuotas(), clock: clock)
        let made = LoginReport.result(.mobile, code: "103000", credential: CarrierCredential(flow: .mobile, token: Secret("JUNK"), uniqueID: "u"))
        // A neighbour who starts before the rule fills, with no captcha asked.
        let early = Self.client(999), earlyPhone = try DeviceID("early-phone")
        let earlyStart = try await logins.start(Self.mobileSIM, for: early, address: Self.nat, device: earlyPhone)
        #expect(!earlyStart.session.startCaptcha)
        for index in 0..<120 {
            // Two seconds apart: under every start rule, so no captcha is ever asked of the stranger.
            clock.advance(by: .seconds(2))
            let stranger = Self.client(index), device = try DeviceID("stranger-\(index % 12)")
            let started = try await logins.start(Self.mobileSIM, for: stranger, address: Self.nat, device: device)
            _ = try await logins.report(made, to: started.session.id, version: 1, from: stranger, address: Self.nat, device: device)
        }
        #expect(carrier.tokensSent.count == 1, "the one token reached the carrier once")
        let owner = Self.client(1000), phone = try DeviceID("owners-phone")
        await #expect {
            try await logins.start(Self.mobileSIM, for: owner, address: Self.nat, device: phone)
        } throws: { Self.rejection($0)?.kind == .captchaRequired && Self.rejection($0)!.message.contains("ip-exchanges-hour") }
        let started = try await logins.start(Self.mobileSIM, for: owner, address: Self.nat, device: phone, captcha: Secret(Self.solved))
        let success = LoginReport.result(.mobile, code: "103000", credential: CarrierCredential(flow: .mobile, token: Secret("owners-token"), uniqueID: "u"))
        let done = try await logins.report(success, to: started.session.id, version: 1, from: owner, address: Self.nat, device: phone)
        #expect(done.session.ending == .success)
        // The neighbour who started before the rule filled is asked for a captcha with its success report (a review:
        // it was refused, and its one-tap lost), and is exchanged with one; a captcha checked once, whichever copy of
        // the session the server decides on.
        let earlySuccess = LoginReport.result(.mobile, code: "103000", credential: CarrierCredential(flow: .mobile, token: Secret("early-token"), uniqueID: "u"))
        await #expect {
            try await logins.report(earlySuccess, to: earlyStart.session.id, version: 1, from: early, address: Self.nat, device: earlyPhone)
        } throws: { Self.rejection($0)?.kind == .captchaRequired && Self.rejection($0)!.message.contains("ip-exchanges-hour") }
        let earlyDone = try await logins.report(
            earlySuccess, to: earlyStart.session.id, version: 1, from: early, address: Self.nat, device: earlyPhone, captcha: Secret(Self.solved))
        #expect(earlyDone.session.ending == .success)
        // The stranger's next made-up success, from a login started without a captcha, is asked for one before the carrier.
        let stranger = Self.client(2000), device = try DeviceID("stranger-0")
        let refused = try await logins.start(Self.mobileSIM, for: stranger, address: try IPAddress("198.51.100.1"), device: device)
        await #expect {
            try await logins.report(made, to: refused.session.id, version: 1, from: stranger, address: Self.nat, device: device)
        } throws: { Self.rejection($0)?.kind == .captchaRequired && Self.rejection($0)!.message.contains("ip-exchanges-hour") }
        #expect(carrier.tokensSent.count == 3)
    }

    /// A review: the copy of a login one instance kept could refuse a report, and spend its captcha, for a login that
    /// had succeeded elsewhere. The app's report with its captcha succeeded on instance B; the answer was lost and the
    /// app's retry reached instance A, whose copy still stood at the start: its quota asked the provider about the
    /// token again. A copy's refusal now leaves the report to the stored session, which tells the success again; the
    /// token is checked once.
    @Test func aRetryOnAnotherInstancesCopyChecksNoCaptchaAgain() async throws {
        let policy = try LoginQuotaPolicy(csv: """
            rule,key,counts,window_seconds,limit,over,source
            address,ip,exchanges,3600,1,captcha,t
            """, file: "q.csv")
        let verifier = ScriptedCaptchaVerifier(accepting: [Self.solved])
        let service = SMSCodeService(key: .random(), sender: ScriptedSMSSender(), captcha: verifier, store: InMemorySMSStore(), events: DiscardingEventSink(), clock: clock)
        let quotas = LoginQuotas(policy: policy), carrier = MockTokenExchange(number: try PhoneNumber("13800138000"), clock: clock)
        let guardian = ExchangeGuard(provider: carrier, clock: clock)
        let a = LoginServer(store: store, exchange: guardian, sms: service, quotas: quotas, clock: clock)
        let b = LoginServer(store: store, exchange: guardian, sms: service, quotas: quotas, clock: clock)
        let success = { (token: String) in LoginReport.result(.mobile, code: "103000", credential: CarrierCredential(flow: .mobile, token: Secret(token), uniqueID: "u")) }
        let owner = Self.client(1)
        let started = try await a.start(Self.mobileSIM, for: owner, address: Self.nat)          // A keeps its copy
        let stranger = try await b.start(Self.mobileSIM, for: Self.client(2), address: Self.nat)
        _ = try await b.report(success("made-up"), to: stranger.session.id, version: 1, from: Self.client(2), address: Self.nat)   // the rule is full
        let done = try await b.report(success("owners"), to: started.session.id, version: 1, from: owner, address: Self.nat, captcha: Secret(Self.solved))
        #expect(done.session.ending == .success && verifier.checks == 1)
        let retried = try await a.report(success("owners"), to: started.session.id, version: 1, from: owner, address: Self.nat, captcha: Secret(Self.solved))
        #expect(retried.session.ending == .success)
        #expect(verifier.checks == 1, "the token was checked once")
        #expect(carrier.tokensSent.count == 2)
    }

    /// Without a verifier no captcha can pass the rules on exchanges: they limit the exchanges alone, as before, and a
    /// full one never holds back a start, nor with it the SMS step (a review: the whole login was refused).
    @Test func withoutAVerifierAFullExchangeRuleRefusesOnlyTheExchange() async throws {
        let policy = try LoginQuotaPolicy(csv: """
            rule,key,counts,window_seconds,limit,over,source
            address,ip,exchanges,3600,1,captcha,t
            """, file: "q.csv")
        let carrier = MockTokenExchange(number: try PhoneNumber("13800138000"), clock: clock)
        let logins = LoginServer(store: store, exchange: ExchangeGuard(provider: carrier, clock: clock), quotas: LoginQuotas(policy: policy), clock: clock)
        let first = try await logins.start(Self.mobileSIM, for: Self.client(1), address: Self.nat)
        let success = { (token: String) in LoginReport.result(.mobile, code: "103000", credential: CarrierCredential(flow: .mobile, token: Secret(token), uniqueID: "u")) }
        _ = try await logins.report(success("first"), to: first.session.id, version: 1, from: Self.client(1), address: Self.nat)
        let second = try await logins.start(Self.mobileSIM, for: Self.client(2), address: Self.nat)
        await #expect {
            try await logins.report(success("second"), to: second.session.id, version: 1, from: Self.client(2), address: Self.nat)
        } throws: { Self.rejection($0)?.kind == .overQuota && Self.rejection($0)!.message.contains("address") }
        #expect(try await logins.report(.switchToSMS(.mobile), to: second.session.id, version: 1, from: Self.client(2), address: Self.nat).session.next == "sms")
    }

    /// A captcha that does not pass is refused as such; past the SMS policy's `captcha-rejects` (10 an hour from one
    /// address) each further check waits, so junk tokens reach the provider exactly ten times, and the wait ends (one
    /// second after the tenth here, as nothing renews it): the neighbour's solved captcha then passes.
    @Test func tokensThatDoNotPassReachTheProviderABoundedNumberOfTimes() async throws {
        let verifier = ScriptedCaptchaVerifier(accepting: [Self.solved])
        let logins = server(verifier: verifier)
        for index in 0..<60 {
            _ = try await logins.start(Self.mobileSIM, for: Self.client(index), address: Self.nat, device: try DeviceID("stranger-\(index)"))
        }
        await #expect {
            try await logins.start(Self.mobileSIM, for: Self.client(100), address: Self.nat, device: try DeviceID("junk"), captcha: Secret("made-up"))
        } throws: { Self.rejection($0)?.kind == .captchaRequired && Self.rejection($0)!.message.contains("did not pass") && Self.rejection($0)?.retryAt == nil }
        for index in 0..<100 {
            await #expect(throws: LoginRejection.self) {
                try await logins.start(Self.mobileSIM, for: Self.client(101 + index), address: Self.nat, device: try DeviceID("junk"), captcha: Secret("made-up-\(index)"))
            }
        }
        #expect(verifier.checks == 10)
        await #expect {
            try await logins.start(Self.mobileSIM, for: Self.client(300), address: Self.nat, device: try DeviceID("junk"), captcha: Secret("made-up"))
        } throws: { Self.rejection($0)?.kind == .overQuota && Self.rejection($0)!.message.contains("captcha-rejects") }
        // Without a token, the neighbour is told when checks resume rather than asked for a captcha it could not use.
        await #expect {
            try await logins.start(Self.mobileSIM, for: Self.client(301), address: Self.nat, device: try DeviceID("owners-phone"))
        } throws: {
            Self.rejection($0)?.kind == .overQuota && Self.rejection($0)!.message.contains("checked again after 2026-12-01T00:00:01")
                && Self.rejection($0)?.retryAt == Date(timeIntervalSince1970: 1_796_083_201)
        }
        // The wait after ten (2^0 s after the newest) ends; the neighbour's solved captcha passes.
        clock.advance(by: .seconds(1))
        let started = try await logins.start(Self.mobileSIM, for: Self.client(1000), address: Self.nat, device: try DeviceID("owners-phone"), captcha: Secret(Self.solved))
        #expect(started.session.version == 1)
    }

    /// A solved captcha is counted as rejected only while its provider answers: fifteen neighbours behind a busy NAT
    /// address each start with a solved captcha, one after another, and none waits for `captcha-rejects` (past its
    /// ten, a check left counted would make the next wait).
    @Test func solvedCaptchasAreNotCountedAsRejected() async throws {
        let verifier = ScriptedCaptchaVerifier(accepting: [Self.solved])
        let policy = try LoginQuotaPolicy(csv: "rule,key,counts,window_seconds,limit,over,source\nip,ip,starts,3600,1,captcha,test\n", file: "q.csv")
        let logins = server(verifier: verifier, policy: policy)
        _ = try await logins.start(Self.mobileSIM, for: Self.client(0), address: Self.nat)
        for index in 1...15 {
            _ = try await logins.start(Self.mobileSIM, for: Self.client(index), address: Self.nat, captcha: Secret(Self.solved))
        }
        #expect(verifier.checks == 15)
        #expect(store.count == 16)
    }

    /// Each refusal is an `exchange` `quota-refused` event naming what it counts, the rule and the outcome, and never
    /// the client's address, device or token: an operator sees a NAT address under a flood as a run of them.
    @Test func refusalsAreEventsThatNameNoClient() async throws {
        let events = RecordingEventSink()
        let verifier = ScriptedCaptchaVerifier(accepting: [Self.solved])
        let policy = try LoginQuotaPolicy(csv: "rule,key,counts,window_seconds,limit,over,source\nip,ip,starts,60,1,captcha,test\nme,session,starts,60,2,limit,test\n", file: "q.csv")
        let logins = server(verifier: verifier, policy: policy, events: events)
        let device = try DeviceID("neighbours-phone")
        _ = try await logins.start(Self.mobileSIM, for: Self.client(0), address: Self.nat, device: device)
        await #expect(throws: LoginRejection.self) { try await logins.start(Self.mobileSIM, for: Self.client(0), address: Self.nat, device: device) }
        await #expect(throws: LoginRejection.self) {
            try await logins.start(Self.mobileSIM, for: Self.client(0), address: Self.nat, device: device, captcha: Secret("made-up"))
        }
        _ = try await logins.start(Self.mobileSIM, for: Self.client(0), address: Self.nat, device: device, captcha: Secret(Self.solved))
        await #expect(throws: LoginRejection.self) {
            try await logins.start(Self.mobileSIM, for: Self.client(0), address: Self.nat, device: device, captcha: Secret(Self.solved))
        }
        let refused = events.recorded.filter { $0.name == "quota-refused" }.map { $0.json() }
        #expect(refused == [
            #"{"v":2,"at":"2026-12-01T00:00:00.000Z","area":"exchange","event":"quota-refused","counts":"starts","rule":"ip","outcome":"captcha-required"}"#,
            #"{"v":2,"at":"2026-12-01T00:00:00.000Z","area":"exchange","event":"quota-refused","counts":"starts","rule":"ip","outcome":"captcha-rejected"}"#,
            #"{"v":2,"at":"2026-12-01T00:00:00.000Z","area":"exchange","event":"quota-refused","counts":"starts","rule":"me","outcome":"over-quota"}"#,
        ])
        for line in refused { #expect(!line.contains("203.0.113") && !line.contains("neighbours-phone") && !line.contains(Self.solved)) }
    }

    /// A limit rule is not a captcha rule: one app session (proof OneTap issued) past `session-starts-hour` is
    /// refused even with a solved captcha.
    @Test func aSolvedCaptchaNeverPassesALimit() async throws {
        let logins = server()
        let claims = Self.client(0)
        for index in 0..<20 {
            _ = try await logins.start(Self.mobileSIM, for: claims, address: try IPAddress("198.51.100.\(index + 1)"), device: try DeviceID("d\(index)"))
        }
        await #expect {
            try await logins.start(Self.mobileSIM, for: claims, address: try IPAddress("198.51.100.99"), device: try DeviceID("d99"), captcha: Secret(Self.solved))
        } throws: { Self.rejection($0)?.kind == .overQuota && Self.rejection($0)!.message.contains("session-starts-hour") }
    }

    /// A start with a solved captcha is counted like any other: the stranger who pays in captchas still fills the
    /// address's count. One start a minute is admitted without a captcha: a start at t, one with a captcha at t + 30,
    /// and at t + 61 (the first gone, the second still counted) a start needs a captcha again.
    @Test func aStartWithACaptchaCounts() async throws {
        let verifier = ScriptedCaptchaVerifier(accepting: [Self.solved])
        let policy = try LoginQuotaPolicy(csv: "rule,key,counts,window_seconds,limit,over,source\nip,ip,starts,60,1,captcha,test\n", file: "q.csv")
        let logins = server(verifier: verifier, policy: policy)
        _ = try await logins.start(Self.mobileSIM, for: Self.client(0), address: Self.nat)
        clock.advance(by: .seconds(30))
        _ = try await logins.start(Self.mobileSIM, for: Self.client(1), address: Self.nat, captcha: Secret(Self.solved))
        #expect(verifier.checks == 1)
        // A captcha not needed is not checked.
        _ = try await logins.start(Self.mobileSIM, for: Self.client(2), address: try IPAddress("198.51.100.1"), captcha: Secret("never-checked"))
        #expect(verifier.checks == 1)
        clock.advance(by: .seconds(31))
        await #expect {
            try await logins.start(Self.mobileSIM, for: Self.client(3), address: Self.nat)
        } throws: { Self.rejection($0)?.kind == .captchaRequired }
        #expect(store.count == 3)
    }

    /// A burst of junk tokens sent at once: each check is counted in the update that finds no wait, before the
    /// provider is asked, so the burst reaches the provider at most as often as `captcha-rejects` lets one address
    /// (10) before its wait. Read apart, every one of the burst found no wait (an attacker's read: 50 of 50).
    @Test func aBurstOfJunkTokensReachesTheProviderAtMostTheRulesCount() async throws {
        final class SlowVerifier: CaptchaVerifier {
            let calls = LockedValue(0)
            func verify(_ token: Secret, context: SMSContext) async throws -> Bool {
                calls.withLock { $0 += 1 }
                try await Task.sleep(for: .milliseconds(100))   // a provider's round trip, during which the others arrive
                return false
            }
        }
        let verifier = SlowVerifier()
        let policy = try LoginQuotaPolicy(csv: "rule,key,counts,window_seconds,limit,over,source\nip,ip,starts,60,1,captcha,test\n", file: "q.csv")
        let logins = server(verifier: verifier, policy: policy)
        _ = try await logins.start(Self.mobileSIM, for: Self.client(0), address: Self.nat)
        await withTaskGroup(of: Void.self) { group in
            for index in 1...50 {
                group.addTask {
                    await #expect(throws: LoginRejection.self) {
                        try await logins.start(Self.mobileSIM, for: Self.client(index), address: Self.nat, captcha: Secret("junk-\(index)"))
                    }
                }
            }
        }
        #expect(verifier.calls.withLock { $0 } == 10)
    }

    /// A captcha provider that is down is no word on the token: the start is asked for a captcha again, saying the
    /// check could not be made, and nothing is counted against the address.
    @Test func aProviderThatIsDownCountsAgainstNoOne() async throws {
        let verifier = ScriptedCaptchaVerifier(accepting: [Self.solved], failing: GatewayError(gateway: "captcha", .timedOut))
        let policy = try LoginQuotaPolicy(csv: "rule,key,counts,window_seconds,limit,over,source\nip,ip,starts,60,1,captcha,test\n", file: "q.csv")
        let logins = server(verifier: verifier, policy: policy)
        _ = try await logins.start(Self.mobileSIM, for: Self.client(0), address: Self.nat)
        for index in 1...20 {
            await #expect {
                try await logins.start(Self.mobileSIM, for: Self.client(index), address: Self.nat, captcha: Secret(Self.solved))
            } throws: { Self.rejection($0)?.kind == .captchaRequired && Self.rejection($0)!.message.contains("could not be checked") }
        }
        #expect(verifier.checks == 20, "every check reached the provider: none waited")
    }

    /// A server whose SMS code service has no captcha verifier cannot pass a captcha rule: it says so once when
    /// it is made, and a start past the rule waits for its window (`over-quota` with the time), as over a limit.
    @Test func withoutAVerifierACaptchaRuleIsWaitedOutAndSaidOnce() async throws {
        let events = RecordingEventSink()
        let policy = try LoginQuotaPolicy(csv: "rule,key,counts,window_seconds,limit,over,source\nip,ip,starts,60,1,captcha,test\n", file: "q.csv")
        let logins = server(verifier: nil, policy: policy, events: events)
        #expect(events.names.filter { $0 == "captcha-missing" }.count == 1)
        _ = try await logins.start(Self.mobileSIM, for: Self.client(0), address: Self.nat)
        await #expect {
            try await logins.start(Self.mobileSIM, for: Self.client(1), address: Self.nat, captcha: Secret(Self.solved))
        } throws: { Self.rejection($0)?.kind == .overQuota && Self.rejection($0)!.message.contains("2026-12-01T00:01:00") }
        #expect(store.count == 1)
    }

    /// A store that fails while a start's captcha is checked fails the start with the store's error; nothing is
    /// stored and the provider was not asked.
    @Test func aFailingSMSStoreDuringTheCheckStartsNothing() async throws {
        let verifier = ScriptedCaptchaVerifier(accepting: [Self.solved])
        let sms = FaultySMSStore(InMemorySMSStore())
        let policy = try LoginQuotaPolicy(csv: "rule,key,counts,window_seconds,limit,over,source\nip,ip,starts,60,1,captcha,test\n", file: "q.csv")
        let logins = server(verifier: verifier, sms: sms, policy: policy)
        _ = try await logins.start(Self.mobileSIM, for: Self.client(0), address: Self.nat)
        sms.fail(.beforeRead)
        await #expect(throws: StoreError.self) {
            try await logins.start(Self.mobileSIM, for: Self.client(1), address: Self.nat, captcha: Secret(Self.solved))
        }
        #expect(verifier.checks == 0)
        #expect(store.count == 1)
    }
}
