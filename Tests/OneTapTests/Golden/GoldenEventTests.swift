import Foundation
import OneTap
import Testing

/// The event lines `StandardErrorEventSink.line(_:)` wrote at commit 37018e5
/// (`Tests/Golden/events/events.ndjson`: schema `v` 2, instants as ISO 8601 text in UTC with
/// milliseconds, a login's elapsed time as integer `elapsedMs`, numbers masked): every login event kind
/// (the events of three logins as the session machine made them, and a failure), every `TokenEvent` and
/// every `SMSEvent` case, read back with Foundation's `JSONSerialization` (and with `LoginStats` in
/// `OneTapInsightsTests`).
@Suite struct GoldenEventTests {
    /// A field's expected value.
    enum Field: Sendable, CustomStringConvertible {
        case s(String)
        case n(Double)
        case b(Bool)
        case list([String])

        var description: String {
            switch self {
            case .s(let text): "\"\(text)\""
            case .n(let number): "\(number)"
            case .b(let flag): "\(flag)"
            case .list(let items): "\(items)"
            }
        }

        /// Whether a value `JSONSerialization` read is this one (a boolean only as a JSON boolean, a
        /// number only as a JSON number).
        func matches(_ value: Any) -> Bool {
            switch self {
            case .s(let text): return value as? String == text
            case .list(let items): return value as? [String] == items
            case .b(let flag):
                guard let number = value as? NSNumber, Self.isBoolean(number) else { return false }
                return number.boolValue == flag
            case .n(let expected):
                guard let number = value as? NSNumber, !Self.isBoolean(number) else { return false }
                return number.doubleValue == expected
            }
        }

        /// `JSONSerialization` reads `true` and `false` as `NSNumber`s of type `c` (a C `char`), and
        /// numbers as `q` (integers) or `d`.
        private static func isBoolean(_ number: NSNumber) -> Bool {
            String(cString: number.objCType) == "c"
        }
    }

