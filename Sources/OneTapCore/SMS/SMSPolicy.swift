/// The limits on SMS codes: `Data/sms-policy.csv`. What stops SMS bombing (a victim's phone flooded with
/// codes), SMS pumping (sends to numbers that earn per message) and guessing six digits.
///
/// Pure: given the events each counter holds, it decides whether a send may go out, needs a captcha, or
/// must wait, and whether a verify may compare a code, needs a captcha first, or must wait. Limits fail
/// closed: a rule whose key a request lacks (no address, no session) counts the request in one shared
/// "not given" bucket per rule, never skips it; one without a device id counts as the device "not given" at its
/// address. Windows are sliding and exact to the
/// second: an event at `t` counts while `now < t + window` (one stamped after `now`, because a clock
/// went back, still counts, so a clock change never releases a limit).
public struct SMSPolicy: DataTable, RateTable {
    /// `sms-policy.csv`, the table's file in `Data/`.
    package static let fileName = "sms-policy.csv"

    /// What a rule counts per: any of the request's keys, its number's included.
    package typealias Key = RateKey

    /// What a rule counts.
    package enum Counts: String, Hashable, Sendable, CaseIterable, Codable, DescribedByID {
        /// Every send admitted (a send the gateway then failed included).
        case sends
        /// Wrong codes.
        case failedVerifies = "failed-verifies"
        /// Wrong codes from a login session that had none for the number in the rule's window before:
        /// how many distinct sessions guessed (a number under attack from many places).
        case failedVerifySessions = "failed-verify-sessions"
        /// Captcha tokens that did not pass (the provider refused them, or answered with an error), counted at
        /// the requester's own keys (its address blocks, its device at its address): each check is a call the
        /// provider may bill or throttle.
        case rejectedCaptchas = "rejected-captchas"
    }

    /// What happens once a rule's limit is reached.
    package enum Over: String, Hashable, Sendable, CaseIterable, Codable, DescribedByID {
        /// A send, or a verify, needs a valid captcha: a step up, never a lock.
        case captcha
        /// Refused until the oldest event leaves the window.
        case limit
        /// Locked for the rule's lock time from the event that reached the limit (kept for policies of
        /// earlier versions; the default has none, since a lock on a number locks its owner out too).
        case lock
        /// Wrong codes only: each further verify waits 2^(count − limit) seconds after the newest wrong
        /// code (1 s, 2 s, 4 s, …), at most the rule's `lock_seconds`: a growing delay that ends.
        case delay
        /// Wrong codes only: every verify needs a captcha and a code takes a single wrong try, so past
        /// the limit a number takes at most one guess per code sent, and its owner (a fresh code, a
        /// solved captcha) still gets through.
        case singleTry = "single-try"
    }

    /// One rule: its shared columns (``RateRule``), then what happens once its limit is reached.
    package struct Rule: Hashable, Sendable, CustomStringConvertible, RateRule {
        /// Its id (e.g. `number-minute`: what results and the CLI name), what it counts per key, the
        /// sliding window and how many events it may hold before the rule applies.
        package let columns: RateRuleColumns<Key, Counts>
        /// What happens then.
        package let over: Over
        /// How long a `lock` rule locks; the longest wait of a `delay` rule.
        package let lock: Duration?
        /// Where the rule comes from, or why.
        package let source: String
        /// The row's line in its file.
        package let line: Int
        /// The window and the lock in seconds, as the decisions compute with them.
        let windowSeconds: Double
        let lockSeconds: Double?

        init(_ columns: RateRuleColumns<Key, Counts>, over: Over, lock: Duration?, source: String, line: Int) {
            self.columns = columns
            self.over = over
            self.lock = lock
            self.source = source
            self.line = line
            windowSeconds = columns.window.seconds
            lockSeconds = lock?.seconds
        }

        /// `number-minute: 1 sends per number in 60 s, then limit`.
        package var description: String {
            "\(columns), then \(over)\(lock.map { " \(over == .delay ? "up to" : "for") \(Int($0.seconds)) s" } ?? "")"
        }
    }

