import Foundation
import OneTapTesting
import Testing
@testable import OneTap

/// An attacker's read of the SMS limits: a stranger who solves captchas sent to a number until its daily cap was
/// full, and then the owner's own send was refused for the rest of the day; at the gateway's default 10 a day per
/// number (Aliyun's flow control), five solved captchas sufficed, the gateway answering the owner `throttled`. An
/// app session that logged in with the number vouches for its returning owner, whose sends go in a lane of their own
/// that strangers cannot fill. Expectations written from the scenario, before the code.
@Suite struct ReturningOwnerTests {
    static let t0 = SMSCodeServiceTests.t0
    static let number = try! PhoneNumber("13800138000")
    static let noSIM = DeviceSnapshot(sim: .absent)

    /// A server with app sessions, over a gateway with Aliyun's default flow control per number.
    struct Setup {
        let clock = FakeClock(now: ReturningOwnerTests.t0)
        let gateway: SMSLockoutTests.GatewayWithPerNumberLimits
        let sessions: AppSessions
        let server: LoginServer

        init(vouching: Bool = true, captcha: (any CaptchaVerifier)? = ScriptedCaptchaVerifier(accepting: ["solved"])) {
            gateway = SMSLockoutTests.GatewayWithPerNumberLimits(clock: clock)
            sessions = AppSessions(keys: TestAppSession.keys, clock: clock, events: DiscardingEventSink())
            let sms = SMSCodeService(
                key: .random(), sender: gateway, captcha: captcha, store: InMemorySMSStore(),
                events: DiscardingEventSink(), clock: clock)
            server = LoginServer(sms: sms, appSessions: vouching ? sessions : nil, clock: clock, events: DiscardingEventSink())
        }

        /// A new app session's claims.
        func opened() async throws -> AccessClaims {
            try sessions.authenticate(try await sessions.open().accessToken.reveal())
        }

        /// An app that logged in with `number` and then logged out: the fresh guest session's refresh token.
        func returned(after number: String) async throws -> Secret {
            let guest = try await opened()
            let grant = try await sessions.loggedIn(guest, as: TestAppSession.outcome(AccountID(stringLiteral: "account-\(number)"), number), flow: .sms)
            return try await sessions.logout(try sessions.authenticate(grant.accessToken.reveal())).refreshToken
        }

        /// A send at `now` in a new login of the app session `refreshToken` refreshes to, from its own address and
        /// device, a captcha solved; the token it rotated to.
        func send(_ refreshToken: Secret, at now: Date, from address: String) async throws -> (SMSSendResult, Secret) {
            clock.setWallTime(now)
            let grant = try await sessions.refresh(refreshToken)
            return (try await send(try sessions.authenticate(grant.accessToken.reveal()), at: now, from: address), grant.refreshToken)
        }

        /// Stranger `index`'s send: a fresh app session, from its own address (`198.51.index.7`) and device, a captcha
        /// solved, `index` × 61 s after `start` seconds past `t0`.
        func strangersSend(_ index: Int, after start: Double = 0) async throws -> SMSSendResult {
            try await send(try await opened(), at: ReturningOwnerTests.t0.addingTimeInterval(start + Double(index) * 61), from: "198.51.\(index).7")
        }

        /// Strangers `indices`' sends (``strangersSend(_:after:)``), each expected sent.
        /// - Returns: False, the failure recorded, at the first one not sent.
        func strangersSendAll(_ indices: Range<Int>, after start: Double = 0) async throws -> Bool {
            for index in indices {
                let sent = try await strangersSend(index, after: start)
                guard case .sent = sent else { Issue.record("the stranger's send \(index + 1): \(sent)"); return false }
            }
            return true
        }

        /// A send at `now` in a new login of `claims`, from its own address and device, a captcha solved.
        func send(_ claims: AccessClaims, at now: Date, from address: String) async throws -> SMSSendResult {
            clock.setWallTime(now)
            let login = try await server.start(ReturningOwnerTests.noSIM, for: claims)
            let context = SMSContext(ip: try IPAddress(address), device: try DeviceID("device-\(address)"), session: login.session.id, captcha: Secret("solved"))
            return try await server.sendSMS(for: login.session.id, to: ReturningOwnerTests.number.digits, context: context, from: claims)
        }
    }

