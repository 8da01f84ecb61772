import Foundation
import OneTapTesting
import Testing
@testable import OneTap

/// Every public type that can hold a token, in every textual form: the token text appears nowhere.
@Suite struct SecretsTests {
    static let secret = "SECRET-TOKEN-42"

    static func forms(_ value: Any) -> [String] {
        var dumped = ""
        dump(value, to: &dumped)
        var forms = ["\(value)", String(reflecting: value), dumped]
        if let value = value as? any CustomStringConvertible { forms.append(value.description) }
        if let value = value as? any CustomDebugStringConvertible { forms.append(value.debugDescription) }
        if let value = value as? any Encodable {
            do {
                forms.append(String(decoding: try JSONEncoder().encode(value), as: UTF8.self))
            } catch {
                Issue.record("\(type(of: value)) does not encode: \(error)")
            }
        }
        // A record's and an event's own JSON (written by the package's one writer, not `Codable`).
        if let value = value as? any JSONWritable {
            do {
                forms.append(try value.jsonText())
            } catch {
                Issue.record("\(type(of: value)) does not write: \(error)")
            }
        }
        return forms
    }

    @Test func noPublicTypeShowsItsSecret() async throws {
        let now = Date(timeIntervalSince1970: 1_796_083_200)
        let secret = Secret(Self.secret)
        let token = AccessToken(value: secret, refreshToken: secret, flow: .tianyi, account: "a", issuedAt: now, expiresAt: now.addingTimeInterval(60))
        let credential = CarrierCredential(flow: .mobile, token: secret, refreshToken: secret, uniqueID: "u", maskedNumber: "138****8000")
        let events = RecordingEventSink()
        let coordinator = LoginCoordinator(
            providers: LoginProviders(
                mobile: MockOneTapProvider(.mobile, [.value(OneTapResult(resultCode: 103000, credential: CarrierCredential(flow: .mobile, token: secret, uniqueID: "u")))]), sms: MockSMSProvider()),
            events: events)
        let outcome = try await coordinator.login(DeviceSnapshot(plmn: try PLMN("46000")))
        let tokenEvents = RecordingEventSink()
        let vault = TokenVault(
            refresher: MockRefresher([.success(RefreshResponse(accessToken: secret, refreshToken: secret))]),
            clock: FakeClock(now: now.addingTimeInterval(86_400 * 31)), events: tokenEvents)
        try await vault.store(AccessToken(value: secret, refreshToken: secret, flow: .tianyi, account: "v", issuedAt: now, expiresAt: now.addingTimeInterval(31 * 86_400)))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await vault.run() }
            _ = try await vault.validToken(for: "v")   // expired: waits for the refresh
            await vault.shutdown()
            try await group.waitForAll()
        }
        let values: [Any] = [
            secret, token, StoredToken(token: token, version: TokenVersion(1)), RefreshResponse(accessToken: secret, refreshToken: secret),
            OneTapResult(resultCode: 103000, credential: CarrierCredential(flow: .mobile, token: secret, uniqueID: "u")), OneTapResult(resultCode: 0, credential: CarrierCredential(flow: .tianyi, token: secret, refreshToken: secret)), SMSVerification(resultCode: 0, session: secret), credential, outcome,
            outcome.trace, outcome.credential as Any,
        ] + events.recorded.map { $0 as Any } + tokenEvents.recorded.map { $0 as Any } + outcome.trace.map { $0 as Any }
        for value in values {
            for form in Self.forms(value) {
                #expect(!form.contains(Self.secret), "\(type(of: value)) shows its secret: \(form)")
            }
        }
        #expect(outcome.credential?.token.reveal() == Self.secret)   // only the explicit accessor returns it
        #expect(tokenEvents.names == ["stored", "refreshed"])
    }

    /// A gateway that fails quoting the secret, as an HTTP client's error may quote a request.
    struct LeakySender: SMSSender {
        struct Failure: Error, CustomStringConvertible { let description: String }
        func send(_ message: SMSMessage) async throws { throw Failure(description: "refused \(message.code.reveal())") }
    }

    /// The SMS types: the code, the captcha token and the key appear in no textual form.
    @Test func noSMSTypeShowsItsSecret() async throws {
        let now = Date(timeIntervalSince1970: 1_796_083_200)
        let secret = Secret(Self.secret)
        let number = try PhoneNumber("13800138000")
        let key = try ServerKey(bytes: Array((Self.secret + Self.secret + Self.secret).utf8))
        let keyHMAC = HMACSHA256.Key(Array(Self.secret.utf8))
        let context = SMSContext(ip: try IPAddress("203.0.113.7"), device: try DeviceID("d1"), session: LoginSessionID.random(), captcha: secret)
        let message = SMSMessage(number: number, code: secret, expiresAt: now, session: nil)
        let events = RecordingEventSink()
        let captcha = ScriptedCaptchaVerifier(accepting: [], failing: LeakySender.Failure(description: "captcha \(Self.secret)"))
        let clock = FakeClock(now: now)
        let service = SMSCodeService(key: key, sender: LeakySender(), captcha: captcha, events: events, clock: clock)
        let first = try await service.send(to: number, context: SMSContext(ip: context.ip, session: .testSession))
        clock.setWallTime(now.addingTimeInterval(90))
        let second = try await service.send(to: try PhoneNumber("13900139000"), context: context)
        clock.setWallTime(now)
        let verify = try await service.verify(secret, for: number, context: context)
        #expect(events.names.contains("provider-failed"))
        let values: [Any] = [key, keyHMAC, context, message, first, second, verify, service] + events.recorded.map { $0 as Any } + events.smsEvents.map { $0 as Any }
        for value in values {
            for form in Self.forms(value) {
                #expect(!form.contains(Self.secret), "\(type(of: value)) shows its secret: \(form)")
            }
        }
    }

    /// The guest types: no raw device id, no full number, no key, no pending payload in any textual form
    /// (a device id and a pending action encode to JSON for storage, which is their point); an app
    /// session's last-login hint, its grant and its record show the number masked only.
    @Test func noGuestTypeShowsWhatItKeepsPrivate() async throws {
        let now = Date(timeIntervalSince1970: 1_796_083_200)
        let keys = try ServerKeyRing([(try KeyID("k1"), try ServerKey(bytes: Array((Self.secret + Self.secret + Self.secret).utf8)))])
        let device = try DeviceID("device-\(Self.secret)")
        let store = InMemoryAppSessionStore()
        let sessions = AppSessions(keys: keys, store: store, events: DiscardingEventSink())
        let guest = try await sessions.open()
        let grant = try await sessions.loggedIn(
            try sessions.authenticate(guest.accessToken.reveal()), as: TestAppSession.outcome("a", "13912345678"), flow: .mobile)
        let record = try #require(try await store.load(grant.session))
        let pending = try PendingAction(action: "comment", payload: .object(["text": .string(Self.secret)]), at: now)
        let values: [Any] = [device, grant, grant.lastLogin as Any, record, try record.json(), pending, sessions, GuestID.random()]
        for value in values {
            for form in Self.forms(value) where !((value is PendingAction || value is DeviceID) && (form.hasPrefix("{") || form.hasPrefix("\""))) {
                #expect(!form.contains(Self.secret) && !form.contains("13912345678"), "\(type(of: value)) shows what it keeps private: \(form)")
            }
        }
    }

    /// The types that hold a verified number show it masked in every textual form, `dump` and reflection too (an
    /// attacker's read: their descriptions masked it, `dump(verified)` printed `phoneNumber: 13912345678`). A number
    /// itself prints its digits, which is its value, and masks them when reflected.
    @Test func noTypeHoldingANumberShowsItWholeWhenDumped() throws {
        let now = Date(timeIntervalSince1970: 1_796_083_200)
        let number = try PhoneNumber("13912345678")
        let values: [Any] = [
            VerifiedLogin(phoneNumber: number, account: "a"), SMSVerdict(phoneNumber: number, session: LoginSessionID.random(), verifiedAt: now),
            TestAppSession.outcome("a", "13912345678"), SMSMessage(number: number, code: Secret(Self.secret), expiresAt: now, session: nil),
            CarrierCredential(flow: .sms, token: Secret(Self.secret), phoneNumber: number),
        ]
        for value in values {
            for form in Self.forms(value) where !form.hasPrefix("{") {  // a record's JSON keeps the number: it is stored
                #expect(!form.contains("13912345678"), "\(type(of: value)) shows the number whole: \(form)")
            }
        }
        var dumped = ""
        dump(number, to: &dumped)
        #expect(String(reflecting: number) == "PhoneNumber(139****5678)" && dumped == "- PhoneNumber(139****5678)\n")
        #expect(Mirror(reflecting: number).children.isEmpty && "\(number)" == "13912345678")
    }
}