    /// The columns of the file.
    static let columns = ["rule", "key", "counts", "window_seconds", "limit", "over", "lock_seconds", "source"]

    /// Every rule, in file order.
    package let rules: [Rule]
    /// The keys rules count sends per, each once, in rule order.
    let sendKeys: [Key]
    /// What verify rules count and per what, each once, in rule order (with the session's own wrong
    /// codes when a rule counts guessing sessions).
    let verifyCounters: [(counts: Counts, key: Key)]
    /// The keys rules count rejected captchas per, each once, in rule order: sends and verifies read them
    /// before asking the captcha provider.
    let captchaKeys: [Key]
    /// How long a counter's events matter, per what it counts and its key: the longest window plus lock
    /// (0 when no rule counts it), at ``horizonSlot(_:_:)``.
    let horizons: [Double]
    /// Whether a rule locks (`over` is `lock`): only then do sends and verifies look for a lock.
    let hasLockRules: Bool
    /// Every rule's numbers, in rule order, as the decisions read them (``Limit``).
    let limits: [Limit]

    /// What a decision reads of a rule, as a plain value: the rules hold text (their id, their source), so
    /// each one a decision's loop took from ``rules`` was retained and released; these are copied for free,
    /// and the rule's id is read only for the rule that decides. `rule` is the rule's place in ``rules``;
    /// `counts`, `key`, `limit` and `over` are the rule's; `windowSeconds` and `lockSeconds` its window and
    /// its lock (or longest delay) in seconds, nil for a rule with neither.
    struct Limit: Sendable {
        let rule: Int, counts: Counts, key: Key, limit: Int, over: Over
        let windowSeconds: Double, lockSeconds: Double?

        /// The end of a delay rule's wait, for `count` events in its window (at least its limit): 2^(count − limit)
        /// seconds after the newest, at most the rule's longest wait.
        /// - Parameters:
        ///   - newest: The newest event.
        ///   - count: The events in the window.
        /// - Returns: The instant the wait ends.
        func delayEnds(after newest: Date, count: Int) -> Date {
            newest.addingTimeInterval(min(Double(sign: .plus, exponent: min(count - limit, 62), significand: 1), lockSeconds ?? 0))
        }
    }

    /// Where a counter's horizon is in ``horizons``.
    static func horizonSlot(_ counts: Counts, _ key: Key) -> Int { counts.position * keyCount + key.position }
    /// How many keys there are.
    private static let keyCount = Key.allCases.count

    /// The policy built from `Data/sms-policy.csv`: the default of every parameter that takes one
    /// (`@usableFromInline` for those default arguments; integrators pass a replacement or nothing).
    @usableFromInline package static let builtIn: SMSPolicy = EmbeddedTable.load(SMSPolicy.self)

