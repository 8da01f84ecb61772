import Foundation
import Testing
import OneTapCore
@testable import OneTapInsights
import OneTapSupport

/// Counting logins from event lines written by hand, so every expected count is read off the lines.
@Suite struct LoginStatsTests {
    /// 2026-12-01T08:00:00Z in milliseconds.
    static let start: Int64 = 1_796_112_000_000

    /// One login event line: `event` for `session` at `start + startedAt + elapsed`.
    static func line(_ event: String, _ session: String, carrier: String = "mobile", startedAt: Int64 = 0, elapsed: Int64, platform: String? = nil,
                     _ fields: String = "") -> String {
        let at = Timestamp.format(milliseconds: start + startedAt + elapsed)
        let platformField = platform.map { #","platform":"\#($0)""# } ?? ""
        return #"{"v":2,"at":"\#(at)","area":"login","event":"\#(event)","session":"\#(session)","carrier":"\#(carrier)","evidence":"plmn"\#(platformField),"elapsedMs":\#(elapsed)\#(fields)}"#
    }

    static func planned(_ session: String, carrier: String = "mobile", flows: String = #""mobile","sms""#, condition: String? = nil, startedAt: Int64 = 0,
                        platform: String? = nil) -> String {
        line("planned", session, carrier: carrier, startedAt: startedAt, elapsed: 0, platform: platform,
             #","flows":[\#(flows)],"reason":"policy","condition":"\#(condition ?? "carrier:\(carrier)")""#)
    }

    static func started(_ session: String, _ flow: String, attempt: Int = 1, carrier: String = "mobile", startedAt: Int64 = 0, at elapsed: Int64) -> String {
        line("flow-started", session, carrier: carrier, startedAt: startedAt, elapsed: elapsed, #","flow":"\#(flow)","attempt":\#(attempt)"#)
    }

    static func result(_ session: String, _ flow: String, _ code: String, _ action: String, meaning: String = "m", carrier: String = "mobile", startedAt: Int64 = 0,
                       at elapsed: Int64) -> String {
        line("result", session, carrier: carrier, startedAt: startedAt, elapsed: elapsed,
             #","flow":"\#(flow)","attempt":1,"code":"\#(code)","action":"\#(action)","meaning":"\#(meaning)","next":"x""#)
    }

    static func ended(_ event: String, _ session: String, _ flow: String?, carrier: String = "mobile", startedAt: Int64 = 0, at elapsed: Int64) -> String {
        let ending = event == "succeeded" ? "success" : event
        return line(event, session, carrier: carrier, startedAt: startedAt, elapsed: elapsed, (flow.map { #","flow":"\#($0)""# } ?? "") + #","ending":"\#(ending)""#)
    }

    /// Eight logins and some noise (see each comment); the expectations below are read off these lines.
    static let stream: [String] = [
        // A: mobile, one-tap success at 1.5 s (iOS).
        planned("A", platform: "ios"), started("A", "mobile", at: 0),
        result("A", "mobile", "103000", "success", meaning: "success: token obtained", at: 1200),
        result("A", "mobile", "exchange-103000", "success", meaning: "number returned", at: 1500),
        ended("succeeded", "A", "mobile", at: 1500),
        // B: mobile, a retry, a fallback, SMS success at 30 s (Android).
        planned("B", startedAt: 100, platform: "android"), started("B", "mobile", startedAt: 100, at: 0),
        result("B", "mobile", "200023", "retry", meaning: "request timeout", startedAt: 100, at: 800),
        started("B", "mobile", attempt: 2, startedAt: 100, at: 800),
        result("B", "mobile", "102103", "fallback", meaning: "cellular data not enabled", startedAt: 100, at: 1300),
        line("fallback", "B", startedAt: 100, elapsed: 1300, #","from":"mobile","to":"sms","action":"fallback""#),
        started("B", "sms", startedAt: 100, at: 1300),
        result("B", "sms", "0", "success", meaning: "the SMS code was verified", startedAt: 100, at: 30000),
        ended("succeeded", "B", "sms", startedAt: 100, at: 30000),
        // C: mobile, the user backs out at 4 s.
        planned("C", startedAt: 200), started("C", "mobile", startedAt: 200, at: 0),
        result("C", "mobile", "200020", "cancelled", meaning: "user cancelled login", startedAt: 200, at: 4000),
        ended("cancelled", "C", "mobile", startedAt: 200, at: 4000),
        // D: mobile, misconfigured (an alert), SMS, then backs out.
        planned("D", startedAt: 300), started("D", "mobile", startedAt: 300, at: 0),
        result("D", "mobile", "103101", "misconfigured", meaning: "request signature wrong", startedAt: 300, at: 400),
        line("alert", "D", startedAt: 300, elapsed: 400, #","flow":"mobile","code":"103101","meaning":"request signature wrong""#),
        started("D", "sms", startedAt: 300, at: 400),
        result("D", "sms", "cancelled", "cancelled", meaning: "the user backed out", startedAt: 300, at: 9000),
        ended("cancelled", "D", "sms", startedAt: 300, at: 9000),
        // Noise: other areas, an event of a login begun before the stream, progress of a login already over.
        #"{"v":2,"at":"2026-12-01T08:00:01.000Z","area":"token","event":"refreshed","account":"a"}"#,
        #"{"v":2,"at":"2026-12-01T08:00:01.000Z","area":"sms","event":"send-sent","number":"138****8000"}"#,
        result("Z", "mobile", "103000", "success", at: 10),
        line("progress", "A", elapsed: 1400, #","flow":"mobile","code":"200087""#),
        // E: telecom, a Tianyi timeout, then SMS success at 40 s.
        planned("E", carrier: "telecom", flows: #""tianyi","sms""#, startedAt: 400), started("E", "tianyi", carrier: "telecom", startedAt: 400, at: 0),
        result("E", "tianyi", "timeout", "fallback", meaning: "no answer in time", carrier: "telecom", startedAt: 400, at: 8000),
        started("E", "sms", carrier: "telecom", startedAt: 400, at: 8000),
        result("E", "sms", "0", "success", carrier: "telecom", startedAt: 400, at: 40000),
        ended("succeeded", "E", "sms", carrier: "telecom", startedAt: 400, at: 40000),
        // F: telecom, starts Tianyi and is never heard from again.
        planned("F", carrier: "telecom", flows: #""tianyi","sms""#, startedAt: 500), started("F", "tianyi", carrier: "telecom", startedAt: 500, at: 0),
        // G: mobile, one-tap success at 2.3 s.
        planned("G", startedAt: 600), started("G", "mobile", startedAt: 600, at: 0),
        result("G", "mobile", "103000", "success", startedAt: 600, at: 2000),
        result("G", "mobile", "exchange-103000", "success", startedAt: 600, at: 2300),
        ended("succeeded", "G", "mobile", startedAt: 600, at: 2300),
        // H: no SIM, SMS only, success at 20 s.
        planned("H", carrier: "unknown", flows: #""sms""#, condition: "sim-absent", startedAt: 700), started("H", "sms", carrier: "unknown", startedAt: 700, at: 0),
        result("H", "sms", "0", "success", carrier: "unknown", startedAt: 700, at: 20000),
        ended("succeeded", "H", "sms", carrier: "unknown", startedAt: 700, at: 20000),
    ]

    static func counted(_ lines: [String] = stream, finish: Bool = true) throws -> LoginStats {
        var stats = LoginStats()
        for line in lines { try stats.add(line) }
        if finish { stats.finish() }
        return stats
    }

    static func near(_ value: Int64?, _ expected: Int64) -> Bool {
        guard let value else { return false }
        return abs(Double(value - expected)) <= Double(expected) / 128 + 1
    }

    @Test func rowsByCarrierAndFirstFlow() throws {
        let funnel = try Self.counted().funnel(smsPrice: 0.05)
        #expect(funnel.rows.map { "\($0.carrier!)/\($0.firstFlow!)" } == ["mobile/mobile", "telecom/tianyi", "unknown/sms"])
        let mobile = funnel.rows[0]
        #expect([mobile.logins, mobile.oneTap, mobile.sms, mobile.cancelled, mobile.failed, mobile.unfinished] == [5, 2, 1, 2, 0, 0] as [Int])
        #expect(mobile.oneTapShare == Estimate.wilson(2, of: 5))
        #expect(mobile.successShare == Estimate.wilson(3, of: 5))
        // Successes at 1.5 s, 2.3 s and 30 s: the median is 2.3 s, p95 30 s.
        #expect(Self.near(mobile.successP50, 2300))
        #expect(Self.near(mobile.successP95, 30000))
        #expect(mobile.results == 10)
        #expect(mobile.topCodes.map(\.code) == ["103000", "exchange-103000", "0", "102103", "103101"])
        #expect(mobile.topCodes[0].count == 2)
        #expect(mobile.topCodes[0].share == 0.2)
        #expect(mobile.topCodes[0].action == .success)
        #expect(mobile.topCodes[0].meaning == "success: token obtained")
        #expect(mobile.topCodes[2].flow == .sms)
        #expect(mobile.topFailures.map(\.code) == ["102103", "103101", "200020", "200023", "cancelled"])
        #expect(mobile.topFailures.map(\.action) == [.fallback, .misconfigured, .cancelled, .retry, .cancelled])
        #expect(mobile.alerts.count == 1)
        #expect(mobile.alerts.logins == 1)
        #expect(mobile.alerts.toSMS == 1)
        #expect(mobile.alerts.cost == 0.05)
        #expect(mobile.alerts.codes.map(\.code) == ["103101"])

        let telecom = funnel.rows[1]
        #expect([telecom.logins, telecom.oneTap, telecom.sms, telecom.cancelled, telecom.failed, telecom.unfinished] == [2, 0, 1, 0, 0, 1] as [Int])
        #expect(telecom.topFailures.map(\.code) == ["timeout"])
        #expect(telecom.alerts.cost == 0)
        let noSIM = funnel.rows[2]
        #expect([noSIM.logins, noSIM.sms] == [1, 1] as [Int])
        #expect(Self.near(noSIM.successP50, 20000))
    }

    @Test func theSummarySaysWhatWasRead() throws {
        let summary = try Self.counted().funnel().summary
        #expect(summary.lines == Self.stream.count)
        #expect(summary.ignored == 2)
        #expect(summary.orphans == 2, "Z's result, and A's progress after A ended")
        #expect(summary.malformed == 0)
        #expect(summary.logins == 8)
        #expect(summary.loginEvents == Self.stream.count - 2)
        #expect(summary.first == Self.start)
        #expect(summary.last == Self.start + 400 + 40000, "E's success")
    }

    @Test func otherDimensions() throws {
        let stats = try Self.counted()
        let byPlatform = stats.funnel(by: [.platform])
        #expect(byPlatform.rows.map { $0.platform?.rawValue ?? "none" } == ["none", "ios", "android"])
        #expect(byPlatform.rows.map(\.logins) == [6, 1, 1])
        #expect(byPlatform.rows.allSatisfy { $0.carrier == nil && $0.firstFlow == nil })
        let byCarrier = stats.funnel(by: [.carrier])
        #expect(byCarrier.rows.map(\.logins) == [5, 2, 1])
        let all = stats.funnel(by: [])
        #expect(all.rows.count == 1)
        #expect([all.rows[0].logins, all.rows[0].oneTap, all.rows[0].sms, all.rows[0].unfinished] == [8, 2, 3, 1] as [Int])
        #expect(stats.funnel(topCodes: 0).rows[0].topCodes.isEmpty)
    }

    @Test func stagesAndPlansForTheReplay() throws {
        let observations = try Self.counted().observations
        let mobile = try #require(observations.stage(.mobile, .carrier(.mobile), .mobile))
        #expect(mobile.total == 5)
        #expect([mobile.count(.success), mobile.count(.next), mobile.count(.cancelled)] == [2, 2, 1] as [Int])
        #expect(mobile.times[LoginObservations.Outcome.success.rawValue].mean == (1500 + 2300) / 2)
        #expect(mobile.times[LoginObservations.Outcome.next.rawValue].mean == (1300 + 400) / 2)
        let sms = try #require(observations.stage(.mobile, .carrier(.mobile), .sms))
        #expect([sms.count(.success), sms.count(.cancelled)] == [1, 1] as [Int])
        #expect(sms.times[LoginObservations.Outcome.success.rawValue].sum == 30000 - 1300)
        let tianyi = try #require(observations.stage(.telecom, .carrier(.telecom), .tianyi))
        #expect([tianyi.count(.next), tianyi.count(.unfinished)] == [1, 1] as [Int])
        #expect(observations.stage(.unknown, .simAbsent, .sms)?.count(.success) == 1)
        #expect(observations.stage(.mobile, .carrier(.mobile), .tianyi) == nil)
        let plan = try #require(observations.plans.first { $0.carrier == .mobile })
        #expect(plan.flows == [.mobile, .sms])
        #expect([plan.logins, plan.oneTap, plan.sms, plan.cancelled, plan.reachedSMS, plan.successTimes.count] == [5, 2, 1, 2, 2, 3] as [Int])
        #expect(plan.successTimes.sum == 1500 + 30000 + 2300)
    }

    @Test func aSwitchToSMSIsToldApartFromAFallback() throws {
        let lines = [
            Self.planned("S"), Self.started("S", "mobile", at: 0), Self.result("S", "mobile", "200060", "switch", at: 900),
            Self.started("S", "sms", at: 900), Self.ended("failed", "S", "sms", at: 5000),
        ]
        let stats = try Self.counted(lines)
        #expect(stats.observations.stage(.mobile, .carrier(.mobile), .mobile)?.count(.switched) == 1)
        #expect(stats.observations.stage(.mobile, .carrier(.mobile), .sms)?.count(.failed) == 1)
        #expect(stats.funnel().rows[0].failed == 1)
    }

    @Test func aSilentLoginIsCountedUnfinishedOnceTheStreamMovesPastTheIdleLimit() throws {
        var stats = LoginStats(idleLimit: .seconds(60))
        try stats.add(Self.planned("quiet"))
        try stats.add(Self.started("quiet", "mobile", at: 0))
        #expect(stats.openLogins == 1)
        // Other logins two minutes later (two lines: the stream's clock is the second latest time of its lines): the
        // first is forgotten, as unfinished.
        try stats.add(Self.planned("later", startedAt: 120_000))
        #expect(stats.openLogins == 2, "one line alone does not move the clock")
        try stats.add(Self.planned("later-too", startedAt: 120_000))
        #expect(stats.openLogins == 2)
        #expect(stats.funnel().rows[0].unfinished == 1)
        // Its late events are of a login no longer open.
        try stats.add(Self.ended("succeeded", "quiet", "mobile", at: 121_000))
        #expect(stats.funnel().summary.orphans == 1)
        #expect(stats.funnel().rows[0].oneTap == 0)
    }

    /// Memory is bounded by the logins open at once: 20,000 logins that never end, one a second, keep
    /// no more than the idle limit's worth open.
    @Test func neverEndingLoginsDoNotAccumulate() throws {
        var stats = LoginStats(idleLimit: .seconds(100))
        var most = 0
        for index in 0..<20_000 {
            try stats.add(Self.planned("s\(index)", startedAt: Int64(index) * 1000))
            most = max(most, stats.openLogins)
        }
        #expect(most <= 127, "at most the idle limit plus a quarter of it (the sweep's period) and the line the clock lags by, one login a second")
        stats.finish()
        #expect(stats.openLogins == 0)
        #expect(stats.funnel().rows[0].unfinished == 20_000)
    }

    /// An attacker's read of the parsers: a code's meaning was cut at 256 characters, and one character may hold any
    /// number of combining marks, so `a` and 100,000 U+0301 (200 KB of UTF-8) were kept whole, for each of up to 4,092
    /// codes, and printed in tables and charts. It is cut at 256 Unicode scalars, unsafe ones replaced (a line
    /// separator among them).
    @Test func aCodesMeaningIsBoundedInScalarsAndSafeToShow() throws {
        let marks = "a" + String(repeating: "\u{301}", count: 100_000)
        let stats = try Self.counted([
            Self.planned("A"), Self.started("A", "mobile", at: 0),
            Self.result("A", "mobile", "102103", "fallback", meaning: marks, at: 100),
            Self.result("A", "mobile", "200023", "retry", meaning: "line\u{2028}forged", at: 200),
        ])
        let codes = stats.funnel().rows[0].topCodes
        let long = try #require(codes.first { $0.code == "102103" })
        #expect(long.meaning.unicodeScalars.count == 256)
        let separated = try #require(codes.first { $0.code == "200023" })
        #expect(separated.meaning == "line\u{FFFD}forged")
    }

    /// An attacker's read of the parsers: one line dated far ahead (year 9999) became the stream's clock: the next
    /// sweep counted every open login unfinished (their later events orphans), and as no line came later than it,
    /// no sweep ran again, so logins that never end piled up without bound. The clock is the second latest time of
    /// the lines: one such line, anywhere (a review of the first fix: the first line's time was taken on its word
    /// alone), changes nothing.
    @Test(arguments: [false, true])
    func oneLineDatedFarAheadNeitherEndsOpenLoginsNorStopsTheSweeps(first: Bool) throws {
        var stats = LoginStats(idleLimit: .seconds(100))
        let ahead = #"{"v":2,"area":"login","event":"progress","session":"x","carrier":"mobile","evidence":"plmn","elapsedMs":0,"at":"9999-12-31T23:59:59Z","flow":"mobile","code":"200087"}"#
        if first { try stats.add(ahead) }
        try stats.add(Self.planned("before"))
        if !first { try stats.add(ahead) }
        try stats.add(Self.started("before", "mobile", at: 1_000))
        #expect(stats.openLogins == 1)
        var most = 0
        for index in 1...2_000 {
            try stats.add(Self.planned("s\(index)", startedAt: Int64(index) * 1000))
            most = max(most, stats.openLogins)
        }
        #expect(most <= 127, "as for logins that never end in a stream without such a line")
        stats.finish()
        #expect(stats.funnel().summary.orphans == 1, "the line dated ahead alone")
        #expect(stats.funnel().rows[0].unfinished == 2_001)
    }

    /// A review of the fix: a clock that followed the earlier of two lines' times could be held back by every other
    /// line dated 1970, and then no sweep ran; lines dated before the stream's clock leave it where it is.
    @Test func linesDatedInThePastDoNotHoldTheClockBack() throws {
        var stats = LoginStats(idleLimit: .seconds(100))
        var most = 0
        for index in 1...2_000 {
            try stats.add(Self.planned("s\(index)", startedAt: Int64(index) * 1000))
            try stats.add(#"{"v":2,"area":"login","event":"progress","session":"x","carrier":"mobile","evidence":"plmn","elapsedMs":0,"at":"1970-01-01T00:00:00Z","flow":"mobile","code":"200087"}"#)
            most = max(most, stats.openLogins)
        }
        #expect(most <= 127)
    }

    /// Whatever the lines' times (here none moves the clock on: every login at one instant, an idle limit of years), at
    /// most ``LoginStats/openLimit`` logins stay open: past it the quarter silent longest counts unfinished.
    @Test func noStreamKeepsMoreLoginsOpenThanTheLimit() throws {
        var stats = LoginStats(idleLimit: .seconds(100_000_000), openLimit: 100)
        var most = 0
        for index in 0..<1_000 {
            try stats.add(Self.planned("s\(index)"))
            most = max(most, stats.openLogins)
        }
        #expect(most <= 100)
        stats.finish()
        #expect(stats.funnel().rows[0].unfinished == 1_000)
    }

    /// Platform ids are the devices' own claims: a stream of logins each naming a new one must neither
    /// make a row (and its latency histogram) per id nor look each one up among all the ids seen (the count
    /// took hours and gigabytes for a million). The first 255 distinct platforms are counted apart, every
    /// later one under `other`, and the summary says how many logins were.
    @Test(.timeLimit(.minutes(1))) func platformsPastTheLimitAreCountedTogetherUnderOther() throws {
        var stats = LoginStats()
        let logins = 1_000
        for index in 0..<logins {
            let session = "s\(index)"
            try stats.add(Self.planned(session, platform: "p\(index)"))
            try stats.add(Self.ended("succeeded", session, "mobile", at: 1500))
        }
        stats.finish()
        let funnel = stats.funnel(by: [.platform])
        #expect(funnel.rows.count == 256)
        let apart = funnel.rows.filter { $0.platform?.rawValue != "other" }
        #expect(Set(apart.map { $0.platform?.rawValue ?? "none" }) == Set((0..<255).map { "p\($0)" }))
        #expect(apart.allSatisfy { $0.logins == 1 })
        let other = try #require(funnel.rows.first { $0.platform?.rawValue == "other" })
        #expect(other.logins == logins - 255)
        #expect(funnel.summary.otherPlatformLogins == logins - 255)
        #expect(funnel.summary.logins == logins)
    }

    /// Result codes are the devices' reports too (any text): a stream naming a new one per line, with a long meaning
    /// each, grew the table of codes without bound (an attacker's read: a few thousand lines of 4 MiB kept tens of
    /// gigabytes). The first distinct codes are counted apart, every later one and every one longer than 64 bytes
    /// under `(other)`, and a meaning is kept to 256 characters.
    @Test(.timeLimit(.minutes(1))) func codesPastTheLimitAreCountedTogetherUnderOther() throws {
        var stats = LoginStats()
        try stats.add(Self.planned("s"))
        let distinct = 5_000
        let long = String(repeating: "m", count: 10_000)
        for index in 0..<distinct {
            try stats.add(Self.result("s", "mobile", "c\(index)", "fallback", meaning: long, at: 10))
        }
        try stats.add(Self.result("s", "mobile", String(repeating: "9", count: 65), "fallback", at: 10))
        try stats.add(Self.ended("succeeded", "s", "mobile", at: 20))
        stats.finish()
        let codes = try #require(stats.funnel(topCodes: 10_000).rows.first).topCodes
        let apart = 4_096 - LoginFlow.allCases.count
        #expect(codes.count == apart + 1)
        let other = try #require(codes.first { $0.code == "(other)" })
        #expect(other.count == distinct - apart + 1)
        #expect(codes.filter { $0.code != "(other)" }.allSatisfy { $0.meaning.count == 256 && $0.count == 1 })
    }

    /// A CLI attacker's read: `(other)` took the action of the second code counted under it, so a `success` code past
    /// the limit took the whole bucket (failures among it) out of the top failures. The bucket has no action: its codes
    /// are of any.
    @Test func theOtherBucketTakesNoCodesAction() throws {
        var stats = LoginStats()
        try stats.add(Self.planned("s"))
        try stats.add(Self.result("s", "mobile", String(repeating: "A", count: 65), "fallback", at: 10))
        try stats.add(Self.result("s", "mobile", String(repeating: "B", count: 65), "success", at: 11))
        try stats.add(Self.ended("succeeded", "s", "mobile", at: 20))
        stats.finish()
        let row = try #require(stats.funnel().rows.first)
        #expect(row.topCodes.map { "\($0.code) \($0.count) \($0.action.map { "\($0)" } ?? "-")" } == ["(other) 2 -"])
        #expect(row.topFailures.map(\.code) == ["(other)"], "a bucket holding a failure is among the failures")
    }

    /// A code written `(other)` in the stream gave the bucket its action, before or after the codes past the limit came
    /// (a review of the fix above): it is counted in the bucket as they are.
    @Test(arguments: [false, true]) func aCodeWrittenOtherGivesTheBucketNoAction(literalFirst: Bool) throws {
        var stats = LoginStats()
        try stats.add(Self.planned("s"))
        let literal = Self.result("s", "mobile", "(other)", "success", at: 10)
        let long = Self.result("s", "mobile", String(repeating: "A", count: 65), "fallback", at: 11)
        for line in literalFirst ? [literal, long] : [long, literal] { try stats.add(line) }
        try stats.add(Self.ended("succeeded", "s", "mobile", at: 20))
        stats.finish()
        let row = try #require(stats.funnel().rows.first)
        #expect(row.topCodes.map { "\($0.code) \($0.count) \($0.action.map { "\($0)" } ?? "-")" } == ["(other) 2 -"])
        #expect(row.topFailures.map(\.code) == ["(other)"])
    }

    /// Codes counted as often, of the same text in two flows (`1` is Tianyi's and Unicom's), rank in one order every run
    /// (a CLI attacker's read: the tie fell to the dictionary's order, seeded per process).
    @Test func tiedCodesRankByFlowToo() throws {
        var first: [String]? = nil
        for _ in 0..<20 {
            var stats = LoginStats()
            try stats.add(Self.planned("s"))
            for flow in ["unicom", "tianyi", "unicom", "tianyi"] { try stats.add(Self.result("s", flow, "1", "fallback", at: 10)) }
            try stats.add(Self.ended("failed", "s", "sms", at: 20))
            stats.finish()
            let ranked = try #require(stats.funnel().rows.first).topCodes.map { "\($0.flow) \($0.code)" }
            #expect(ranked == ["tianyi 1", "unicom 1"])
            if let first { #expect(ranked == first) } else { first = ranked }
        }
    }

    /// An idle limit past what milliseconds in an `Int64` hold trapped on its product; it is the longest one.
    @Test(arguments: [Duration.seconds(Int64.max), .seconds(Int64.max / 10), .seconds(-Int64.max)])
    func anIdleLimitOfAnyLengthIsTaken(_ limit: Duration) throws {
        var stats = LoginStats(idleLimit: limit)
        try stats.add(Self.planned("A"))
        // An instant before 1970 is refused (so the sweep's cutoff stays within an Int64 whatever the limit).
        #expect(throws: LoginStats.LineError.self) { try stats.add(Self.planned("B", startedAt: -Self.start - 1000)) }
        stats.finish()
        #expect(stats.funnel().summary.logins == 1)
    }

    @Test func aPlanRepeatedForTheSameSessionEndsTheFirstAsUnfinished() throws {
        let stats = try Self.counted([Self.planned("R"), Self.planned("R", startedAt: 10), Self.ended("cancelled", "R", nil, at: 20)])
        let row = try #require(stats.funnel().rows.first)
        #expect([row.logins, row.unfinished, row.cancelled] == [2, 1, 1] as [Int])
    }

    @Test(arguments: [
        (#"{"v":1,"at":"2026-12-01T08:00:00.000Z","area":"login","event":"planned","plan":{}}"#, "a login event of schema version 1, which has no session, carrier or elapsedMs; this onetap reads version 2"),
        (#"{"v":3,"area":"login","event":"planned"}"#, "schema version 3 is newer than this onetap reads (2)"),
        (#"{"v":0,"area":"login"}"#, "'v' is 0; the schema's versions start at 1"),
        (#"{"area":"login","event":"planned"}"#, "no 'v': not a line of the OneTap event schema"),
        (#"{"v":2,"event":"planned"}"#, "no 'area': an event names its area (login, token, sms)"),
        (#"{"v":2,"area":"login"}"#, "no 'event': a login event names its kind"),
        (#"{"v":2,"area":"login","event":"planned","at":"2026-12-01T08:00:00Z"}"#, "no 'session': a login event names its login session"),
        (#"{"v":2,"area":"login","event":"planned","session":"has space","at":"2026-12-01T08:00:00Z"}"#, #"key 'session': "has space" is no session id (1 to 32 printable ASCII characters)"#),
        (#"{"v":2,"area":"login","event":"planned","session":"","at":"2026-12-01T08:00:00Z"}"#, #"key 'session': "" is no session id (1 to 32 printable ASCII characters)"#),
        (#"{"v":2,"area":"login","event":"planned","session":"s"}"#, "no 'at': every event has its time"),
        (#"{"v":2,"area":"login","event":"planned","session":"s","at":"yesterday"}"#, #"key 'at': "yesterday" is no ISO 8601 instant (2026-12-01T08:00:01.250Z)"#),
        (#"{"v":2,"area":"login","event":"planned","session":"s","at":"2026-12-01T08:00:00Z"}"#, "no 'carrier': a planned event names the plan's carrier"),
        (#"{"v":2,"area":"login","event":"planned","session":"s","at":"2026-12-01T08:00:00Z","carrier":"mobil"}"#, #"key 'carrier': unknown carrier "mobil"; the carriers are mobile, unicom, telecom, tietong, broadnet, other, unknown"#),
        (#"{"v":2,"area":"login","event":"planned","session":"s","at":"2026-12-01T08:00:00Z","carrier":"mobile","evidence":"dns"}"#, #"key 'evidence': unknown evidence "dns"; the evidence is plmn, ipv6, phone-number, none"#),
        (#"{"v":2,"area":"login","event":"planned","session":"s","at":"2026-12-01T08:00:00Z","carrier":"mobile"}"#, "no 'condition': a planned event names the policy's condition"),
        (#"{"v":2,"area":"login","event":"planned","session":"s","at":"2026-12-01T08:00:00Z","carrier":"mobile","condition":"carrier:mars"}"#, #"key 'condition': unknown condition "carrier:mars"; the conditions are sim-absent, sim-not-ready, no-network, mobile-data-off, cellular-restricted, virtual-operator, carrier:mobile, carrier:unicom, carrier:telecom, carrier:tietong, carrier:broadnet, carrier:other, carrier:unknown"#),
        (#"{"v":2,"area":"login","event":"planned","session":"s","at":"2026-12-01T08:00:00Z","carrier":"mobile","condition":"carrier:mobile"}"#, "no 'flows': a planned event lists the plan's flows"),
        (#"{"v":2,"area":"login","event":"planned","session":"s","at":"2026-12-01T08:00:00Z","carrier":"mobile","condition":"carrier:mobile","flows":["mobile"]}"#, "key 'flows': the last flow must be sms (SMS login is always the last resort)"),
        (#"{"v":2,"area":"login","event":"planned","session":"s","at":"2026-12-01T08:00:00Z","carrier":"mobile","condition":"carrier:mobile","flows":["sms","sms"]}"#, "key 'flows': a flow appears twice"),
        (#"{"v":2,"area":"login","event":"planned","session":"s","at":"2026-12-01T08:00:00Z","carrier":"mobile","condition":"carrier:mobile","flows":[]}"#, "key 'flows': no flows; a plan ends with sms"),
        (#"{"v":2,"area":"login","event":"planned","session":"s","at":"2026-12-01T08:00:00Z","carrier":"mobile","condition":"carrier:mobile","flows":["sms"],"platform":"i os"}"#, #"key 'platform': invalid platform "i os": a space at position 2 is not allowed (a platform id is ASCII letters, digits and -)"#),
        ("{oops", "not JSON: a member name (a string) expected at byte 2"),
    ])
    func refusedLinesNameTheKeyAndWhy(line: String, message: String) {
        var stats = LoginStats()
        #expect {
            try stats.add(line)
        } throws: { error in
            (error as? LoginStats.LineError)?.message == message
        }
        #expect(stats.funnel().summary.malformed == 1)
        #expect(stats.funnel().summary.logins == 0)
    }

    @Test(arguments: [
        (Self.started("A", "mobile", at: 0).replacingOccurrences(of: #","attempt":1"#, with: ""), "no 'attempt': a flow-started event has its attempt"),
        (Self.started("A", "mobile", at: 0).replacingOccurrences(of: #""attempt":1"#, with: #""attempt":0"#), "key 'attempt': attempts start at 1, not 0"),
        (Self.started("A", "wechat", at: 0), #"key 'flow': unknown flow "wechat"; the flows are mobile, tianyi, unicom, sms"#),
        (Self.started("A", "mobile", at: 0).replacingOccurrences(of: #""elapsedMs":0,"#, with: ""), "no 'elapsedMs': the event has the milliseconds since its login started"),
        (Self.started("A", "mobile", at: 0).replacingOccurrences(of: #""elapsedMs":0"#, with: #""elapsedMs":-5"#), "key 'elapsedMs': -5 is negative"),
        (Self.result("A", "mobile", "103000", "win", at: 5), #"key 'action': unknown action "win"; the actions are success, cancelled, fallback, retry, switch, failed, misconfigured, progress"#),
        (Self.result("A", "mobile", "", "success", at: 5), "no 'code': a result has its code"),
        (Self.line("alert", "A", elapsed: 5, #","flow":"mobile""#), "no 'code': an alert has its code"),
        (Self.line("succeeded", "A", elapsed: 5), "no 'flow': the event names its flow"),
    ])
    func refusedEventsOfAnOpenLogin(line: String, message: String) throws {
        var stats = LoginStats()
        try stats.add(Self.planned("A"))
        #expect {
            try stats.add(line)
        } throws: { error in
            (error as? LoginStats.LineError)?.message == message
        }
        #expect(stats.openLogins == 1, "a refused line changes nothing")
    }

    @Test func blankLinesAreSkippedAndTheCountGoesOnAfterAMalformedOne() throws {
        var stats = LoginStats()
        try stats.add("")
        try stats.add("  \t\r")
        #expect(throws: LoginStats.LineError.self) { try stats.add("not json") }
        stats.skipLine()
        for line in Self.stream { try stats.add(line) }
        stats.finish()
        let funnel = stats.funnel()
        #expect(funnel.summary.malformed == 2)
        #expect(funnel.summary.lines == Self.stream.count + 2)
        #expect(funnel.summary.logins == 8)
    }

    @Test func unknownLoginEventKindsAreSkippedForLaterVersionsOfTheSameSchema() throws {
        var stats = LoginStats()
        try stats.add(Self.planned("A"))
        try stats.add(Self.line("captcha-shown", "A", elapsed: 3))
        #expect(stats.funnel().summary.ignored == 1)
        #expect(stats.funnel().summary.malformed == 0)
    }

    @Test func codesWithEscapesAndLongSessionsAreCountedAsWritten() throws {
        let session = String(repeating: "s", count: 32)
        let lines = [
            Self.planned(session), Self.started(session, "mobile", at: 0),
            Self.result(session, "mobile", #"\u0031\u0030\u0033\u0030\u0030\u0030"#, "success", meaning: #"a \"quoted\" meaning"#, at: 10),
            Self.result(session, "mobile", "103000", "success", at: 11),
            Self.ended("succeeded", session, "mobile", at: 12),
        ]
        let row = try #require(try Self.counted(lines).funnel().rows.first)
        #expect(row.topCodes.map(\.code) == ["103000"])
        #expect(row.topCodes.first?.count == 2)
        #expect(row.topCodes.first?.meaning == "a \"quoted\" meaning")
        var stats = LoginStats()
        #expect(throws: LoginStats.LineError.self) { try stats.add(Self.planned(session + "s")) }
    }

    /// The library's own events read back: a real session's lines count as the session went.
    @Test func theSessionMachinesEventsReadBack() throws {
        let machine = LoginSessionMachine()
        let at = Date(timeIntervalSince1970: 1_796_112_000)
        let id = try LoginSessionID("Session-ID-for-tests_0")
        var transition = machine.start(DeviceSnapshot(sim: .present, plmn: try PLMN("46011"), platform: .android), at: at, id: id)
        var lines: [String] = []
        func record(_ transition: LoginTransition, _ instant: Date) throws {
            for event in transition.events {
                lines.append(Line(event: event, context: transition.context, at: instant).json)
            }
        }
        try record(transition, at)
        let steps: [(Double, LoginReport)] = [(3, .result(.tianyi, code: "80000")), (6, .timeout(.tianyi)), (30, .smsVerified(SMSVerdict(phoneNumber: try PhoneNumber("13800138000"), session: id, verifiedAt: at)))]
        for (seconds, report) in steps {
            transition = try machine.advance(transition.session, report, at: at.addingTimeInterval(seconds))
            try record(transition, at.addingTimeInterval(seconds))
        }
        let stats = try Self.counted(lines)
        let row = try #require(stats.funnel(by: [.carrier, .firstFlow, .platform]).rows.first)
        #expect(row.carrier == .telecom)
        #expect(row.firstFlow == .tianyi)
        #expect(row.platform == .android)
        #expect([row.logins, row.sms] == [1, 1] as [Int])
        #expect(Self.near(row.successP50, 30000))
        #expect(row.topFailures.map(\.code) == ["80000", "timeout"])
        #expect(stats.observations.stage(.telecom, .carrier(.telecom), .tianyi)?.count(.next) == 1)
    }

    /// A login event as the event schema's line writes it (`OneTapEvent` lives in `OneTap`).
    struct Line {
        let event: LoginEvent
        let context: LoginContext
        let at: Date

        var json: String {
            var writer = JSONWriter()
            writer.object { writer in
                writer.key("v")
                writer.int(2)
                writer.key("at")
                writer.string(at.iso8601)
                writer.key("area")
                writer.string("login")
                event.writeMembers(to: &writer, context: context, at: at)
            }
            return writer.text
        }
    }
}
