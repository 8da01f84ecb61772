import Foundation
import Testing
@testable import OneTapCore

/// The SMS policy: the defaults the issue fixes (written here, not read from the table), every rule on
/// both sides of its boundary to the second, roll-over, a clock that goes back, and bad rows.
@Suite struct SMSPolicyTests {
    static let t0 = Date(timeIntervalSince1970: 1_796_090_400)  // 2026-12-01T02:00:00Z

    /// One expected default: what the issue asks for.
    struct Expected: Sendable, CustomTestStringConvertible {
        let id: String
        let key: SMSPolicy.Key
        let counts: SMSPolicy.Counts
        let window: Int64
        let limit: Int
        let over: SMSPolicy.Over
        let lock: Int64?
        var testDescription: String { id }
    }

    /// Issue 21: the number's own limits per login session, across sessions only captchas and caps (8 a lane:
    /// a returning owner's sends apart, under the gateways' 10 in all); /56, /48 and global rules; guessing slowed per
    /// session, address and device; a number guessed from three sessions asks for a captcha; at most 80 wrong codes a
    /// day; no lock. Past 1,000 wrong codes an hour in all, a captcha (an attacker's read).
    static let defaults: [Expected] = [
        Expected(id: "number-minute", key: .numberSession, counts: .sends, window: 60, limit: 1, over: .limit, lock: nil),
        Expected(id: "number-hour", key: .numberSession, counts: .sends, window: 3600, limit: 5, over: .limit, lock: nil),
        Expected(id: "number-day", key: .numberSession, counts: .sends, window: 86_400, limit: 10, over: .limit, lock: nil),
        Expected(id: "number-captcha", key: .numberLane, counts: .sends, window: 3600, limit: 3, over: .captcha, lock: nil),
        Expected(id: "number-day-captcha", key: .numberLane, counts: .sends, window: 86_400, limit: 3, over: .captcha, lock: nil),
        Expected(id: "number-day-cap", key: .numberLane, counts: .sends, window: 86_400, limit: 8, over: .limit, lock: nil),
        Expected(id: "number-day-total", key: .number, counts: .sends, window: 86_400, limit: 10, over: .limit, lock: nil),
        Expected(id: "ip-captcha", key: .ip, counts: .sends, window: 3600, limit: 1, over: .captcha, lock: nil),
        Expected(id: "ip56-captcha", key: .ip56, counts: .sends, window: 3600, limit: 5, over: .captcha, lock: nil),
        Expected(id: "ip48-captcha", key: .ip48, counts: .sends, window: 3600, limit: 20, over: .captcha, lock: nil),
        Expected(id: "device-day", key: .device, counts: .sends, window: 86_400, limit: 10, over: .captcha, lock: nil),
        Expected(id: "global-minute", key: .globalLane, counts: .sends, window: 60, limit: 300, over: .captcha, lock: nil),
        Expected(id: "global-hour-captcha", key: .globalLane, counts: .sends, window: 3600, limit: 4000, over: .captcha, lock: nil),
        Expected(id: "global-hour", key: .globalLane, counts: .sends, window: 3600, limit: 6000, over: .limit, lock: nil),
        Expected(id: "captcha-rejects", key: .ip, counts: .rejectedCaptchas, window: 3600, limit: 10, over: .delay, lock: 60),
        Expected(id: "session-guesses", key: .numberSession, counts: .failedVerifies, window: 86_400, limit: 5, over: .delay, lock: 900),
        Expected(id: "ip-guesses", key: .ip, counts: .failedVerifies, window: 3600, limit: 10, over: .captcha, lock: nil),
        Expected(id: "device-guesses", key: .device, counts: .failedVerifies, window: 3600, limit: 10, over: .captcha, lock: nil),
        Expected(id: "number-sources", key: .number, counts: .failedVerifySessions, window: 3600, limit: 3, over: .captcha, lock: nil),
        Expected(id: "number-guesses", key: .number, counts: .failedVerifies, window: 86_400, limit: 60, over: .singleTry, lock: nil),
        Expected(id: "global-guesses", key: .global, counts: .failedVerifies, window: 3600, limit: 1000, over: .captcha, lock: nil),
    ]