    /// Reads a policy from CSV text.
    /// - Parameters:
    ///   - text: The file's text, in the `Data/sms-policy.csv` format.
    ///   - file: The name used in errors.
    /// - Throws: ``TableError`` for an empty or duplicate rule id, an unknown key, count or action, a
    ///   window that is not 1 to 31,536,000 whole seconds, a limit that is not 1 to 100,000, a lock or
    ///   delay rule without its time in `lock_seconds` (or another rule with one), a delay or single-try
    ///   rule that counts sends, a `number-lane` or `global-lane` rule that counts anything else, or a policy with no rule.
    public init(csv text: String, file: String) throws(TableError) {
        let rules = try RateRuleColumns<Key, Counts>.rules(csv: text, file: file, columns: Self.columns, keys: Key.allCases, limits: 1...100_000, letting: "send") {
            (rule, row) throws(TableError) in
            let over: Over = try row.choice(row[5], "action", from: Over.allCases, file: file, column: "over")
            var lock: Duration? = nil
            switch (over, row[6].isEmpty) {
            case (.lock, true):
                throw row.error(file, column: "lock_seconds", .invalidValue, "a lock rule needs its lock time in seconds")
            case (.delay, true):
                throw row.error(file, column: "lock_seconds", .invalidValue, "a delay rule needs its longest wait in seconds")
            case (.lock, false), (.delay, false):
                lock = try row.seconds(row[6], file: file, column: "lock_seconds", range: 1...31_536_000)
            case (_, false):
                throw row.error(file, column: "lock_seconds", .invalidValue, "only a lock or delay rule has a time in lock_seconds")
            case (_, true):
                break
            }
            if (over == .delay || over == .singleTry) && rule.counts == .sends {
                throw row.error(file, column: "over", .invalidValue, "\(over) slows or steps up verifies; a rule on sends limits, locks or asks for a captcha")
            }
            // A returning owner's lane is told at a send only: on verifies and captcha checks it is no key.
            if rule.key == .numberLane && rule.counts != .sends {
                throw row.error(file, column: "key", .invalidValue, "number-lane counts sends (a returning owner's lane is a send's); count \(rule.counts) per number")
            }
            if rule.key == .globalLane && rule.counts != .sends {
                throw row.error(file, column: "key", .invalidValue, "global-lane counts sends (a returning owner's lane is a send's); count \(rule.counts) per global")
            }
            // Rejected captchas only slow the keys that sent them: a limit there would let a neighbour behind the
            // same address (a carrier's NAT) lock its users out of every captcha.
            if rule.counts == .rejectedCaptchas && (over != .delay || !rule.key.isTheRequestersOwn) {
                throw row.error(
                    file, column: over != .delay ? "over" : "key", .invalidValue,
                    "a rule on rejected captchas delays (never limits) and counts per ip, ip56, ip48 or device")
            }
            return Rule(rule, over: over, lock: lock, source: row[7], line: row.line)
        }
        self.rules = rules
        func keys(_ counts: Counts) -> [Key] {
            var out: [Key] = []
            for rule in rules where rule.counts == counts && !out.contains(rule.key) { out.append(rule.key) }
            return out
        }
        sendKeys = keys(.sends)
        captchaKeys = keys(.rejectedCaptchas)
        var verifyCounters: [(Counts, Key)] = []
        for rule in rules where (rule.counts == .failedVerifies || rule.counts == .failedVerifySessions)
            && !verifyCounters.contains(where: { $0 == (rule.counts, rule.key) }) {
            verifyCounters.append((rule.counts, rule.key))
        }
        var horizons: [Counts: [Key: Double]] = [:]
        for rule in rules {
            horizons[rule.counts, default: [:]][rule.key] = max(horizons[rule.counts]?[rule.key] ?? 0, rule.window.seconds + (rule.lock?.seconds ?? 0))
        }
        // Distinct guessing sessions are told from the session's own wrong codes: read them, keep them as long.
        for rule in rules where rule.counts == .failedVerifySessions {
            if !verifyCounters.contains(where: { $0 == (.failedVerifies, .numberSession) }) { verifyCounters.append((.failedVerifies, .numberSession)) }
            horizons[.failedVerifies, default: [:]][.numberSession] = max(horizons[.failedVerifies]?[.numberSession] ?? 0, rule.window.seconds)
        }
        self.verifyCounters = verifyCounters
        var table = [Double](repeating: 0, count: Counts.allCases.count * Self.keyCount)
        for (counts, byKey) in horizons {
            for (key, horizon) in byKey { table[Self.horizonSlot(counts, key)] = horizon }
        }
        self.horizons = table
        hasLockRules = rules.contains { $0.over == .lock }
        limits = rules.enumerated().map { (index, rule) in
            Limit(rule: index, counts: rule.counts, key: rule.key, limit: rule.limit, over: rule.over, windowSeconds: rule.windowSeconds, lockSeconds: rule.lockSeconds)
        }
    }
}
