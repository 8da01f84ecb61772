import Foundation
import Testing
@testable import OneTapCore

/// Issue 21: what a verify meets before any code is compared, on the default policy: growing delays on
/// the keys that guessed, a captcha for a number guessed from three sessions, a single try per code past
/// the daily bound, and never a lock.
@Suite struct SMSVerifyPolicyTests {
    static let t0 = Date(timeIntervalSince1970: 1_796_090_400)  // 2026-12-01T02:00:00Z
    static let policy = SMSPolicy.builtIn
    static let request = SMSPolicy.Request(number: "13800138000", ip: "203.0.113.7", ip56: "203.0.113.7", ip48: "203.0.113.7", device: "d", session: "s")
    static let own = SMSPolicy.Counter(counts: .failedVerifies, key: .numberSession, value: "13800138000/s")
    static let number = SMSPolicy.Counter(counts: .failedVerifies, key: .number, value: "13800138000")
    static let sources = SMSPolicy.Counter(counts: .failedVerifySessions, key: .number, value: "13800138000")

    @Test func aSessionsWrongCodesGrowItsWaitFromTheFifthAndCapAtFifteenMinutes() {
        // Waits after the newest wrong code, by how many the session made: 5 → 1 s, 6 → 2 s, 7 → 4 s, 15 → 900 s (2^10 = 1024, capped).
        for (count, wait) in [(4, 0.0), (5, 1), (6, 2), (7, 4), (14, 512), (15, 900), (30, 900)] {
            let events = (0..<count).map { Self.t0.addingTimeInterval(Double($0)) }
            let newest = events.last ?? Self.t0
            let decision = Self.policy.decideVerify(Self.request, events: [Self.own: events], captchaPassed: false, at: newest)
            if wait == 0 {
                #expect(decision == .compare(singleTry: false), "\(count)")
            } else {
                #expect(decision == .throttled(rule: "session-guesses", retryAfter: newest.addingTimeInterval(wait)), "\(count)")
                let after = Self.policy.decideVerify(Self.request, events: [Self.own: events], captchaPassed: false, at: newest.addingTimeInterval(wait))
                #expect(after == .compare(singleTry: false), "\(count) after its wait")
            }
        }
    }

    @Test func anotherSessionsWrongCodesNeverHoldThisOne() {
        let strangers = SMSPolicy.Counter(counts: .failedVerifies, key: .numberSession, value: "13800138000/stranger")
        let events = (0..<30).map { Self.t0.addingTimeInterval(Double($0)) }
        #expect(Self.policy.decideVerify(Self.request, events: [strangers: events], captchaPassed: false, at: Self.t0.addingTimeInterval(30)) == .compare(singleTry: false))
    }

    @Test func aNumberGuessedFromThreeSessionsAsksForACaptcha() {
        var events: [SMSPolicy.Counter: [Date]] = [:]
        for (index, session) in ["a", "b", "b", "c"].enumerated() {
            let guesser = SMSPolicy.Request(number: "13800138000", session: session)
            Self.policy.countWrongCode(&events, guesser, at: Self.t0.addingTimeInterval(Double(index)))
        }
        // Four wrong codes, three sessions: the sessions counter holds three, the number's four.
        #expect(events[Self.sources]?.count == 3 && events[Self.number]?.count == 4)
        let now = Self.t0.addingTimeInterval(10)
        #expect(Self.policy.decideVerify(Self.request, events: events, captchaPassed: false, at: now) == .captcha(rule: "number-sources", freesAt: Self.t0.addingTimeInterval(3600)))
        #expect(Self.policy.decideVerify(Self.request, events: events, captchaPassed: true, at: now) == .compare(singleTry: false))
        // An hour after the first, two sessions remain in the window: no captcha.
        #expect(Self.policy.decideVerify(Self.request, events: events, captchaPassed: false, at: Self.t0.addingTimeInterval(3600)) == .compare(singleTry: false))
    }