    @Test func theBuiltInPolicyIsTheIssuesDefaults() {
        let rules = SMSPolicy.builtIn.rules
        #expect(rules.map(\.id) == Self.defaults.map(\.id))
        for (rule, expected) in zip(rules, Self.defaults) {
            #expect(rule.key == expected.key && rule.counts == expected.counts && rule.limit == expected.limit && rule.over == expected.over, "\(rule)")
            #expect(rule.window == .seconds(expected.window), "\(rule)")
            #expect(rule.lock == expected.lock.map { .seconds($0) }, "\(rule)")
            #expect(!rule.source.isEmpty)
        }
    }

    /// The request whose key the rule counts, and the counter under test.
    static func subject(_ expected: Expected) -> (SMSPolicy.Request, SMSPolicy.Counter) {
        let request = SMSPolicy.Request(
            number: "13800138000", ip: "2001:db8:1:2::/64", ip56: "2001:db8:1:200::/56", ip48: "2001:db8:1::/48", device: "device-1", session: "s")
        let value = switch expected.key {
        case .number, .numberLane: "13800138000"  // the number's lane: no returning owner here
        case .numberSession: "13800138000/s"
        case .ip: "2001:db8:1:2::/64"
        case .ip56: "2001:db8:1:200::/56"
        case .ip48: "2001:db8:1::/48"
        case .device: "device-1"
        case .session: "s"
        case .global, .globalLane: "all"  // everyone's lane: no returning owner here
        }
        return (request, SMSPolicy.Counter(counts: expected.counts, key: expected.key, value: value))
    }

    /// A policy of one rule, written from the expectation.
    static func alone(_ expected: Expected) throws -> SMSPolicy {
        let row = "\(expected.id),\(expected.key),\(expected.counts),\(expected.window),\(expected.limit),\(expected.over),\(expected.lock.map(String.init) ?? ""),test"
        return try SMSPolicy(csv: "rule,key,counts,window_seconds,limit,over,lock_seconds,source\n\(row)\n", file: "alone.csv")
    }

    static let sendLimits = defaults.filter { $0.counts == .sends && $0.over == .limit }

    /// `limit` sends one second apart fill the window; the next is refused until the first leaves it,
    /// at exactly first + window, and admitted then.
    @Test(arguments: sendLimits)
    func aHardLimitHoldsUntilTheOldestSendLeavesTheWindow(_ expected: Expected) throws {
        // The rule alone, so a shorter rule on the same key does not answer first.
        let policy = try Self.alone(expected)
        let (request, counter) = Self.subject(expected)
        // One a second, or closer when the limit is more than half the window's seconds (global-hour).
        let step = min(1, Double(expected.window) / Double(expected.limit) / 2)
        let sends = (0..<expected.limit).map { Self.t0.addingTimeInterval(Double($0) * step) }
        let last = sends.last!
        // One fewer than the limit: admitted (with a captcha, so the captcha rule stays out of it).
        let under = policy.decideSend(request, events: [counter: Array(sends.dropLast())], captchaPassed: true, at: last)
        #expect(under.isAdmit, "\(under)")
        let leaves = Self.t0.addingTimeInterval(Double(expected.window))
        for now in [last, leaves.addingTimeInterval(-1), leaves.addingTimeInterval(-0.001)] {
            #expect(policy.decideSend(request, events: [counter: sends], captchaPassed: true, at: now) == .limited(rule: expected.id, retryAfter: leaves))
        }
        // The captcha does not pass a hard limit, and neither does its absence change the rule that answers.
        #expect(policy.decideSend(request, events: [counter: sends], captchaPassed: false, at: last) == .limited(rule: expected.id, retryAfter: leaves))
        #expect(policy.decideSend(request, events: [counter: sends], captchaPassed: true, at: leaves).isAdmit)
    }

    @Test func theCaptchaRuleAsksOnTheSecondSendFromAnAddressWithinAnHour() {
        let policy = SMSPolicy.builtIn
        let request = SMSPolicy.Request(number: "13800138000", ip: "203.0.113.7", ip56: "203.0.113.7", ip48: "203.0.113.7")
        let counter = SMSPolicy.Counter(counts: .sends, key: .ip, value: "203.0.113.7")
        #expect(policy.decideSend(request, events: [:], captchaPassed: false, at: Self.t0).isAdmit)
        let held = [counter: [Self.t0]]
        #expect(policy.decideSend(request, events: held, captchaPassed: false, at: Self.t0.addingTimeInterval(3599)) == .captcha(rule: "ip-captcha", freesAt: Self.t0.addingTimeInterval(3600)))
        #expect(policy.decideSend(request, events: held, captchaPassed: true, at: Self.t0.addingTimeInterval(3599)).isAdmit)
        #expect(policy.decideSend(request, events: held, captchaPassed: false, at: Self.t0.addingTimeInterval(3600)).isAdmit)
        // A request with no address counts in the shared "(not given)" bucket (issue 21: limits fail closed).
        let unknown = [SMSPolicy.Counter(counts: .sends, key: .ip, value: "(not given)"): [Self.t0]]
        #expect(policy.decideSend(SMSPolicy.Request(number: "13800138000"), events: unknown, captchaPassed: false, at: Self.t0) == .captcha(rule: "ip-captcha", freesAt: Self.t0.addingTimeInterval(3600)))
        #expect(policy.decideSend(SMSPolicy.Request(number: "13800138000"), events: held, captchaPassed: false, at: Self.t0).isAdmit)
    }

