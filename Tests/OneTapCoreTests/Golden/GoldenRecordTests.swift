import Foundation
import OneTapCore
import Testing

/// The golden records of `Tests/Golden/` (written by the code of commit 37018e5, never to be rewritten):
/// every stored form of a Core record, read back with the readers the stores use today, and checked
/// against values written out by hand here.
///
/// Instants are compared to the millisecond against ISO 8601 text that Foundation parses (every golden
/// instant is a whole millisecond): the stored forms hold them as Double seconds since 1970 (a
/// session's JSON, `onetap-session/1`), as Double seconds since 2001-01-01 (`JSONEncoder`'s default, in
/// the SMS code record, the merge journal and the last-login hint); today's forms hold integer
/// milliseconds, and each record read from its old form comes back through its new one unchanged.
@Suite struct GoldenRecordTests {
    // MARK: Helpers

    /// A golden file's bytes, as they are on disk.
    static func golden(_ relative: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: Package.path("Tests/Golden/" + relative)))
    }

    /// A golden file's text.
    static func goldenText(_ relative: String) throws -> String {
        String(decoding: try golden(relative), as: UTF8.self)
    }

    /// Milliseconds since 1970 of an instant.
    static func ms(_ date: Date?) -> Int64? {
        date.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) }
    }

    /// Milliseconds since 1970 of ISO 8601 text (`2026-12-01T08:00:01.250Z`), read by Foundation.
    static func ms(_ iso: String) -> Int64? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return ms(formatter.date(from: iso))
    }

    /// The instant of ISO 8601 text, to the millisecond (for expectations that hold a `Date`).
    static func instant(_ iso: String) throws -> Date {
        Date(timeIntervalSince1970: Double(try #require(ms(iso))) / 1000)
    }

    static func digest(_ hex: String) throws -> SHA256.Digest { try #require(SHA256.Digest(hex: hex)) }

    static let mobileOnly = LoginPlan(carrier: .mobile, evidence: .plmn, flows: [.mobile, .sms], reason: .policy, condition: .carrier(.mobile))
    static let fourFlows = LoginPlan(carrier: .mobile, evidence: .plmn, flows: [.mobile, .tianyi, .unicom, .sms], reason: .policy, condition: .carrier(.mobile))
    static let tokenObtained = "success: token obtained: exchange the token"

    // MARK: Sessions

    static let sessionNames = [
        "flow-stage", "exchange-stage", "ended-success-verified", "pending-action", "unknown-exchanges", "alerts", "trace-with-marks",
        "ended-failed-no-flow", "ended-cancelled",
    ]

    /// Each session, in both of version 1's forms (`json()`'s and `JSONEncoder`'s: keys in hash order,
    /// `/` escaped), read by `LoginSession(json:)` (what the stores use) as the one session written out
    /// below; written again, it is version 2 (instants as milliseconds) and reads back the same.
    @Test(arguments: sessionNames)
    func sessionReadsInBothFormsOfVersion1(_ name: String) throws {
        let direct = try Self.golden("session/\(name).json")
        let codable = try Self.golden("session/\(name).codable.json")
        let session = try LoginSession(json: direct)
        try Self.check(name, session)
        #expect(try LoginSession(json: codable) == session, "JSONEncoder form, read by LoginSession(json:)")
        #expect(try LoginSession(json: String(decoding: codable, as: UTF8.self)) == session, "as text")
        #expect(!direct.contains(UInt8(ascii: "\n")) && !codable.contains(UInt8(ascii: "\n")), "one line each")
        let again = try session.json()
        #expect(again.hasPrefix(#"{"format":"onetap-session/2","#) && again.contains(#""createdAtMs":"#) && !again.contains(#""createdAt":"#))
        #expect(try LoginSession(json: again) == session)
        try Self.check(name, try LoginSession(json: again))
    }

    /// What today's writers put in the text: `json()` starts with the format and writes `/` plainly,
    /// `JSONEncoder` escapes it (`onetap-session\/1`) and orders keys as it likes; both write instants as
    /// seconds since 1970 with the fraction.
    @Test func theTextOfTodaysSessionForms() throws {
        let direct = try Self.goldenText("session/flow-stage.json")
        #expect(direct.hasPrefix(#"{"format":"onetap-session/1","id":"Golden-flow-stage-0001","version":2,"#))
        #expect(direct.contains(#""createdAt":1796112001.25,"expiresAt":1796112601.25,"#))
        let codable = try Self.goldenText("session/flow-stage.codable.json")
        #expect(codable.contains(#""format":"onetap-session\/1""#))
        #expect(codable.contains(#""createdAt":1796112001.25"#) && codable.contains(#""expiresAt":1796112601.25"#))
        let exchange = try Self.goldenText("session/exchange-stage.json")
        #expect(exchange.contains(#""receivedAt":1796112062.375,"#))
        let unknown = try Self.goldenText("session/unknown-exchanges.json")
        #expect(unknown.contains(#""at":1796112249.375}"#))
        let pending = try Self.goldenText("session/pending-action.json")
        #expect(pending.contains(#""createdAt":1796112180.25,"expiresAt":1796112780.25}}"#))
        let trace = try Self.goldenText("session/trace-with-marks.json")
        #expect(trace.contains(#""createdAt":1796112420.1,"#))
        #expect(trace.contains(#""code":"code:timeout""#), "an SDK code that reads as a fixed result carries the mark")
        #expect(trace.contains(#""code":"exchange-code:failed""#), "so does an exchange code after exchange-")
        #expect(trace.contains(#""code":"provider-error","detail":"SDK \"crashed\"\tcode 7""#))
        let failed = try Self.goldenText("session/ended-failed-no-flow.json")
        #expect(failed.contains(#""stage":"ended","ending":"failed","trace":[]"#), "no flow member when the login ended before any flow")
        #expect(failed.contains(#""createdAt":1796112540.999,"expiresAt":1796113140.999,"#))
    }

    /// The values of each golden session, written out by hand.
    static func check(_ name: String, _ s: LoginSession) throws {
        switch name {
        case "flow-stage":
            #expect(s.id.text == "Golden-flow-stage-0001")
            #expect(s.version == 2)
            #expect(s.plan == mobileOnly)
            #expect(s.stage == .flow(.mobile, attempt: 2))
            #expect(s.trace == [LoginStep(flow: .mobile, attempt: 1, result: .code("200023"), action: .retry, meaning: "request timeout", next: .retry(.mobile))])
            #expect(s.alerts.isEmpty && s.exchangedTokens.isEmpty && s.unknownExchanges.isEmpty)
            #expect(ms(s.createdAt) == ms("2026-12-01T08:00:01.250Z"))
            #expect(ms(s.expiresAt) == ms("2026-12-01T08:10:01.250Z"))
            #expect(s.verified == nil && s.pending == nil)
            #expect(s.platform?.rawValue == "harmonyos")
            #expect(s.next == "run")

        case "exchange-stage":
            let token = try digest("4f905de4876e79e9fc8ad1b69bbe01bdedf4b0ab0021175751d133f0fd3c1370")  // printf fake-mobile-token-0002 | sha256sum
            #expect(s.id.text == "Golden-exchange-000002")
            #expect(s.version == 2)
            #expect(s.plan == mobileOnly)
            guard case .exchange(let flow, let attempt, let stageToken, let receivedAt) = s.stage else {
                Issue.record("not at the exchange: \(s.stage)")
                return
            }
            #expect(flow == .mobile && attempt == 1 && stageToken == token)
            #expect(ms(receivedAt) == ms("2026-12-01T08:01:02.375Z"))
            #expect(s.trace == [LoginStep(flow: .mobile, attempt: 1, result: .code("103000"), action: .success, meaning: tokenObtained, next: .exchange(.mobile))])
            #expect(s.alerts.isEmpty && s.unknownExchanges.isEmpty)
            #expect(s.exchangedTokens == [token])
            #expect(ms(s.createdAt) == ms("2026-12-01T08:01:00.125Z"))
            #expect(ms(s.expiresAt) == ms("2026-12-01T08:11:00.125Z"))
            #expect(s.verified == nil && s.pending == nil)
            #expect(s.platform?.rawValue == "android")
            #expect(s.next == "exchange")

        case "ended-success-verified":
            #expect(s.id.text == "Golden-verified-000003")
            #expect(s.version == 3)
            #expect(s.plan == mobileOnly)
            #expect(s.stage == .ended(.success, flow: .mobile))
            #expect(s.trace == [
                LoginStep(flow: .mobile, attempt: 1, result: .code("103000"), action: .success, meaning: tokenObtained, next: .exchange(.mobile)),
                LoginStep(flow: .mobile, attempt: 1, result: .exchangeCode("103000"), action: .success, meaning: "number returned", next: .finish(.success)),
            ])
            #expect(s.alerts.isEmpty && s.unknownExchanges.isEmpty)
            #expect(s.exchangedTokens == [try digest("bef4374e2e021a590442164b2581ffae312479e7e1829b2028a1ad60bc86c815")])
            #expect(ms(s.createdAt) == ms("2026-12-01T08:02:00.500Z"))
            #expect(ms(s.expiresAt) == ms("2026-12-01T08:12:00.500Z"))
            #expect(s.verified == VerifiedLogin(phoneNumber: try PhoneNumber("13800138000"), account: "acct-golden-3"))
            #expect(s.verified?.phoneNumber.masked == "138****8000")
            #expect(s.pending == nil)
            #expect(s.platform?.rawValue == "ios")
            #expect(s.ending == .success && s.next == "done")

        case "pending-action":
            #expect(s.id.text == "Golden-pending-0000004")
            #expect(s.version == 1)
            #expect(s.plan == mobileOnly)
            #expect(s.stage == .flow(.mobile, attempt: 1))
            #expect(s.trace.isEmpty && s.alerts.isEmpty && s.exchangedTokens.isEmpty && s.unknownExchanges.isEmpty)
            #expect(ms(s.createdAt) == ms("2026-12-01T08:03:00.250Z"))
            #expect(ms(s.expiresAt) == ms("2026-12-01T08:13:00.250Z"))
            #expect(s.verified == nil && s.platform == nil)
            let pending = try #require(s.pending)
            #expect(pending.key == "43Pp0nQVUUoBrU4r_5jZ0w")
            #expect(pending.action == "favourite")
            #expect(pending.payload == .object(["item": .string("article-42"), "note": .null, "score": .number(4.5), "tags": .array([.string("新闻"), .string("tech")])]))
            #expect(ms(pending.createdAt) == ms("2026-12-01T08:03:00.250Z"))
            #expect(ms(pending.expiresAt) == ms("2026-12-01T08:13:00.250Z"))

        case "unknown-exchanges":
            let token = try digest("5d8a2758731002dd0ceaa5af44e8335c9080f896ab43c73b98dff03357d3128c")  // fake-mobile-token-0005
            #expect(s.id.text == "Golden-unknown-0000005")
            #expect(s.version == 3)
            #expect(s.plan == mobileOnly)
            #expect(s.stage == .flow(.sms, attempt: 1))
            #expect(s.trace == [
                LoginStep(flow: .mobile, attempt: 1, result: .code("103000"), action: .success, meaning: tokenObtained, next: .exchange(.mobile)),
                LoginStep(
                    flow: .mobile, attempt: 1, result: .exchangeTimeout, action: .switch,
                    meaning: "the exchange gave no answer: its result is unknown (it may have been billed); SMS now, the token is kept for reconciliation",
                    next: .attempt(.sms)),
            ])
            #expect(s.alerts.isEmpty)
            #expect(s.exchangedTokens == [token])
            #expect(s.unknownExchanges.count == 1)
            #expect(s.unknownExchanges.first?.flow == .mobile)
            #expect(s.unknownExchanges.first?.token == token)
            #expect(ms(s.unknownExchanges.first?.at) == ms("2026-12-01T08:04:09.375Z"))
            #expect(ms(s.createdAt) == ms("2026-12-01T08:04:00.125Z"))
            #expect(ms(s.expiresAt) == ms("2026-12-01T08:14:00.125Z"))
            #expect(s.verified == nil && s.pending == nil && s.platform == nil)
            #expect(s.next == "sms")

        case "alerts":
            #expect(s.id.text == "Golden-alerts-00000006")
            #expect(s.version == 4)
            #expect(s.plan == fourFlows)
            #expect(s.stage == .flow(.unicom, attempt: 1))
            #expect(s.trace == [
                LoginStep(flow: .mobile, attempt: 1, result: .code("103101"), action: .misconfigured, meaning: "request signature wrong (appKey)", next: .attempt(.tianyi)),
                LoginStep(flow: .tianyi, attempt: 1, result: .code("0"), action: .success, meaning: "success: exchange the token", next: .exchange(.tianyi)),
                LoginStep(
                    flow: .tianyi, attempt: 1, result: .exchangeCode("51002"), action: .misconfigured, meaning: "parameter empty or access not allowed",
                    next: .attempt(.unicom)),
            ])
            #expect(s.alerts == [
                LoginAlert(flow: .mobile, code: "103101", meaning: "request signature wrong (appKey)"),
                LoginAlert(flow: .tianyi, code: "exchange-51002", meaning: "parameter empty or access not allowed"),
            ])
            #expect(s.exchangedTokens == [try digest("2829acdc5e265dbe450b37e958a9b822716758298988188cb1031db0acc438a6")])  // fake-tianyi-token-0006
            #expect(s.unknownExchanges.isEmpty)
            #expect(ms(s.createdAt) == ms("2026-12-01T08:06:00.625Z"))
            #expect(ms(s.expiresAt) == ms("2026-12-01T08:16:00.625Z"))
            #expect(s.verified == nil && s.pending == nil)
            #expect(s.platform?.rawValue == "ios")

        case "trace-with-marks":
            #expect(s.id.text == "Golden-trace-000000007")
            #expect(s.version == 6)
            #expect(s.plan == fourFlows)
            #expect(s.stage == .flow(.sms, attempt: 1))
            #expect(s.trace == [
                LoginStep(flow: .mobile, attempt: 1, result: .code("200023"), action: .retry, meaning: "request timeout", next: .retry(.mobile)),
                LoginStep(
                    flow: .mobile, attempt: 2, result: .code("timeout"), action: .fallback,
                    meaning: "unknown code: fall back to SMS (seed 002) (an unlisted code: the flow's default)", next: .attempt(.tianyi)),
                LoginStep(
                    flow: .tianyi, attempt: 1, result: .providerError("SDK \"crashed\"\tcode 7"), action: .fallback,
                    meaning: "the provider failed (SDK \"crashed\"\tcode 7): fall back", next: .attempt(.unicom)),
                LoginStep(flow: .unicom, attempt: 1, result: .code("0"), action: .success, meaning: "success: exchange the token", next: .exchange(.unicom)),
                LoginStep(
                    flow: .unicom, attempt: 1, result: .exchangeCode("failed"), action: .fallback,
                    meaning: "unknown exchange code: the next flow (an unlisted exchange code: the flow's default)", next: .attempt(.sms)),
            ])
            #expect(s.alerts.isEmpty && s.unknownExchanges.isEmpty)
            #expect(s.exchangedTokens == [try digest("5ca44a046eec62b2edba2e3a38ccd7542c49dcd3d10da1126aa02bb6d1028090")])  // fake-unicom-token-0007
            #expect(ms(s.createdAt) == ms("2026-12-01T08:07:00.100Z"))
            #expect(ms(s.expiresAt) == ms("2026-12-01T08:17:00.100Z"))
            #expect(s.verified == nil && s.pending == nil && s.platform == nil)

        case "ended-failed-no-flow":
            #expect(s.id.text == "Golden-failed-00000008")
            #expect(s.version == 1)
            #expect(s.plan == fourFlows)
            #expect(s.stage == .ended(.failed, flow: nil))
            #expect(s.flow == nil && s.attempt == nil)
            #expect(s.trace.isEmpty && s.alerts.isEmpty && s.exchangedTokens.isEmpty && s.unknownExchanges.isEmpty)
            #expect(ms(s.createdAt) == ms("2026-12-01T08:09:00.999Z"))
            #expect(ms(s.expiresAt) == ms("2026-12-01T08:19:00.999Z"))
            #expect(s.verified == nil && s.pending == nil && s.platform == nil)

        case "ended-cancelled":
            #expect(s.id.text == "Golden-cancel-00000009")
            #expect(s.version == 2)
            #expect(s.plan == mobileOnly)
            #expect(s.stage == .ended(.cancelled, flow: .mobile))
            #expect(s.trace == [
                LoginStep(flow: .mobile, attempt: 1, result: .abandoned(.user), action: .cancelled, meaning: "the user backed out", next: .finish(.cancelled))
            ])
            #expect(s.alerts.isEmpty && s.exchangedTokens.isEmpty && s.unknownExchanges.isEmpty)
            #expect(ms(s.createdAt) == ms("2026-12-01T08:10:00.750Z"))
            #expect(ms(s.expiresAt) == ms("2026-12-01T08:20:00.750Z"))
            #expect(s.verified == nil && s.pending == nil)
            #expect(s.platform?.rawValue == "android")

        default:
            Issue.record("no expectations for session \(name)")
        }
    }

    // MARK: SMS code records

    /// The key the golden SMS codes were issued under (a test key: it guards nothing).
    static let smsKey = try! ServerKey(bytes: Array("golden-sms-key-not-a-secret-0001".utf8))

    /// The record `PostgresSMSStore` wrote for 13800138000 after two wrong codes (`JSONEncoder`, its dates
    /// as seconds since 2001-01-01), read as the store reads it (`SMSCodeRecord(json:)`); the code it was
    /// issued with, 474453, still verifies against it, and it comes back through today's form.
    @Test func smsCodeRecordWithFailedAttempts() throws {
        let text = try Self.goldenText("sms-code-record/with-failed-attempts.json")
        #expect(text.contains(#""issuedAt":817806000.25"#) && text.contains(#""expiresAt":817806300.25"#), "seconds since 2001-01-01")
        let record = try SMSCodeRecord(json: text)
        #expect(record.id == "4c4d36476fce4d70")
        #expect(record.number == (try PhoneNumber("13800138000")))
        #expect(record.digest == (try Self.digest("326d76ffb7669b2adc9eedd4211a4401d1aaeda111b98be11aca1b8908ec9619")))
        #expect(record.session?.text == "Golden-unknown-0000005")
        #expect(Self.ms(record.issuedAt) == Self.ms("2026-12-01T08:20:00.250Z"))
        #expect(Self.ms(record.expiresAt) == Self.ms("2026-12-01T08:25:00.250Z"))
        #expect(record.wrongAttempts == 2)
        let again = try record.json()
        #expect(again == #"{"format":"onetap-sms-code/2","id":"4c4d36476fce4d70","number":"13800138000","digest":"326d76ffb7669b2adc9eedd4211a4401d1aaeda111b98be11aca1b8908ec9619","session":"Golden-unknown-0000005","issuedAtMs":1796113200250,"expiresAtMs":1796113500250,"wrongAttempts":2}"#)
        #expect(try SMSCodeRecord(json: again) == record)

        let request = SMSPolicy.Request(number: "13800138000", session: "Golden-unknown-0000005")
        let at = try Self.instant("2026-12-01T08:21:40.000Z")
        var state = SMSState(events: [:], counters: [], code: record, keepUntil: try Self.instant("2026-12-03T08:20:45.750Z"))
        let wrong = SMSCodeRules().verify(&state, candidate: Secret("000000"), number: record.number, request, key: Self.smsKey, at: at)
        #expect(wrong == .wrong(attemptsLeft: 2), "two earlier wrong codes, five allowed")
        state.code = record
        let right = SMSCodeRules().verify(&state, candidate: Secret("474453"), number: record.number, request, key: Self.smsKey, at: at)
        guard case .verified(let verdict) = right else {
            Issue.record("the issued code did not verify: \(right)")
            return
        }
        #expect(verdict.phoneNumber.digits == "13800138000" && verdict.session?.text == "Golden-unknown-0000005")
        #expect(state.code == nil, "a verified code is used up")
    }

    /// A fresh record, bound to no session.
    @Test func smsCodeRecordFresh() throws {
        let record = try SMSCodeRecord(json: try Self.goldenText("sms-code-record/fresh.json"))
        #expect(record.id == "1182203f78ee234d")
        #expect(record.number == (try PhoneNumber("13900139000")))
        #expect(record.digest == (try Self.digest("17bf4ff4375d5523e4243e17a2349244cfd3e88dc3bcd45473fcc955468d06ff")))
        #expect(record.session == nil)
        #expect(Self.ms(record.issuedAt) == Self.ms("2026-12-01T08:21:00.125Z"))
        #expect(Self.ms(record.expiresAt) == Self.ms("2026-12-01T08:26:00.125Z"))
        #expect(record.wrongAttempts == 0)
        #expect(try !Self.goldenText("sms-code-record/fresh.json").contains("session"), "no session member when none")
        #expect(try !record.json().contains("session"))
        #expect(try SMSCodeRecord(json: record.json()) == record)

        var state = SMSState(events: [:], counters: [], code: record, keepUntil: try Self.instant("2026-12-03T08:21:00.125Z"))
        let result = SMSCodeRules().verify(
            &state, candidate: Secret("335552"), number: record.number, SMSPolicy.Request(number: "13900139000"), key: Self.smsKey,
            at: try Self.instant("2026-12-01T08:21:40.000Z"))
        guard case .verified = result else {
            Issue.record("the issued code did not verify: \(result)")
            return
        }
    }

    // MARK: Merge journals

    /// A merge that stopped after two of its ten steps (its store failed), as `PostgresGuestDataStore`
    /// wrote it (`JSONEncoder`: dates as seconds since 2001-01-01, keys in no fixed order, the plan's
    /// steps as `{"write":{"kind":…,"value":…}}` and `{"removeGuest":{"kind":…}}`).
    @Test func mergeJournalInProgress() throws {
        let text = try Self.goldenText("merge-journal/in-progress.json")
        #expect(text.contains(#""startedAt":817806300.25"#) && text.contains(#""leaseUntil":817806330.75"#))
        #expect(text.contains(#"{"removeGuest":{"kind":"cart"}}"#))
        let journal = try MergeJournal(json: text)
        #expect(journal.guest.text == "Eye6gz0mNNjO9p89jesOWA")
        #expect(journal.account == "acct-golden-3")
        #expect(Self.ms(journal.startedAt) == Self.ms("2026-12-01T08:25:00.250Z"))
        #expect(journal.completed == 2)
        #expect(!journal.done)
        #expect(journal.finishedAt == nil)
        #expect(journal.holder == "WTnGN3kUVvfHjyF87V9oIw")
        #expect(Self.ms(journal.leaseUntil) == Self.ms("2026-12-01T08:25:30.750Z"))
        #expect(journal.version == 4)
        let cart: JSONValue = .array([.object(["item": .string("sku-9"), "qty": .number(99)])])
        let drafts: JSONValue = .array([.string("第一稿 \"quoted\"\nsecond line")])
        let favourites: JSONValue = .array([.string("article-2"), .string("article-3"), .string("article-1")])
        let history: JSONValue = .array([
            .object(["item": .string("article-9"), "at": .string("2026-12-01T08:51:30.5Z")]),
            .object(["item": .string("article-1"), "at": .string("2026-12-01T08:50:00.125Z")]),
        ])
        let settings: JSONValue = .object(["fontSize": .number(16), "theme": .string("light"), "ratio": .number(0.1)])
        #expect(journal.plan.steps == [
            .write(kind: "cart", value: cart), .write(kind: "drafts", value: drafts), .write(kind: "favourites", value: favourites),
            .write(kind: "history", value: history), .write(kind: "settings", value: settings),
            .removeGuest(kind: "cart"), .removeGuest(kind: "drafts"), .removeGuest(kind: "favourites"), .removeGuest(kind: "history"),
            .removeGuest(kind: "settings"),
        ])
        #expect(journal.plan.merged == ["cart": cart, "drafts": drafts, "favourites": favourites, "history": history, "settings": settings])
        #expect(journal.plan.kept == ["scores"])
        #expect(journal.plan.moved.isEmpty && journal.plan.discarded.isEmpty)
        let again = try journal.json()
        #expect(again.hasPrefix(#"{"format":"onetap-merge-journal/2","guest":"Eye6gz0mNNjO9p89jesOWA","account":"acct-golden-3","plan":{"steps":[{"write":{"kind":"cart","value":[{"item":"sku-9","qty":99}]}},"#))
        #expect(again.hasSuffix(#""startedAtMs":1796113500250,"completed":2,"done":false,"holder":"WTnGN3kUVvfHjyF87V9oIw","leaseUntilMs":1796113530750,"version":4}"#))
        #expect(try MergeJournal(json: again) == journal)
    }

    /// A finished merge (`finishedAt` set, no holder or lease left).
    @Test func mergeJournalFinished() throws {
        let text = try Self.goldenText("merge-journal/finished.json")
        #expect(text.contains(#""startedAt":817806900.5"#) && text.contains(#""finishedAt":817806902"#))
        let journal = try MergeJournal(json: text)
        #expect(journal.guest.text == "Rnb1r_39ChokD62rk4QDoA")
        #expect(journal.account == "acct-golden-7")
        #expect(Self.ms(journal.startedAt) == Self.ms("2026-12-01T08:35:00.500Z"))
        #expect(Self.ms(journal.finishedAt) == Self.ms("2026-12-01T08:35:02.000Z"))
        #expect(journal.completed == 4)
        #expect(journal.done)
        #expect(journal.holder == nil && journal.leaseUntil == nil)
        #expect(journal.version == 6)
        let favourites: JSONValue = .array([.string("article-7")])
        let history: JSONValue = .array([.object(["item": .string("article-7"), "at": .string("2026-12-01T09:00:00Z")])])
        #expect(journal.plan.steps == [
            .write(kind: "favourites", value: favourites), .write(kind: "history", value: history), .removeGuest(kind: "favourites"),
            .removeGuest(kind: "history"),
        ])
        #expect(journal.plan.merged == ["favourites": favourites, "history": history])
        #expect(journal.plan.kept.isEmpty && journal.plan.moved.isEmpty && journal.plan.discarded.isEmpty)
        let again = try journal.json()
        #expect(again.hasSuffix(#""startedAtMs":1796114100500,"completed":4,"done":true,"finishedAtMs":1796114102000,"version":6}"#))
        #expect(try MergeJournal(json: again) == journal)
    }

    // MARK: Last-login hints

    /// The hint an earlier version's PostgreSQL guest-device store wrote (`JSONEncoder`): the number only masked, the instant as seconds
    /// since 2001-01-01 (`817806060.9990001` is 2026-12-01T08:21:00.999Z, as a Double can hold it).
    @Test func lastLoginHints() throws {
        let oneTap = try LastLoginHint(json: try Self.goldenText("last-login-hint/one-tap-with-number.json"))
        #expect(oneTap.flow == .mobile)
        #expect(oneTap.maskedNumber == "138****8000")
        #expect(Self.ms(oneTap.at) == Self.ms("2026-12-01T08:20:00.125Z"))
        #expect(oneTap.wasOneTap)

        #expect(try Self.goldenText("last-login-hint/sms-without-number.json").contains(#""at":817806060.9990001"#))
        let sms = try LastLoginHint(json: try Self.goldenText("last-login-hint/sms-without-number.json"))
        #expect(sms.flow == .sms)
        #expect(sms.maskedNumber == nil)
        #expect(Self.ms(sms.at) == Self.ms("2026-12-01T08:21:00.999Z"))
        #expect(!sms.wasOneTap)
        #expect(try oneTap.json() == #"{"format":"onetap-last-login/2","flow":"mobile","maskedNumber":"138****8000","atMs":1796113200125}"#)
        #expect(try sms.json() == #"{"format":"onetap-last-login/2","flow":"sms","atMs":1796113260999}"#)
        for hint in [oneTap, sms] { #expect(try LastLoginHint(json: hint.json()) == hint) }
    }

    // MARK: Guest data

    /// Guest data as `PostgresGuestDataStore` writes it (`JSONValue.json`: keys sorted, whole numbers
    /// below 10^15 as integers, others as Swift prints a Double, so 10^15 is `1000000000000000.0` and
    /// 10^-7 is `1e-07`), read as it reads it (`JSONValue.parse`), and written again byte for byte.
    @Test(arguments: [
        ("favourites", JSONValue.array([.string("article-1"), .string("article-2")])),
        ("history", .array([
            .object(["item": .string("article-1"), "at": .string("2026-12-01T08:50:00.125Z")]),
            .object(["item": .string("article-9"), "at": .string("2026-12-01T08:51:30.5Z")]),
        ])),
        ("cart", .array([.object(["item": .string("sku-9"), "qty": .number(2), "price": .number(12.5)])])),
        ("settings", .object(["fontSize": .number(16), "theme": .string("dark"), "ratio": .number(0.1)])),
        ("drafts", .array([.string("第一稿 \"quoted\"\nsecond line")])),
        ("scores", .array([.number(0.1), .number(-2.5), .number(1e15), .number(1e-7), .number(123_456_789_012_345), .number(1e300), .bool(true), .null, .string("x")])),
    ])
    func guestData(kind: String, expected: JSONValue) throws {
        let text = try Self.goldenText("guest-data/\(kind).json")
        #expect(try JSONValue.parse(text) == expected)
        #expect(try JSONValue.parse(text).json == text)
    }

    @Test func guestDataNumbersAsWritten() throws {
        #expect(try Self.goldenText("guest-data/scores.json") == #"[0.1,-2.5,1000000000000000.0,1e-07,123456789012345,1e+300,true,null,"x"]"#)
        #expect(try Self.goldenText("guest-data/settings.json") == #"{"fontSize":16,"ratio":0.1,"theme":"dark"}"#)
    }

    // MARK: Today's forms

    /// The files of `Tests/Golden/*-v2/` hold today's forms (`onetap-session/2` and the `…/2` records,
    /// instants as whole milliseconds), written from the version-1 files above by the code that brought
    /// them in: each reads as the same record as its version-1 file (so every value checked above holds
    /// for it), and today's writer writes it again byte for byte. A later format change adds files beside
    /// these and keeps reading them.
    @Test(arguments: sessionNames)
    func sessionOfVersion2(_ name: String) throws {
        let text = try Self.goldenText("session-v2/\(name).json")
        let session = try LoginSession(json: text)
        try Self.check(name, session)
        #expect(session == (try LoginSession(json: try Self.golden("session/\(name).json"))))
        #expect(try session.json() == text)
        #expect(text.hasPrefix(#"{"format":"onetap-session/2","#) && !text.contains(#""createdAt":"#))
    }

    @Test(arguments: ["fresh", "with-failed-attempts"])
    func smsCodeRecordOfVersion2(_ name: String) throws {
        let text = try Self.goldenText("sms-code-record-v2/\(name).json")
        let record = try SMSCodeRecord(json: text)
        #expect(record == (try SMSCodeRecord(json: try Self.goldenText("sms-code-record/\(name).json"))))
        #expect(try record.json() == text)
    }

    @Test(arguments: ["finished", "in-progress"])
    func mergeJournalOfVersion2(_ name: String) throws {
        let text = try Self.goldenText("merge-journal-v2/\(name).json")
        let journal = try MergeJournal(json: text)
        #expect(journal == (try MergeJournal(json: try Self.goldenText("merge-journal/\(name).json"))))
        #expect(try journal.json() == text)
    }

    /// A merge under way records each kind as it merges it (`applied`, written by hand from the format's description): a
    /// resumed merge reports the kinds merged before its stop. A journal without it (the files above) applied nothing
    /// it records.
    @Test func aJournalRecordsTheKindsMergedWhileItRuns() throws {
        let text = try Self.goldenText("merge-journal-v2/recording.json")
        let journal = try MergeJournal(json: text)
        let downloads: JSONValue = .array([.string("v1"), .string("v2")])
        let applied = try #require(journal.applied)
        #expect(applied.steps == [.write(kind: "downloads", value: downloads), .removeGuest(kind: "downloads")])
        #expect(applied.merged == ["downloads": downloads] && applied.kept.isEmpty)
        #expect(applied.moved == ["downloads": ["v2"]] && applied.discarded == ["downloads": ["v1"]])
        #expect(!journal.done && journal.version == 3 && journal.completed == 0)
        #expect(try journal.json() == text)
        #expect(try MergeJournal(json: try Self.goldenText("merge-journal-v2/in-progress.json")).applied == nil)
    }

    /// A journal row whose counts OneTap never writes is reported unreadable, not run: a negative
    /// `completed` trapped in `steps.prefix(_:)` when resumed, and a version at `Int.max` on its increment.
    @Test(arguments: [
        (#""completed":2"#, #""completed":-1"#), (#""version":4"#, #""version":9223372036854775807"#), (#""version":4"#, #""version":0"#),
        // Past 2^53: a merge adds one per kind, its lease and its end (a review: one past `Int.max - 1` trapped).
        (#""version":4"#, #""version":9007199254740993"#),
    ])
    func aJournalWithCountsOneTapNeverWritesIsRefused(_ replacing: String, _ with: String) throws {
        let text = try Self.goldenText("merge-journal-v2/in-progress.json")
        #expect(text.contains(replacing))
        #expect(throws: DecodingError.self) { try MergeJournal(json: text.replacingOccurrences(of: replacing, with: with)) }
    }

    @Test(arguments: ["one-tap-with-number", "sms-without-number"])
    func lastLoginHintOfVersion2(_ name: String) throws {
        let text = try Self.goldenText("last-login-hint-v2/\(name).json")
        let hint = try LastLoginHint(json: text)
        #expect(hint == (try LastLoginHint(json: try Self.goldenText("last-login-hint/\(name).json"))))
        #expect(try hint.json() == text)
    }
}