    /// Every line's fields, written out: the line has exactly these keys with these values.
    static let expected: [[String: Field]] = [
        ["v": .n(2), "at": .s("2026-12-01T08:10:00.750Z"), "area": .s("login"), "event": .s("planned"), "session": .s("Golden-cancel-00000009"),
            "carrier": .s("mobile"), "evidence": .s("plmn"), "platform": .s("android"), "elapsedMs": .n(0), "flows": .list(["mobile", "sms"]),
            "reason": .s("policy"), "condition": .s("carrier:mobile")],
        ["v": .n(2), "at": .s("2026-12-01T08:10:00.750Z"), "area": .s("login"), "event": .s("flow-started"), "session": .s("Golden-cancel-00000009"),
            "carrier": .s("mobile"), "evidence": .s("plmn"), "platform": .s("android"), "elapsedMs": .n(0), "flow": .s("mobile"), "attempt": .n(1)],
        ["v": .n(2), "at": .s("2026-12-01T08:10:01.500Z"), "area": .s("login"), "event": .s("progress"), "session": .s("Golden-cancel-00000009"),
            "carrier": .s("mobile"), "evidence": .s("plmn"), "platform": .s("android"), "elapsedMs": .n(750), "flow": .s("mobile"),
            "code": .s("200087")],
        ["v": .n(2), "at": .s("2026-12-01T08:10:05.250Z"), "area": .s("login"), "event": .s("result"), "session": .s("Golden-cancel-00000009"),
            "carrier": .s("mobile"), "evidence": .s("plmn"), "platform": .s("android"), "elapsedMs": .n(4500), "flow": .s("mobile"),
            "attempt": .n(1), "code": .s("cancelled"), "action": .s("cancelled"), "meaning": .s("the user backed out"), "next": .s("finish cancelled")],
        ["v": .n(2), "at": .s("2026-12-01T08:10:05.250Z"), "area": .s("login"), "event": .s("cancelled"), "session": .s("Golden-cancel-00000009"),
            "carrier": .s("mobile"), "evidence": .s("plmn"), "platform": .s("android"), "elapsedMs": .n(4500), "flow": .s("mobile"),
            "ending": .s("cancelled")],
        ["v": .n(2), "at": .s("2026-12-01T08:02:00.500Z"), "area": .s("login"), "event": .s("planned"), "session": .s("Golden-verified-000003"),
            "carrier": .s("mobile"), "evidence": .s("plmn"), "platform": .s("ios"), "elapsedMs": .n(0), "flows": .list(["mobile", "sms"]),
            "reason": .s("policy"), "condition": .s("carrier:mobile")],
        ["v": .n(2), "at": .s("2026-12-01T08:02:00.500Z"), "area": .s("login"), "event": .s("flow-started"), "session": .s("Golden-verified-000003"),
            "carrier": .s("mobile"), "evidence": .s("plmn"), "platform": .s("ios"), "elapsedMs": .n(0), "flow": .s("mobile"), "attempt": .n(1)],
        ["v": .n(2), "at": .s("2026-12-01T08:02:01.750Z"), "area": .s("login"), "event": .s("result"), "session": .s("Golden-verified-000003"),
            "carrier": .s("mobile"), "evidence": .s("plmn"), "platform": .s("ios"), "elapsedMs": .n(1250), "flow": .s("mobile"), "attempt": .n(1),
            "code": .s("103000"), "action": .s("success"), "meaning": .s("success: token obtained: exchange the token"), "next": .s("exchange mobile")],
        ["v": .n(2), "at": .s("2026-12-01T08:02:02.001Z"), "area": .s("login"), "event": .s("result"), "session": .s("Golden-verified-000003"),
            "carrier": .s("mobile"), "evidence": .s("plmn"), "platform": .s("ios"), "elapsedMs": .n(1501), "flow": .s("mobile"), "attempt": .n(1),
            "code": .s("exchange-103000"), "action": .s("success"), "meaning": .s("number returned"), "next": .s("finish success")],
        ["v": .n(2), "at": .s("2026-12-01T08:02:02.001Z"), "area": .s("login"), "event": .s("succeeded"), "session": .s("Golden-verified-000003"),
            "carrier": .s("mobile"), "evidence": .s("plmn"), "platform": .s("ios"), "elapsedMs": .n(1501), "flow": .s("mobile"),
            "ending": .s("success")],
        ["v": .n(2), "at": .s("2026-12-01T08:06:00.625Z"), "area": .s("login"), "event": .s("planned"), "session": .s("Golden-alerts-00000006"),
            "carrier": .s("mobile"), "evidence": .s("plmn"), "platform": .s("ios"), "elapsedMs": .n(0),
            "flows": .list(["mobile", "tianyi", "unicom", "sms"]), "reason": .s("policy"), "condition": .s("carrier:mobile")],
        ["v": .n(2), "at": .s("2026-12-01T08:06:00.625Z"), "area": .s("login"), "event": .s("flow-started"), "session": .s("Golden-alerts-00000006"),
            "carrier": .s("mobile"), "evidence": .s("plmn"), "platform": .s("ios"), "elapsedMs": .n(0), "flow": .s("mobile"), "attempt": .n(1)],
        ["v": .n(2), "at": .s("2026-12-01T08:06:01.500Z"), "area": .s("login"), "event": .s("result"), "session": .s("Golden-alerts-00000006"),
            "carrier": .s("mobile"), "evidence": .s("plmn"), "platform": .s("ios"), "elapsedMs": .n(875), "flow": .s("mobile"), "attempt": .n(1),
            "code": .s("103101"), "action": .s("misconfigured"), "meaning": .s("request signature wrong (appKey)"), "next": .s("attempt tianyi")],
        ["v": .n(2), "at": .s("2026-12-01T08:06:01.500Z"), "area": .s("login"), "event": .s("alert"), "session": .s("Golden-alerts-00000006"),
            "carrier": .s("mobile"), "evidence": .s("plmn"), "platform": .s("ios"), "elapsedMs": .n(875), "flow": .s("mobile"), "code": .s("103101"),
            "meaning": .s("request signature wrong (appKey)")],
        ["v": .n(2), "at": .s("2026-12-01T08:06:01.500Z"), "area": .s("login"), "event": .s("fallback"), "session": .s("Golden-alerts-00000006"),
            "carrier": .s("mobile"), "evidence": .s("plmn"), "platform": .s("ios"), "elapsedMs": .n(875), "from": .s("mobile"), "to": .s("tianyi"),
            "action": .s("misconfigured")],
        ["v": .n(2), "at": .s("2026-12-01T08:06:01.500Z"), "area": .s("login"), "event": .s("flow-started"), "session": .s("Golden-alerts-00000006"),
            "carrier": .s("mobile"), "evidence": .s("plmn"), "platform": .s("ios"), "elapsedMs": .n(875), "flow": .s("tianyi"), "attempt": .n(1)],
        ["v": .n(2), "at": .s("2026-12-01T08:06:02.250Z"), "area": .s("login"), "event": .s("result"), "session": .s("Golden-alerts-00000006"),
            "carrier": .s("mobile"), "evidence": .s("plmn"), "platform": .s("ios"), "elapsedMs": .n(1625), "flow": .s("tianyi"), "attempt": .n(1),
            "code": .s("0"), "action": .s("success"), "meaning": .s("success: exchange the token"), "next": .s("exchange tianyi")],
        ["v": .n(2), "at": .s("2026-12-01T08:06:03.125Z"), "area": .s("login"), "event": .s("alert"), "session": .s("Golden-alerts-00000006"),
            "carrier": .s("mobile"), "evidence": .s("plmn"), "platform": .s("ios"), "elapsedMs": .n(2500), "flow": .s("tianyi"),
            "code": .s("exchange-51002"), "meaning": .s("parameter empty or access not allowed")],
        ["v": .n(2), "at": .s("2026-12-01T08:06:03.125Z"), "area": .s("login"), "event": .s("result"), "session": .s("Golden-alerts-00000006"),
            "carrier": .s("mobile"), "evidence": .s("plmn"), "platform": .s("ios"), "elapsedMs": .n(2500), "flow": .s("tianyi"), "attempt": .n(1),
            "code": .s("exchange-51002"), "action": .s("misconfigured"), "meaning": .s("parameter empty or access not allowed"),
            "next": .s("attempt unicom")],
        ["v": .n(2), "at": .s("2026-12-01T08:06:03.125Z"), "area": .s("login"), "event": .s("fallback"), "session": .s("Golden-alerts-00000006"),
            "carrier": .s("mobile"), "evidence": .s("plmn"), "platform": .s("ios"), "elapsedMs": .n(2500), "from": .s("tianyi"), "to": .s("unicom"),
            "action": .s("misconfigured")],
        ["v": .n(2), "at": .s("2026-12-01T08:06:03.125Z"), "area": .s("login"), "event": .s("flow-started"), "session": .s("Golden-alerts-00000006"),
            "carrier": .s("mobile"), "evidence": .s("plmn"), "platform": .s("ios"), "elapsedMs": .n(2500), "flow": .s("unicom"), "attempt": .n(1)],
        ["v": .n(2), "at": .s("2026-12-01T08:09:00.999Z"), "area": .s("login"), "event": .s("failed"), "session": .s("Golden-failed-00000008"),
            "carrier": .s("mobile"), "evidence": .s("plmn"), "elapsedMs": .n(0), "ending": .s("failed"), "meaning": .s("no flow could run")],
        ["v": .n(2), "at": .s("2026-12-01T08:16:40.125Z"), "area": .s("token"), "event": .s("stored"), "account": .s("acct-golden-tianyi-1"),
            "flow": .s("tianyi"), "expiresAt": .s("2026-12-31T08:10:00.123Z")],
        ["v": .n(2), "at": .s("2026-12-01T08:16:41.250Z"), "area": .s("token"), "event": .s("refreshed"), "account": .s("acct-golden-tianyi-1"),
            "flow": .s("tianyi"), "expiresAt": .s("2026-12-31T08:16:41.250Z"), "rotatedRefreshToken": .b(true)],
        ["v": .n(2), "at": .s("2026-12-01T08:16:42.500Z"), "area": .s("token"), "event": .s("refresh-failed"), "account": .s("acct-golden-tianyi-1"),
            "message": .s("HTTP 503 from the refresh API (fake)"), "attempt": .n(2), "retryAt": .s("2026-12-01T08:17:12.875Z")],
        ["v": .n(2), "at": .s("2026-12-01T08:16:43.750Z"), "area": .s("token"), "event": .s("relogin-required"),
            "account": .s("acct-golden-tianyi-1"), "message": .s("the refresh token was revoked (fake)")],
        ["v": .n(2), "at": .s("2026-12-01T08:16:44.001Z"), "area": .s("token"), "event": .s("logged-out"), "account": .s("acct-golden-tianyi-1")],
        ["v": .n(2), "at": .s("2026-12-01T08:16:45.999Z"), "area": .s("token"), "event": .s("refreshed-elsewhere"),
            "account": .s("acct-golden-tianyi-1")],
        ["v": .n(2), "at": .s("2026-12-01T08:16:46.500Z"), "area": .s("token"), "event": .s("due-scan-failed"),
            "message": .s("the store is down (fake)")],
        ["v": .n(2), "at": .s("2026-12-01T08:16:47.625Z"), "area": .s("token"), "event": .s("refresh-abandoned"),
            "account": .s("acct-golden-tianyi-1"), "seconds": .n(2.5)],
        ["v": .n(2), "at": .s("2026-12-01T08:16:48.750Z"), "area": .s("token"), "event": .s("not-stored"),
            "account": .s("acct-golden-tianyi-1"), "message": .s("the refreshed token could not be stored (the store is down (fake))")],
        ["v": .n(2), "at": .s("2026-12-01T08:18:20.500Z"), "area": .s("sms"), "event": .s("send-sent"), "number": .s("138****8000"),
            "session": .s("Golden-cancel-00000009"), "expiresAt": .s("2026-12-01T08:23:20.500Z"), "resendAfter": .s("2026-12-01T08:19:20.500Z")],
        ["v": .n(2), "at": .s("2026-12-01T08:18:30.500Z"), "area": .s("sms"), "event": .s("send-captcha-required"), "number": .s("138****8000"),
            "rule": .s("ip-captcha"), "rejected": .b(true)],
        ["v": .n(2), "at": .s("2026-12-01T08:18:40.500Z"), "area": .s("sms"), "event": .s("send-limited"), "number": .s("138****8000"),
            "session": .s("Golden-cancel-00000009"), "rule": .s("number-minute"), "until": .s("2026-12-01T08:19:20.500Z")],
        ["v": .n(2), "at": .s("2026-12-01T08:18:50.500Z"), "area": .s("sms"), "event": .s("send-refused"), "reason": .s("not-mainland-mobile"),
            "message": .s("invalid phone number: 5 digits after any country prefix; a mainland mobile number has 11")],
        ["v": .n(2), "at": .s("2026-12-01T08:19:00.500Z"), "area": .s("sms"), "event": .s("send-sender-failed"), "number": .s("139****9000"),
            "until": .s("2026-12-01T08:20:00.500Z")],
        ["v": .n(2), "at": .s("2026-12-01T08:19:10.500Z"), "area": .s("sms"), "event": .s("verify-verified"), "number": .s("138****8000"),
            "session": .s("Golden-cancel-00000009")],
        ["v": .n(2), "at": .s("2026-12-01T08:19:20.500Z"), "area": .s("sms"), "event": .s("verify-wrong-code"), "number": .s("138****8000"),
            "session": .s("Golden-cancel-00000009"), "attemptsLeft": .n(4)],
        ["v": .n(2), "at": .s("2026-12-01T08:19:30.500Z"), "area": .s("sms"), "event": .s("verify-expired"), "number": .s("138****8000")],
        ["v": .n(2), "at": .s("2026-12-01T08:19:40.500Z"), "area": .s("sms"), "event": .s("verify-too-many-attempts"), "number": .s("138****8000")],
        ["v": .n(2), "at": .s("2026-12-01T08:19:50.500Z"), "area": .s("sms"), "event": .s("verify-no-code"), "number": .s("139****9000")],
        ["v": .n(2), "at": .s("2026-12-01T08:20:00.500Z"), "area": .s("sms"), "event": .s("verify-locked"), "number": .s("138****8000"),
            "rule": .s("number-guesses"), "until": .s("2026-12-02T08:20:00.500Z")],
        ["v": .n(2), "at": .s("2026-12-01T08:20:10.500Z"), "area": .s("sms"), "event": .s("provider-failed"), "provider": .s("sender"),
            "number": .s("139****9000"), "message": .s("gateway timeout (fake)")],
    ]