    /// An attacker's read: strangers who solve no captcha, each from an address, device, session and number of
    /// their own, sending 4 a second (under global-minute's 300 a minute), must never fill a hard limit every
    /// requester shares: the owner's send afterwards asks for a captcha at most, and with it goes through.
    @Test func strangersWhoSolveNoCaptchaCannotFillTheGlobalHourlyCap() {
        let policy = SMSPolicy.builtIn
        let global = SMSPolicy.Counter(counts: .sends, key: .globalLane, value: "all")
        var admitted: [Date] = []
        for second in 0..<(30 * 60) {
            for quarter in 0..<4 {
                let now = Self.t0.addingTimeInterval(Double(second) + Double(quarter) / 4)
                let index = second * 4 + quarter
                let stranger = SMSPolicy.Request(
                    number: "139\(String(format: "%08d", index))", ip: "198.51.\(index / 256 % 256).\(index % 256)", ip56: "x\(index)", ip48: "y\(index)",
                    device: "d\(index)", session: "s\(index)")
                if policy.decideSend(stranger, events: [global: admitted], captchaPassed: false, at: now).isAdmit { admitted.append(now) }
            }
        }
        let later = Self.t0.addingTimeInterval(30 * 60)
        let owner = SMSPolicy.Request(number: "13800138000", ip: "203.0.113.7", ip56: "203.0.113.7", ip48: "203.0.113.7", device: "own", session: "own")
        let withoutCaptcha = policy.decideSend(owner, events: [global: admitted], captchaPassed: false, at: later)
        var askedForTheGlobalCaptcha = false
        if case .captcha(rule: "global-hour-captcha", _) = withoutCaptcha { askedForTheGlobalCaptcha = true }
        #expect(withoutCaptcha.isAdmit || askedForTheGlobalCaptcha, "\(withoutCaptcha) after \(admitted.count) sends")
        #expect(policy.decideSend(owner, events: [global: admitted], captchaPassed: true, at: later).isAdmit)
    }

