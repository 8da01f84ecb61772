import Foundation
import Testing
@testable import OneTap

/// The event schema's lines, written out by hand: what a log pipeline and `onetap stats` read.
@Suite struct EventSinkTests {
    static let start = Date(timeIntervalSince1970: 1_796_083_200)  // 2026-12-01T00:00:00Z
    static let id = try! LoginSessionID("Session-ID-for-tests_0")

    /// The lines of one login: each transition's events at the transition's instant.
    static func lines(_ snapshot: DeviceSnapshot, _ reports: [(seconds: Double, report: LoginReport)]) throws -> [String] {
        let machine = LoginSessionMachine()
        var transition = machine.start(snapshot, at: start, id: id)
        var lines = transition.events.map { StandardErrorEventSink.line(OneTapEvent(at: start, .login($0, transition.context))) }
        for (seconds, report) in reports {
            let at = start.addingTimeInterval(seconds)
            transition = try machine.advance(transition.session, report.bound(to: transition.session), at: at)
            lines += transition.events.map { StandardErrorEventSink.line(OneTapEvent(at: at, .login($0, transition.context))) }
        }
        return lines.map { String($0.dropLast()) }
    }

    @Test func aChinaMobileLoginOnIOSWithItsExchange() throws {
        let credential = CarrierCredential(flow: .mobile, token: Secret("TOKEN-SECRET"), uniqueID: "u-1")
        let lines = try Self.lines(
            DeviceSnapshot(sim: .present, plmn: try PLMN("46000"), platform: .ios),
            [(0.8, .result(.mobile, code: "200087")), (1.25, .result(.mobile, code: "103000", credential: credential)),
             (1.5, .exchanged(.answered("103000", phoneNumber: try PhoneNumber("13800138000"))))])
        let context = #""session":"Session-ID-for-tests_0","carrier":"mobile","evidence":"plmn","platform":"ios""#
        #expect(lines == [
            #"{"v":2,"at":"2026-12-01T00:00:00.000Z","area":"login","event":"planned",\#(context),"elapsedMs":0,"flows":["mobile","sms"],"reason":"policy","condition":"carrier:mobile"}"#,
            #"{"v":2,"at":"2026-12-01T00:00:00.000Z","area":"login","event":"flow-started",\#(context),"elapsedMs":0,"flow":"mobile","attempt":1}"#,
            #"{"v":2,"at":"2026-12-01T00:00:00.800Z","area":"login","event":"progress",\#(context),"elapsedMs":800,"flow":"mobile","code":"200087"}"#,
            #"{"v":2,"at":"2026-12-01T00:00:01.250Z","area":"login","event":"result",\#(context),"elapsedMs":1250,"flow":"mobile","attempt":1,"code":"103000","action":"success","meaning":"success: token obtained: exchange the token","next":"exchange mobile"}"#,
            #"{"v":2,"at":"2026-12-01T00:00:01.500Z","area":"login","event":"result",\#(context),"elapsedMs":1500,"flow":"mobile","attempt":1,"code":"exchange-103000","action":"success","meaning":"number returned","next":"finish success"}"#,
            #"{"v":2,"at":"2026-12-01T00:00:01.500Z","area":"login","event":"succeeded",\#(context),"elapsedMs":1500,"flow":"mobile","ending":"success"}"#,
        ])
        #expect(!lines.joined().contains("TOKEN-SECRET"))
        #expect(!lines.joined().contains("13800138000"))
    }

    @Test func aTelecomTimeoutThenSMSWithoutAPlatform() throws {
        let lines = try Self.lines(DeviceSnapshot(sim: .present, plmn: try PLMN("46011")), [(8, .timeout(.tianyi)), (30, .cancel(.sms))])
        let context = #""session":"Session-ID-for-tests_0","carrier":"telecom","evidence":"plmn""#
        #expect(lines == [
            #"{"v":2,"at":"2026-12-01T00:00:00.000Z","area":"login","event":"planned",\#(context),"elapsedMs":0,"flows":["tianyi","sms"],"reason":"policy","condition":"carrier:telecom"}"#,
            #"{"v":2,"at":"2026-12-01T00:00:00.000Z","area":"login","event":"flow-started",\#(context),"elapsedMs":0,"flow":"tianyi","attempt":1}"#,
            #"{"v":2,"at":"2026-12-01T00:00:08.000Z","area":"login","event":"result",\#(context),"elapsedMs":8000,"flow":"tianyi","attempt":1,"code":"timeout","action":"fallback","meaning":"no answer in time: fall back","next":"attempt sms"}"#,
            #"{"v":2,"at":"2026-12-01T00:00:08.000Z","area":"login","event":"fallback",\#(context),"elapsedMs":8000,"from":"tianyi","to":"sms","action":"fallback"}"#,
            #"{"v":2,"at":"2026-12-01T00:00:08.000Z","area":"login","event":"flow-started",\#(context),"elapsedMs":8000,"flow":"sms","attempt":1}"#,
            #"{"v":2,"at":"2026-12-01T00:00:30.000Z","area":"login","event":"result",\#(context),"elapsedMs":30000,"flow":"sms","attempt":1,"code":"cancelled","action":"cancelled","meaning":"the user backed out","next":"finish cancelled"}"#,
            #"{"v":2,"at":"2026-12-01T00:00:30.000Z","area":"login","event":"cancelled",\#(context),"elapsedMs":30000,"flow":"sms","ending":"cancelled"}"#,
        ])
    }

    @Test func aProviderMessageWithANumberIsMaskedInEveryEvent() throws {
        let lines = try Self.lines(DeviceSnapshot(sim: .present, plmn: try PLMN("46000")), [(1, .fault(.mobile, "number 13912345678 refused")), (2, .timeout(.sms))])
        #expect(lines.contains { $0.contains("139****5678") })
        #expect(!lines.joined().contains("13912345678"))
        #expect(lines.last?.contains(#""event":"failed""#) == true)
        #expect(lines.last?.contains(#""ending":"failed""#) == true)
    }

    @Test func otherAreasCarryTheVersionToo() {
        let token = OneTapEvent(at: Self.start, .token(.loggedOut(account: "a-1")))
        #expect(StandardErrorEventSink.line(token).hasPrefix(#"{"v":2,"at":"2026-12-01T00:00:00.000Z","area":"token","event":"#))
        #expect(OneTapEvent.schemaVersion == 2)
    }

    /// No event holds a whole phone number, in its line or in its text form (`description`, documented for
    /// logs): a refresher's or a provider's message quoting one was masked in the line only, or not at all.
    @Test func neitherFormOfAnEventHoldsAWholeNumber() {
        let events = [
            OneTapEvent(at: Self.start, .token(.refreshFailed(account: "a-1", message: "carrier said 13800138000 is barred", attempt: 1, retryAt: Self.start))),
            OneTapEvent(at: Self.start, .token(.reloginRequired(account: "a-1", message: "number 13800138000 changed hands"))),
            OneTapEvent(at: Self.start, .token(.dueScanFailed(message: "row 8613800138000 unreadable"))),
            // An account id that is the user's number, as many apps choose (an attacker's read: masked in the text form,
            // whole in the line).
            OneTapEvent(at: Self.start, .token(.loggedOut(account: "13800138000"))),
            OneTapEvent(at: Self.start, .appSession(.loggedIn(.random(), "13800138000"))),
            OneTapEvent(at: Self.start, .appSession(.mergeKept(.random(), "u-13800138000", kinds: ["cart"]))),
            OneTapEvent(at: Self.start, .account(.dormantNumber("13800138000", maskedNumber: "138****8000", previouslyVerifiedAt: Self.start))),
            OneTapEvent(at: Self.start, .database(.refreshLeaseLost(schema: "onetap", account: "13800138000"))),
        ]
        for event in events {
            #expect(!event.description.contains("13800138000"), "\(event.description)")
            #expect(!StandardErrorEventSink.line(event).contains("13800138000"), "\(StandardErrorEventSink.line(event))")
            #expect(event.description.contains("138****8000"), "\(event.description)")
        }
    }
}