    static func lines() throws -> [String] {
        let text = try Golden.text("events/events.ndjson")
        #expect(text.hasSuffix("\n"), "every line ends with a line break")
        return text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    @Test func everyLineHoldsItsFields() throws {
        let lines = try Self.lines()
        #expect(lines.count == Self.expected.count)
        for (index, (line, expected)) in zip(lines, Self.expected).enumerated() {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "line \(index + 1)")
            #expect(Set(object.keys) == Set(expected.keys), "line \(index + 1): its keys")
            for (key, field) in expected {
                #expect(object[key].map(field.matches) == true, "line \(index + 1), \(key): \(object[key].map { "\($0)" } ?? "missing"), expected \(field)")
            }
        }
    }

    /// Every kind is there: the nine login kinds, the nine token events, the twelve SMS outcomes.
    @Test func everyKindIsThere() throws {
        var kinds: [String: Set<String>] = [:]
        for line in try Self.lines() {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            kinds[object["area"] as? String ?? "", default: []].insert(object["event"] as? String ?? "")
        }
        #expect(kinds["login"] == ["planned", "flow-started", "progress", "result", "fallback", "alert", "succeeded", "cancelled", "failed"])
        #expect(kinds["token"] == [
            "stored", "refreshed", "refresh-failed", "relogin-required", "logged-out", "refreshed-elsewhere", "due-scan-failed", "refresh-abandoned",
            "not-stored",
        ])
        #expect(kinds["sms"] == [
            "send-sent", "send-captcha-required", "send-limited", "send-refused", "send-sender-failed", "verify-verified", "verify-wrong-code",
            "verify-expired", "verify-too-many-attempts", "verify-no-code", "verify-locked", "provider-failed",
        ])
    }

    /// The `at` of every line is ISO 8601 that Foundation reads, in UTC with three fraction digits.
    @Test func instantsAreISO8601WithMilliseconds() throws {
        for line in try Self.lines() {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let at = try #require(object["at"] as? String)
            #expect(Golden.ms(at) != nil, "\(at)")
            #expect(at.utf8.count == 24 && at.hasSuffix("Z"), "\(at)")
        }
        let first = try #require(try JSONSerialization.jsonObject(with: Data(try Self.lines()[0].utf8)) as? [String: Any])
        #expect(Golden.ms(first["at"] as? String ?? "") == 1_796_112_600_750)
    }

    /// Today's writer writes the golden lines byte for byte: every token and SMS event and a login's
    /// failure, made again from the values the golden README lists and written by `OneTapEvent`'s one
    /// JSON writer in the schema's member order.
    @Test func theWriterWritesTheGoldenLinesByteForByte() throws {
        func at(_ iso: String) throws -> Date { try Golden.instant(iso) }
        let account: AccountID = "acct-golden-tianyi-1"
        let number = try PhoneNumber("13800138000"), other = try PhoneNumber("13900139000")
        let session = try LoginSessionID("Golden-cancel-00000009")
        guard case .failure(let refusal) = SMSCodeRules().recipient("12345") else {
            Issue.record("12345 is no number")
            return
        }
        let failed = LoginContext(
            session: try LoginSessionID("Golden-failed-00000008"), carrier: .mobile, evidence: .plmn, platform: nil, startedAt: try at("2026-12-01T08:09:00.999Z"))
        let events: [OneTapEvent] = [
            OneTapEvent(at: try at("2026-12-01T08:09:00.999Z"), .login(.failed(flow: nil, meaning: "no flow could run"), failed)),
            OneTapEvent(at: try at("2026-12-01T08:16:40.125Z"), .token(.stored(account: account, flow: .tianyi, expiresAt: try at("2026-12-31T08:10:00.123Z")))),
            OneTapEvent(
                at: try at("2026-12-01T08:16:41.250Z"),
                .token(.refreshed(account: account, flow: .tianyi, expiresAt: try at("2026-12-31T08:16:41.250Z"), rotatedRefreshToken: true))),
            OneTapEvent(
                at: try at("2026-12-01T08:16:42.500Z"),
                .token(.refreshFailed(account: account, message: "HTTP 503 from the refresh API (fake)", attempt: 2, retryAt: try at("2026-12-01T08:17:12.875Z")))),
            OneTapEvent(at: try at("2026-12-01T08:16:43.750Z"), .token(.reloginRequired(account: account, message: "the refresh token was revoked (fake)"))),
            OneTapEvent(at: try at("2026-12-01T08:16:44.001Z"), .token(.loggedOut(account: account))),
            OneTapEvent(at: try at("2026-12-01T08:16:45.999Z"), .token(.refreshedElsewhere(account: account))),
            OneTapEvent(at: try at("2026-12-01T08:16:46.500Z"), .token(.dueScanFailed(message: "the store is down (fake)"))),
            OneTapEvent(at: try at("2026-12-01T08:16:47.625Z"), .token(.refreshAbandoned(account: account, after: .milliseconds(2500)))),
            OneTapEvent(
                at: try at("2026-12-01T08:16:48.750Z"),
                .token(.notStored(account: account, message: "the refreshed token could not be stored (the store is down (fake))"))),
            OneTapEvent(
                at: try at("2026-12-01T08:18:20.500Z"),
                .sms(.send(.sent(expiresAt: try at("2026-12-01T08:23:20.500Z"), resendAfter: try at("2026-12-01T08:19:20.500Z")), number: number, session: session))),
            OneTapEvent(at: try at("2026-12-01T08:18:30.500Z"), .sms(.send(.captchaRequired(rule: "ip-captcha", rejected: true), number: number, session: nil))),
            OneTapEvent(
                at: try at("2026-12-01T08:18:40.500Z"),
                .sms(.send(.limited(rule: "number-minute", retryAfter: try at("2026-12-01T08:19:20.500Z")), number: number, session: session))),
            OneTapEvent(at: try at("2026-12-01T08:18:50.500Z"), .sms(.send(.refused(refusal), number: nil, session: nil))),
            OneTapEvent(at: try at("2026-12-01T08:19:00.500Z"), .sms(.send(.senderFailed(retryAfter: try at("2026-12-01T08:20:00.500Z")), number: other, session: nil))),
            OneTapEvent(
                at: try at("2026-12-01T08:19:10.500Z"),
                .sms(.verify(.verified(SMSVerdict(phoneNumber: number, session: session, verifiedAt: try at("2026-12-01T08:19:10.500Z"))), number: number, session: session))),
            OneTapEvent(at: try at("2026-12-01T08:19:20.500Z"), .sms(.verify(.wrong(attemptsLeft: 4), number: number, session: session))),
            OneTapEvent(at: try at("2026-12-01T08:19:30.500Z"), .sms(.verify(.expired, number: number, session: nil))),
            OneTapEvent(at: try at("2026-12-01T08:19:40.500Z"), .sms(.verify(.tooManyAttempts, number: number, session: nil))),
            OneTapEvent(at: try at("2026-12-01T08:19:50.500Z"), .sms(.verify(.noCode, number: other, session: nil))),
            OneTapEvent(
                at: try at("2026-12-01T08:20:00.500Z"), .sms(.verify(.locked(rule: "number-guesses", until: try at("2026-12-02T08:20:00.500Z")), number: number, session: nil))),
            OneTapEvent(at: try at("2026-12-01T08:20:10.500Z"), .sms(.providerFailed(provider: "sender", number: other, message: "gateway timeout (fake)"))),
        ]
        let golden = Array(try Self.lines().suffix(events.count))
        for (event, line) in zip(events, golden) {
            #expect(event.json() == line)
            #expect(StandardErrorEventSink.line(event) == line + "\n")
        }
    }
}