    /// The shipped table keeps the rule its header states: a hard limit (or lock) on a key every requester shares
    /// with the owner (the number across sessions, a lane of it, every request, a lane of them) has a captcha rule on the same counts
    /// over a window at least as long that stops captcha-free sends below it, so only a stranger who solves captchas
    /// can reach it: on the same key, or, for the number, on its lane, whose two lanes (the returning owner's and
    /// everyone else's) each send up to the captcha's limit free.
    @Test func everyHardLimitOnASharedKeyHasACaptchaRuleBelowIt() {
        let rules = SMSPolicy.builtIn.rules
        for rule in rules where (rule.over == .limit || rule.over == .lock) && [.number, .numberLane, .global, .globalLane].contains(rule.key) {
            #expect(rules.contains { captcha in
                guard captcha.over == .captcha, captcha.counts == rule.counts, captcha.window >= rule.window else { return false }
                if captcha.key == rule.key { return captcha.limit < rule.limit }
                return rule.key == .number && captcha.key == .numberLane && 2 * captcha.limit < rule.limit
            }, "\(rule.id)")
        }
    }

    /// The default has no lock (a lock on a number locks its owner out); a policy of an earlier version
    /// with one still locks as it did.
    @Test func aLockRuleOfAnEarlierPolicyStillLocksButTheDefaultHasNone() throws {
        #expect(!SMSPolicy.builtIn.rules.contains { $0.over == .lock })
        let policy = try SMSPolicy(
            csv: "rule,key,counts,window_seconds,limit,over,lock_seconds,source\nnumber-guesses,number,failed-verifies,86400,10,lock,86400,before issue 21\n",
            file: "before-21.csv")
        let request = SMSPolicy.Request(number: "13800138000")
        let counter = SMSPolicy.Counter(counts: .failedVerifies, key: .number, value: "13800138000")
        let wrong = (0..<10).map { Self.t0.addingTimeInterval(Double($0) * 600) }
        let tenth = wrong[9]
        #expect(policy.lock(request, events: [counter: Array(wrong.prefix(9))], at: tenth) == nil)
        let lock = try #require(policy.lock(request, events: [counter: wrong], at: tenth))
        #expect(lock.rule == "number-guesses" && lock.until == tenth.addingTimeInterval(86_400))
        #expect(policy.lock(request, events: [counter: wrong], at: tenth.addingTimeInterval(86_399))?.until == tenth.addingTimeInterval(86_400))
        #expect(policy.lock(request, events: [counter: wrong], at: tenth.addingTimeInterval(86_400)) == nil)
        // A lock also stops sends to the number.
        #expect(policy.decideSend(request, events: [counter: wrong], captchaPassed: true, at: tenth) == .limited(rule: "number-guesses", retryAfter: tenth.addingTimeInterval(86_400)))
        // Ten wrong codes spread over more than a day never lock.
        let spread = (0..<10).map { Self.t0.addingTimeInterval(Double($0) * 9_600) }  // the tenth 86,400 s after the first
        #expect(policy.lock(request, events: [counter: spread], at: spread[9]) == nil)
    }

    @Test func theHourlyWindowRollsOverOneSendAtATime() {
        let policy = SMSPolicy.builtIn
        let request = SMSPolicy.Request(number: "13800138000")
        let counter = SMSPolicy.Counter(counts: .sends, key: .numberSession, value: "13800138000/(not given)")
        let sends = (0..<5).map { Self.t0.addingTimeInterval(Double($0) * 600) }   // 02:00, 02:10, … 02:40
        #expect(policy.decideSend(request, events: [counter: sends], captchaPassed: true, at: Self.t0.addingTimeInterval(3599))
            == .limited(rule: "number-hour", retryAfter: Self.t0.addingTimeInterval(3600)))
        #expect(policy.decideSend(request, events: [counter: sends], captchaPassed: true, at: Self.t0.addingTimeInterval(3600)).isAdmit)
        // Once 03:00 is admitted, the window holds 02:10 … 03:00: the next room comes when 02:10 leaves, at 03:10.
        let rolled = Array(sends.dropFirst()) + [Self.t0.addingTimeInterval(3600)]
        #expect(policy.decideSend(request, events: [counter: rolled], captchaPassed: true, at: Self.t0.addingTimeInterval(3660))
            == .limited(rule: "number-hour", retryAfter: Self.t0.addingTimeInterval(4200)))
    }

    @Test func aClockThatGoesBackNeverReleasesALimit() {
        let policy = SMSPolicy.builtIn
        let request = SMSPolicy.Request(number: "13800138000")
        let counter = SMSPolicy.Counter(counts: .sends, key: .numberSession, value: "13800138000/(not given)")
        // A send stamped at 02:10 by another instance; this one's clock reads 02:00.
        let future = Self.t0.addingTimeInterval(600)
        #expect(policy.decideSend(request, events: [counter: [future]], captchaPassed: true, at: Self.t0)
            == .limited(rule: "number-minute", retryAfter: future.addingTimeInterval(60)))
    }

    @Test func resendAfterIsWhenTheNextSendWouldBeAdmitted() {
        let policy = SMSPolicy.builtIn
        let request = SMSPolicy.Request(number: "13800138000", ip: "203.0.113.7", device: "d")
        #expect(policy.decideSend(request, events: [:], captchaPassed: false, at: Self.t0) == .admit(resendAfter: Self.t0.addingTimeInterval(60)))
        // With four sends in the hour, the fifth's next room is when the first leaves the hour.
        let counter = SMSPolicy.Counter(counts: .sends, key: .numberSession, value: "13800138000/(not given)")
        let four = (0..<4).map { Self.t0.addingTimeInterval(Double($0) * 120) }
        let now = Self.t0.addingTimeInterval(600)
        #expect(policy.decideSend(request, events: [counter: four], captchaPassed: true, at: now) == .admit(resendAfter: Self.t0.addingTimeInterval(3600)))
    }

    @Test func keepDropsWhatNoRuleCanCountAnyMore() {
        let policy = SMSPolicy.builtIn
        let counter = SMSPolicy.Counter(counts: .sends, key: .ip, value: "203.0.113.7")
        let events = [Self.t0, Self.t0.addingTimeInterval(3600)]
        #expect(policy.keep(counter, events, at: Self.t0.addingTimeInterval(3600)) == [Self.t0.addingTimeInterval(3600)])
        let guesses = SMSPolicy.Counter(counts: .failedVerifies, key: .number, value: "13800138000")
        // The daily bound keeps its events for its day.
        #expect(policy.keep(guesses, [Self.t0], at: Self.t0.addingTimeInterval(86_399)) == [Self.t0])
        #expect(policy.keep(guesses, [Self.t0], at: Self.t0.addingTimeInterval(86_400)) == [])
        // A delay rule keeps its events for its window and its longest wait.
        let session = SMSPolicy.Counter(counts: .failedVerifies, key: .numberSession, value: "13800138000/s")
        #expect(policy.keep(session, [Self.t0], at: Self.t0.addingTimeInterval(87_299)) == [Self.t0])
        #expect(policy.keep(session, [Self.t0], at: Self.t0.addingTimeInterval(87_300)) == [])
    }

    /// Keys and counts hash and compare by case (not by their text), so every counter of a request is
    /// its own; a request's number-session value follows its number and session when either changes.
    /// A device id counts at its address's block (a claim: a stranger who knows it counts at the stranger's own).
    @Test func aDeviceCountsAtItsAddress() {
        #expect(SMSPolicy.Request(number: "13800138000", ip: "203.0.113.7", device: "d1").value(for: .device) == "d1 at 203.0.113.7")
        #expect(SMSPolicy.Request(number: "13800138000", ip: "2409:8900:1:2::/64", device: "d1").value(for: .device) == "d1 at 2409:8900:1:2::/64")
        #expect(SMSPolicy.Request(number: "13800138000", device: "d1").value(for: .device) == "d1 at (not given)")
        #expect(SMSPolicy.Request(number: "13800138000", ip: "203.0.113.7").value(for: .device) == "(not given) at 203.0.113.7")
        #expect(SMSPolicy.Request(number: "13800138000").value(for: .device) == "(not given) at (not given)")
    }

    /// A returning owner's sends count apart from everyone else's on the `number-lane` and `global-lane` keys only: its
    /// number, its number-session, every request, and every other key are the same as any sender's.
    @Test func aReturningOwnersLaneIsItsOwnOnTheLaneKeysOnly() {
        var owner = SMSPolicy.Request(number: "13800138000", ip: "203.0.113.7", session: "s")
        let anyone = owner
        owner.returningOwner = true
        #expect(anyone.value(for: .numberLane) == "13800138000")
        #expect(owner.value(for: .numberLane) == "13800138000 (returning owner)")
        #expect(anyone.value(for: .globalLane) == "all")
        #expect(owner.value(for: .globalLane) == "all (returning owner)")
        for key in SMSPolicy.Key.allCases where key != .numberLane && key != .globalLane {
            #expect(owner.value(for: key) == anyone.value(for: key), "\(key)")
        }
        // A table may count only sends per number-lane or global-lane: wrong codes and captchas have no lane.
        for key in ["number-lane", "global-lane"] {
            for counts in ["failed-verifies", "failed-verify-sessions", "rejected-captchas"] {
                let row = "r,\(key),\(counts),60,1,\(counts == "rejected-captchas" ? "delay,60" : "captcha,"),test"
                let error = #expect(throws: TableError.self) { try SMSPolicy(csv: "rule,key,counts,window_seconds,limit,over,lock_seconds,source\n\(row)\n", file: "t.csv") }
                #expect(error?.column == "key", "\(key) \(counts): \(String(describing: error))")
            }
        }
    }

    @Test func countersAndRequestKeysStayApart() {
        #expect(SMSPolicy.Key.allCases.map(\.position) == Array(0..<10))
        #expect(SMSPolicy.Counts.allCases.map(\.position) == Array(0..<4))
        var counters: Set<SMSPolicy.Counter> = []
        for counts in SMSPolicy.Counts.allCases {
            for key in SMSPolicy.Key.allCases {
                counters.insert(SMSPolicy.Counter(counts: counts, key: key, value: "13800138000"))
            }
        }
        #expect(counters.count == 40)
        #expect(counters.contains(SMSPolicy.Counter(counts: .failedVerifies, key: .device, value: "13800138000")))
        #expect(!counters.contains(SMSPolicy.Counter(counts: .failedVerifies, key: .device, value: "13800138001")))
        #expect(SMSPolicy.Key.ip56 == SMSPolicy.Key(rawValue: "ip56") && SMSPolicy.Key.ip56 != .ip48)
        var request = SMSPolicy.Request(number: "13800138000")
        #expect(request.value(for: .numberSession) == "13800138000/(not given)")
        request.session = "s1"
        #expect(request.value(for: .numberSession) == "13800138000/s1")
        request.number = "13900139000"
        #expect(request.value(for: .numberSession) == "13900139000/s1")
        #expect(request == SMSPolicy.Request(number: "13900139000", session: "s1"))
    }

    struct BadRow: Sendable, CustomTestStringConvertible {
        let row: String
        let message: String
        var testDescription: String { message }
    }

    static let badRows: [BadRow] = [
        BadRow(row: "a b,number,sends,60,1,limit,,x", message: "column 'rule': \"a b\" is not a rule id (letters, digits and hyphens)"),
        BadRow(row: "r,phone,sends,60,1,limit,,x", message: "phone"),
        BadRow(row: "r,number,texts,60,1,limit,,x", message: "texts"),
        BadRow(row: "r,number,sends,0,1,limit,,x", message: "column 'window_seconds': \"0\" is not 1 to 31536000 whole seconds"),
        BadRow(row: "r,number,sends,1.5,1,limit,,x", message: "column 'window_seconds': \"1.5\" is not 1 to 31536000 whole seconds"),
        BadRow(row: "r,number,sends,60,0,limit,,x", message: "column 'limit': \"0\" is not a limit from 1 to 100000"),
        BadRow(row: "r,number,sends,60,-1,limit,,x", message: "column 'limit': \"-1\" is not a limit from 1 to 100000"),
        BadRow(row: "r,number,sends,60,1,block,,x", message: "block"),
        // Rejected captchas only delay, and only the requester's own keys: a limit, or the number's, would let a
        // neighbour or a stranger lock others out of every captcha.
        BadRow(row: "r,ip,rejected-captchas,3600,10,limit,,x", message: "column 'over': a rule on rejected captchas delays"),
        BadRow(row: "r,number,rejected-captchas,3600,10,delay,60,x", message: "column 'key': a rule on rejected captchas delays"),
        BadRow(row: "r,global,rejected-captchas,3600,10,delay,60,x", message: "column 'key': a rule on rejected captchas delays"),
        BadRow(row: "r,number,failed-verifies,60,1,lock,,x", message: "column 'lock_seconds': a lock rule needs its lock time in seconds"),
        BadRow(row: "r,number,sends,60,1,limit,60,x", message: "column 'lock_seconds': only a lock or delay rule has a time in lock_seconds"),
        BadRow(row: "r,number,failed-verifies,60,1,delay,,x", message: "column 'lock_seconds': a delay rule needs its longest wait in seconds"),
        BadRow(row: "r,number,sends,60,1,delay,60,x", message: "column 'over': delay slows or steps up verifies"),
        BadRow(row: "r,number,sends,60,1,single-try,,x", message: "column 'over': single-try slows or steps up verifies"),
    ]

    @Test(arguments: badRows)
    func aBadRowIsRefusedWithItsFileAndLine(_ bad: BadRow) {
        let text = "rule,key,counts,window_seconds,limit,over,lock_seconds,source\nok,number,sends,60,1,limit,,fine\n\(bad.row)\n"
        let error = #expect(throws: TableError.self) { try SMSPolicy(csv: text, file: "policy.csv") }
        #expect(error?.line == 3, "\(String(describing: error))")
        #expect(error.map { "\($0)".contains("policy.csv:3") && "\($0)".contains(bad.message) } == true, "\(String(describing: error))")
    }

    @Test func aDuplicateRuleAndAnEmptyPolicyAreRefused() {
        let header = "rule,key,counts,window_seconds,limit,over,lock_seconds,source\n"
        let duplicate = #expect(throws: TableError.self) {
            try SMSPolicy(csv: header + "r,number,sends,60,1,limit,,x\nr,ip,sends,60,1,limit,,y\n", file: "p.csv")
        }
        #expect(duplicate?.kind == .duplicateKey && duplicate?.line == 3)
        let empty = #expect(throws: TableError.self) { try SMSPolicy(csv: header, file: "p.csv") }
        #expect(empty?.kind == .incomplete)
    }
}

extension SMSPolicy.SendDecision {
    var isAdmit: Bool {
        if case .admit = self { return true }
        return false
    }
}