    /// The review of the send's own-rule-first fix: a verify named the requester's own `ip-guesses` but with the
    /// latest wait of every full captcha rule, the number's `number-guesses` (a day) among them, so a server with no
    /// verifier told a stranger when the number's wrong codes of the day began. Its own rules' wait goes with its own rule.
    @Test func aVerifyNamingItsOwnRuleTellsItsOwnRulesWait() throws {
        let ip = SMSPolicy.Counter(counts: .failedVerifies, key: .ip, value: "203.0.113.7")
        let tenFromTheAddress = (0..<10).map { Self.t0.addingTimeInterval(3000 + Double($0)) }
        let sixtyOnTheNumber = (0..<60).map { Self.t0.addingTimeInterval(Double($0) * 60) }
        let now = Self.t0.addingTimeInterval(3600)
        let decision = Self.policy.decideVerify(Self.request, events: [ip: tenFromTheAddress, Self.number: sixtyOnTheNumber], captchaPassed: false, at: now)
        // The address's tenth-newest wrong code came at t0 + 3000 s: it leaves the hour at t0 + 6600 s.
        #expect(decision == .captcha(rule: "ip-guesses", freesAt: Self.t0.addingTimeInterval(6600)))
        // Named first even where the table lists the number's rule before it.
        let numberFirst = try SMSPolicy(csv: """
            rule,key,counts,window_seconds,limit,over,lock_seconds,source
            number-sources,number,failed-verify-sessions,3600,3,captcha,,test
            ip-guesses,ip,failed-verifies,3600,10,captcha,,test

            """, file: "sms-policy.csv")
        let threeSessions = (0..<3).map { Self.t0.addingTimeInterval(3500 + Double($0)) }
        #expect(numberFirst.decideVerify(Self.request, events: [ip: tenFromTheAddress, Self.sources: threeSessions], captchaPassed: false, at: now)
            == .captcha(rule: "ip-guesses", freesAt: Self.t0.addingTimeInterval(6600)))
        // The number's own rule, alone, still tells its day.
        #expect(Self.policy.decideVerify(Self.request, events: [Self.number: sixtyOnTheNumber], captchaPassed: false, at: now)
            == .captcha(rule: "number-guesses", freesAt: Self.t0.addingTimeInterval(86_400)))
    }

    @Test func pastSixtyWrongCodesADayEachVerifyNeedsACaptchaAndGetsOneTry() {
        let sixty = (0..<60).map { Self.t0.addingTimeInterval(Double($0) * 60) }
        let now = Self.t0.addingTimeInterval(3600)
        #expect(Self.policy.decideVerify(Self.request, events: [Self.number: Array(sixty.dropLast())], captchaPassed: false, at: now) == .compare(singleTry: false))
        #expect(Self.policy.decideVerify(Self.request, events: [Self.number: sixty], captchaPassed: false, at: now) == .captcha(rule: "number-guesses", freesAt: Self.t0.addingTimeInterval(86_400)))
        #expect(Self.policy.decideVerify(Self.request, events: [Self.number: sixty], captchaPassed: true, at: now) == .compare(singleTry: true))
        // A day after the first, 59 remain: ordinary verifies again.
        #expect(Self.policy.decideVerify(Self.request, events: [Self.number: sixty], captchaPassed: false, at: Self.t0.addingTimeInterval(86_400)) == .compare(singleTry: false))
    }

    @Test func aRequestWithoutASessionGuessesInTheNumbersNoSessionBucket() {
        var events: [SMSPolicy.Counter: [Date]] = [:]
        Self.policy.countWrongCode(&events, SMSPolicy.Request(number: "13800138000"), at: Self.t0)
        #expect(events[SMSPolicy.Counter(counts: .failedVerifies, key: .numberSession, value: "13800138000/(not given)")] == [Self.t0])
        #expect(events[SMSPolicy.Counter(counts: .failedVerifies, key: .ip, value: "(not given)")] == [Self.t0])
        #expect(events[SMSPolicy.Counter(counts: .failedVerifies, key: .device, value: "(not given) at (not given)")] == [Self.t0])
    }
}