    /// An SMS attacker's read: `global-hour`, the ceiling on the bill, counted every send in one counter, so a stranger who
    /// solves captchas sent up to it in an hour (one login session, one address, a number each send) and every returning
    /// owner's send was refused for the rest of the hour. The global send rules count a returning owner's sends in a lane
    /// of their own, as `number-day-cap` does for a number: the stranger still stops at the ceiling, the owner's send
    /// goes out. The built-in policy with its hourly global rules at a hundredth (60 and 40), so the hour takes 61 sends.
    @Test func aStrangerAtTheHoursCeilingRefusesNoReturningOwner() async throws {
        var text = try String(contentsOfFile: Package.path("Data/sms-policy.csv"), encoding: .utf8)
        var lowered = 0
        text = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            for (rule, from, to) in [("global-hour,", ",sends,3600,6000,", ",sends,3600,60,"), ("global-hour-captcha,", ",sends,3600,4000,", ",sends,3600,40,")]
            where line.hasPrefix(rule) && line.contains(from) {
                lowered += 1
                return line.replacingOccurrences(of: from, with: to)
            }
            return String(line)
        }.joined(separator: "\n")
        try #require(lowered == 2)
        let setup = SMSCodeServiceTests.Setup(policy: try SMSPolicy(csv: text, file: "lowered.csv"))
        let stranger = SMSContext(ip: try IPAddress("198.51.100.7"), device: try DeviceID("stranger"), session: LoginSessionID.random(), captcha: Secret("solved"))
        var now = Self.t0
        var sent = 0
        var refusal: String? = nil
        sending: for index in 0..<61 {
            now = now.addingTimeInterval(1)
            switch try await setup.send(to: try PhoneNumber("1391000\(1000 + index)"), context: stranger, at: now) {
            case .sent: sent += 1
            case .limited(let rule, _):
                refusal = rule
                break sending
            case let other:
                Issue.record("the stranger's send \(index): \(other)")
                return
            }
        }
        #expect(sent == 60 && refusal == "global-hour", "\(sent) sent, then \(refusal ?? "no refusal")")
        var owner = SMSContext(ip: try IPAddress("203.0.113.7"), device: try DeviceID("owner"), session: LoginSessionID.random(), captcha: Secret("solved"))
        owner.returningOwner = true  // what LoginServer sets when the caller's app session vouches
        let owners = try await setup.send(to: Self.number, context: owner, at: now.addingTimeInterval(1))
        guard case .sent = owners else { Issue.record("the returning owner's send at the hour's ceiling: \(owners)"); return }
        let anyone = SMSContext(ip: try IPAddress("203.0.113.8"), device: try DeviceID("other"), session: LoginSessionID.random(), captcha: Secret("solved"))
        let others = try await setup.send(to: try PhoneNumber("13912345678"), context: anyone, at: now.addingTimeInterval(2))
        guard case .limited(rule: "global-hour", _) = others else { Issue.record("anyone else's send at the hour's ceiling: \(others)"); return }
    }

    /// A stranger who solves every captcha sends to the number all morning (five an hour, a new app session,
    /// address and device each time: the gateway's hourly figure). An app that logged in with the number, then
    /// logged out, still gets its code at noon; the stranger never used up the gateway's day.
    @Test func aStrangerWhoSolvesCaptchasCannotUseUpAReturningOwnersSends() async throws {
        let setup = Setup()
        var owner = try await setup.returned(after: Self.number.digits)
        var strangersSent = 0
        for index in 0..<30 {
            let at = Self.t0.addingTimeInterval(Double(index) * 721)  // five an hour, a minute and more apart
            if case .sent = try await setup.send(try await setup.opened(), at: at, from: "198.51.\(index).7") { strangersSent += 1 }
        }
        #expect(strangersSent <= 8, "the stranger sent \(strangersSent) codes")
        let noon = Self.t0.addingTimeInterval(6 * 3600 + 60)
        for attempt in 0..<2 {
            let result: SMSSendResult
            (result, owner) = try await setup.send(owner, at: noon.addingTimeInterval(Double(attempt) * 3600), from: "203.0.113.7")
            guard case .sent = result else {
                Issue.record("the returning owner's send \(attempt + 1) after a stranger's captchas: \(result)")
                return
            }
        }
    }

    /// A stranger's three captcha-free sends to the number (each from a new app session, address and device) put the
    /// number's own lane behind a captcha for the hour and the day; the returning owner's lane is not: without a
    /// `CaptchaVerifier` a captcha is a wait, and three sends locked the owner out for a day (an attacker's read of the
    /// last stop: `number-captcha` and `number-day-captcha` counted every lane).
    @Test(arguments: [false, true])
    func aStrangersFreeSendsPutNoCaptchaBeforeAReturningOwner(verifier: Bool) async throws {
        let setup = Setup(captcha: verifier ? ScriptedCaptchaVerifier(accepting: ["solved"]) : nil)
        var owner = try await setup.returned(after: Self.number.digits)
        guard try await setup.strangersSendAll(0..<3) else { return }
        let fourth = try await setup.send(try await setup.opened(), at: Self.t0.addingTimeInterval(200), from: "198.51.3.7")
        #expect(verifier ? fourth.name == "sent" : fourth.name == "limited", "the stranger's fourth send: \(fourth)")
        for (attempt, at) in [Self.t0.addingTimeInterval(400), Self.t0.addingTimeInterval(7200)].enumerated() {
            let result: SMSSendResult
            (result, owner) = try await setup.send(owner, at: at, from: "203.0.113.\(attempt + 7)")
            guard case .sent = result else { Issue.record("the returning owner's send \(attempt + 1): \(result)"); return }
        }
    }

    /// A stranger who solves captchas fills the gateway's hour (five a number): the returning owner's sends in that
    /// hour come back throttled by the gateway, and must not spend the owner's room (an attacker's read: counted, two
    /// tries in the blocked hour and the stranger's last three sends filled the number's 10 for the day).
    @Test func aSendTheGatewayThrottlesSpendsNoneOfTheOwnersRoom() async throws {
        let setup = Setup()
        var owner = try await setup.returned(after: Self.number.digits)
        guard try await setup.strangersSendAll(0..<5) else { return }
        for attempt in 0..<2 {
            let result: SMSSendResult
            (result, owner) = try await setup.send(owner, at: Self.t0.addingTimeInterval(400 + Double(attempt) * 70), from: "203.0.113.7")
            guard case .limited("gateway", let retryAfter) = result else { Issue.record("the owner's send in the gateway's full hour: \(result)"); return }
            #expect(retryAfter == Self.t0.addingTimeInterval(460 + Double(attempt) * 70), "the gateway's minute, not the rules' day")
        }
        guard try await setup.strangersSendAll(5..<8, after: 5400) else { return }
        let (result, _) = try await setup.send(owner, at: Self.t0.addingTimeInterval(3 * 3600), from: "203.0.113.7")
        guard case .sent = result else { Issue.record("the returning owner's send once the gateway's hour passed: \(result)"); return }
    }

    /// An owner without a lane of its own (a fresh app session: a new phone, a login past 30 days) fares the same: its
    /// sends the gateway throttled in an hour a stranger filled with two solved captchas must not spend the number's
    /// day (an attacker's read: counted, its own three tries in the blocked hour filled `number-day-cap` and refused it
    /// for the rest of the day).
    @Test func aSendTheGatewayThrottlesSpendsNoneOfTheNumbersDay() async throws {
        let setup = Setup()
        var owner = try await setup.sessions.open().refreshToken
        guard try await setup.strangersSendAll(0..<5) else { return }
        for attempt in 0..<3 {
            let result: SMSSendResult
            (result, owner) = try await setup.send(owner, at: Self.t0.addingTimeInterval(400 + Double(attempt) * 70), from: "203.0.113.7")
            guard case .limited("gateway", _) = result else { Issue.record("the owner's send in the gateway's full hour: \(result)"); return }
        }
        let (result, _) = try await setup.send(owner, at: Self.t0.addingTimeInterval(2 * 3600), from: "203.0.113.7")
        guard case .sent = result else { Issue.record("the owner's send once the gateway's hour passed: \(result)"); return }
    }

    /// A returning owner's throttled send gives back its counts on the number and its lane only: its login session's
    /// stay, so a second try in the same login within the minute is held by `number-minute`, never sent to the gateway
    /// again (an attacker's read: given back everywhere, one login looped on a throttling gateway without end, past
    /// every per-session and global count).
    @Test func aThrottledOwnersSendKeepsItsLoginSessionsCount() async throws {
        let setup = Setup()
        let owner = try await setup.returned(after: Self.number.digits)
        for index in 0..<5 {
            _ = try await setup.strangersSend(index)
        }
        setup.clock.setWallTime(Self.t0.addingTimeInterval(400))
        let claims = try setup.sessions.authenticate(try await setup.sessions.refresh(owner).accessToken.reveal())
        let login = try await setup.server.start(Self.noSIM, for: claims)
        let context = SMSContext(ip: try IPAddress("203.0.113.7"), device: try DeviceID("owner-device"), session: login.session.id, captcha: Secret("solved"))
        let first = try await setup.server.sendSMS(for: login.session.id, to: Self.number.digits, context: context, from: claims)
        guard case .limited("gateway", _) = first else { Issue.record("the owner's send in the gateway's full hour: \(first)"); return }
        setup.clock.setWallTime(Self.t0.addingTimeInterval(430))
        let second = try await setup.server.sendSMS(for: login.session.id, to: Self.number.digits, context: context, from: claims)
        guard case .limited("number-minute", _) = second else { Issue.record("a second try in the same login within the minute: \(second)"); return }
    }

    /// Only the number an app logged in with has its lane: an app that logged in with another number, a fresh app
    /// session, and any app on a server without app sessions send in the number's lane, which the stranger filled.
    @Test(arguments: [("another number", true), ("a fresh app session", true), ("no app sessions on the server", false)])
    func noOtherSenderSharesTheLane(_ sender: String, vouching: Bool) async throws {
        let setup = Setup(vouching: vouching)
        let app = sender == "another number" ? try await setup.returned(after: "13900139000") : try await setup.sessions.open().refreshToken
        for index in 0..<30 {
            _ = try await setup.send(try await setup.opened(), at: Self.t0.addingTimeInterval(Double(index) * 721), from: "198.51.\(index).7")
        }
        let (result, _) = try await setup.send(app, at: Self.t0.addingTimeInterval(6 * 3600 + 60), from: "203.0.113.7")
        guard case .limited(let rule, _) = result else {
            Issue.record("\(sender): \(result)")
            return
        }
        #expect(rule == "number-day-cap")
    }
}
