/// The limits on SMS codes: `Data/sms-policy.csv`. What stops SMS bombing (a victim's phone flooded with
/// codes), SMS pumping (sends to numbers that earn per message) and guessing six digits.
///
/// Pure: given the events each counter holds, it decides whether a send may go out, needs a captcha, or
/// must wait, and whether a number's verification is locked. Windows are sliding and exact to the
/// second: an event at `t` counts while `now < t + window` (one stamped after `now`, because a clock
/// went back, still counts, so a clock change never releases a limit).
public struct SMSPolicy: DataTable {
    /// `sms-policy.csv`, the table's file in `Data/`.
    package static let fileName = "sms-policy.csv"

    /// What a rule counts per.
    package enum Key: String, Hashable, Sendable, CaseIterable, Codable, DescribedByID {
        /// The mainland number.
        case number
        /// The client's address (an IPv6 client per /64).
        case ip
        /// The app's device id.
        case device
        /// The login session.
        case session
        /// Every send, whoever asks.
        case global
    }

    /// What a rule counts.
    package enum Counts: String, Hashable, Sendable, CaseIterable, Codable, DescribedByID {
        /// Every send admitted (a send the gateway then failed included).
        case sends
        /// Wrong codes.
        case failedVerifies = "failed-verifies"
    }

    /// What happens once a rule's limit is reached.
    package enum Over: String, Hashable, Sendable, CaseIterable, Codable, DescribedByID {
        /// A send needs a valid captcha.
        case captcha
        /// Refused until the oldest event leaves the window.
        case limit
        /// Locked for the rule's lock time from the event that reached the limit.
        case lock
    }

    /// One rule.
    package struct Rule: Hashable, Sendable, CustomStringConvertible {
        /// The rule's id, e.g. `number-minute`: what results and the CLI name.
        package let id: String
        /// What it counts per.
        package let key: Key
        /// What it counts.
        package let counts: Counts
        /// The sliding window.
        package let window: Duration
        /// How many events the window may hold before the rule applies.
        package let limit: Int
        /// What happens then.
        package let over: Over
        /// How long a `lock` rule locks.
        package let lock: Duration?
        /// Where the rule comes from, or why.
        package let source: String
        /// The row's line in its file.
        package let line: Int
        /// The window and the lock in seconds, as the decisions compute with them.
        let windowSeconds: Double
        let lockSeconds: Double?

        init(id: String, key: Key, counts: Counts, window: Duration, limit: Int, over: Over, lock: Duration?, source: String, line: Int) {
            self.id = id
            self.key = key
            self.counts = counts
            self.window = window
            self.limit = limit
            self.over = over
            self.lock = lock
            self.source = source
            self.line = line
            windowSeconds = window.seconds
            lockSeconds = lock?.seconds
        }

        /// `number-minute: 1 sends per number in 60 s, then limit`.
        package var description: String {
            "\(id): \(limit) \(counts) per \(key) in \(Int(window.seconds)) s, then \(over)\(lock.map { " for \(Int($0.seconds)) s" } ?? "")"
        }
    }

    /// The columns of the file.
    static let columns = ["rule", "key", "counts", "window_seconds", "limit", "over", "lock_seconds", "source"]

    /// Every rule, in file order.
    package let rules: [Rule]
    /// The keys rules count sends per, and failed verifies per, each once, in rule order.
    private let sendKeys: [Key]
    private let verifyKeys: [Key]
    /// How long a counter's events matter, per what it counts and its key: the longest window plus lock.
    private let horizons: [Counts: [Key: Double]]

    /// The policy built from `Data/sms-policy.csv`: the default of every parameter that takes one
    /// (`@usableFromInline` for those default arguments; integrators pass a replacement or nothing).
    @usableFromInline package static let builtIn: SMSPolicy = EmbeddedTable.load(SMSPolicy.self)

    /// Reads a policy from CSV text.
    /// - Parameters:
    ///   - text: The file's text, in the `Data/sms-policy.csv` format.
    ///   - file: The name used in errors.
    /// - Throws: ``TableError`` for an empty or duplicate rule id, an unknown key, count or action, a
    ///   window that is not 1 to 31,536,000 whole seconds, a limit that is not 1 to 100,000, a lock rule
    ///   without a lock time (or another rule with one), a captcha rule that counts failed verifies, or a
    ///   policy with no rule.
    public init(csv text: String, file: String) throws(TableError) {
        let table = try CSVTable(text: text, file: file, columns: Self.columns)
        var rules: [Rule] = []
        var listed = ListedKeys<String>()
        func seconds(_ field: String, row: CSVTable.Row, column: String, range: ClosedRange<Int64>) throws(TableError) -> Duration {
            guard field.utf8.allSatisfy({ $0 &- 48 < 10 }), let value = Int64(field), range.contains(value) else {
                throw row.error(file, column: column, .invalidValue, "\(QuotedInput(field)) is not \(range.lowerBound) to \(range.upperBound) whole seconds")
            }
            return .seconds(value)
        }
        for row in table.rows {
            let id = row[0]
            guard !id.isEmpty, id.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-") }) else {
                throw row.error(file, column: "rule", .invalidValue, "\(QuotedInput(id)) is not a rule id (letters, digits and hyphens)")
            }
            try listed.insert(id, "rule \(id)", at: row, file: file, column: "rule")
            let key: Key = try row.choice(row[1], "key", from: Key.allCases, file: file, column: "key")
            let counts: Counts = try row.choice(row[2], "count", from: Counts.allCases, file: file, column: "counts")
            let window = try seconds(row[3], row: row, column: "window_seconds", range: 1...31_536_000)
            guard row[4].utf8.allSatisfy({ $0 &- 48 < 10 }), let limit = Int(row[4]), (1...100_000).contains(limit) else {
                throw row.error(file, column: "limit", .invalidValue, "\(QuotedInput(row[4])) is not a limit from 1 to 100000")
            }
            let over: Over = try row.choice(row[5], "action", from: Over.allCases, file: file, column: "over")
            var lock: Duration? = nil
            switch (over, row[6].isEmpty) {
            case (.lock, true):
                throw row.error(file, column: "lock_seconds", .invalidValue, "a lock rule needs its lock time in seconds")
            case (.lock, false):
                lock = try seconds(row[6], row: row, column: "lock_seconds", range: 1...31_536_000)
            case (_, false):
                throw row.error(file, column: "lock_seconds", .invalidValue, "only a lock rule has a lock time")
            case (_, true):
                break
            }
            if over == .captcha && counts == .failedVerifies {
                throw row.error(file, column: "over", .invalidValue, "a captcha guards sends; a rule on failed verifies limits or locks")
            }
            rules.append(Rule(id: id, key: key, counts: counts, window: window, limit: limit, over: over, lock: lock, source: row[7], line: row.line))
        }
        guard !rules.isEmpty else {
            throw TableError(file: file, line: 0, kind: .incomplete, message: "the policy has no rule; an empty policy would let every send through")
        }
        self.rules = rules
        func keys(_ counts: Counts) -> [Key] {
            var out: [Key] = []
            for rule in rules where rule.counts == counts && !out.contains(rule.key) { out.append(rule.key) }
            return out
        }
        sendKeys = keys(.sends)
        verifyKeys = keys(.failedVerifies)
        var horizons: [Counts: [Key: Double]] = [:]
        for rule in rules {
            horizons[rule.counts, default: [:]][rule.key] = max(horizons[rule.counts]?[rule.key] ?? 0, rule.window.seconds + (rule.lock?.seconds ?? 0))
        }
        self.horizons = horizons
    }

    // MARK: Deciding

    /// The counter a rule counts in, for a request.
    public struct Counter: Hashable, Sendable, CustomStringConvertible {
        /// What it counts.
        package let counts: Counts
        /// What it counts per.
        package let key: Key
        /// The key's value: the number's digits, the address (an IPv6 /64), the device id, the session id.
        package let value: String

        /// Creates a counter.
        /// - Parameters:
        ///   - counts: What it counts.
        ///   - key: What it counts per.
        ///   - value: The key's value.
        package init(counts: Counts, key: Key, value: String) {
            self.counts = counts
            self.key = key
            self.value = value
        }

        /// `sends:number:13800138000`: the counter's id, as stores key it.
        public var description: String { "\(counts):\(key):\(value)" }
    }

    /// What a send asks about: the keys it counts under.
    package struct Request: Hashable, Sendable {
        /// The number's digits.
        package var number: String
        /// The client's address, counted per /64 for IPv6.
        package var ip: String?
        /// The device id.
        package var device: String?
        /// The login session id.
        package var session: String?

        /// Creates a request.
        /// - Parameters:
        ///   - number: The number's digits.
        ///   - ip: The client's address key.
        ///   - device: The device id.
        ///   - session: The session id.
        package init(number: String, ip: String? = nil, device: String? = nil, session: String? = nil) {
            self.number = number
            self.ip = ip
            self.device = device
            self.session = session
        }

        func value(for key: Key) -> String? {
            switch key {
            case .number: number
            case .ip: ip
            case .device: device
            case .session: session
            case .global: "all"
            }
        }
    }

    /// The counters a request touches, for rules that count `counts`.
    /// - Parameters:
    ///   - request: The request.
    ///   - counts: Sends or failed verifies.
    /// - Returns: One counter per key a rule uses and the request has.
    package func counters(for request: Request, counting counts: Counts) -> [Counter] {
        let keys = counts == .sends ? sendKeys : verifyKeys
        var out: [Counter] = []
        out.reserveCapacity(keys.count)
        for key in keys {
            if let value = request.value(for: key) { out.append(Counter(counts: counts, key: key, value: value)) }
        }
        return out
    }

    /// A send's fate under the policy.
    package enum SendDecision: Hashable, Sendable {
        /// Go ahead; the next send for this number is admitted from `resendAfter`.
        case admit(resendAfter: Date)
        /// A captcha is needed (the rule's id).
        case captcha(rule: String)
        /// Refused until `retryAfter` (the rule's id).
        case limited(rule: String, retryAfter: Date)
    }

    /// The events of `events` that fall in a window at `now` (an event at `t` counts while
    /// `now < t + window`), as an index range of the list sorted oldest first. Lists written by the
    /// rules are sorted; another order is sorted first.
    @inline(__always)
    private static func window(_ events: [Date], _ window: Double, now: Date) -> (sorted: [Date], from: Int) {
        var ordered = true
        var index = 1
        while ordered && index < events.count {
            ordered = events[index - 1] <= events[index]
            index += 1
        }
        let sorted = ordered ? events : events.sorted()
        let start = now.addingTimeInterval(-window)
        var low = 0, high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] > start { high = middle } else { low = middle + 1 }
        }
        return (sorted, low)
    }

    /// Decides a send.
    /// - Parameters:
    ///   - request: The send's keys.
    ///   - events: Every counter's events, oldest first (missing counters hold none).
    ///   - captchaPassed: Whether a valid captcha came with the send.
    ///   - now: The time.
    /// - Returns: The decision: locks first, then hard limits, then captchas.
    /// - Complexity: O(*r* · log *e*) for *r* rules and *e* events per counter; no allocation when the
    ///   lists are sorted.
    package func decideSend(_ request: Request, events: [Counter: [Date]], captchaPassed: Bool, at now: Date) -> SendDecision {
        if let (rule, until) = lock(request, events: events, at: now) { return .limited(rule: rule, retryAfter: until) }
        var needsCaptcha: String? = nil
        var resendAfter = now
        var lists = ListsByKey()
        for rule in rules where rule.counts == .sends {
            guard let list = lists.list(rule.key, request: request, events: events) else { continue }
            let (held, from) = Self.window(list, rule.windowSeconds, now: now)
            let count = held.count - from
            if count >= rule.limit {
                switch rule.over {
                case .limit, .lock:
                    let leaves = held[held.count - rule.limit].addingTimeInterval(rule.windowSeconds)
                    return .limited(rule: rule.id, retryAfter: max(leaves, now))
                case .captcha:
                    if !captchaPassed && needsCaptcha == nil { needsCaptcha = rule.id }
                }
            } else if rule.over == .limit, count + 1 >= rule.limit {
                // Once this send is counted the window is full: the next send waits for its oldest to leave.
                // (`now` itself is the newest; among the held, the oldest that stays is at held.count + 1 - limit.)
                let oldest: Date
                if let last = held.last, last > now {
                    // A clock went back: `now` is not the newest, so place it among the held.
                    let counted = (Array(held[from...]) + [now]).sorted()
                    oldest = counted[counted.count - rule.limit]
                } else {
                    oldest = rule.limit == 1 ? now : held[held.count + 1 - rule.limit]
                }
                resendAfter = max(resendAfter, oldest.addingTimeInterval(rule.windowSeconds))
            }
        }
        if let rule = needsCaptcha { return .captcha(rule: rule) }
        return .admit(resendAfter: resendAfter)
    }

    /// Each key's send list, sorted, looked up once per decision however many rules count it.
    private struct ListsByKey {
        private var number: [Date]?, ip: [Date]?, device: [Date]?, session: [Date]?, global: [Date]?

        mutating func list(_ key: Key, request: Request, events: [Counter: [Date]]) -> [Date]? {
            func fetch() -> [Date]? {
                guard let value = request.value(for: key) else { return nil }
                let list = events[Counter(counts: .sends, key: key, value: value)] ?? []
                var ordered = true
                var index = 1
                while ordered && index < list.count {
                    ordered = list[index - 1] <= list[index]
                    index += 1
                }
                return ordered ? list : list.sorted()
            }
            switch key {
            case .number: if number == nil { number = fetch() }; return number
            case .ip: if ip == nil { ip = fetch() }; return ip
            case .device: if device == nil { device = fetch() }; return device
            case .session: if session == nil { session = fetch() }; return session
            case .global: if global == nil { global = fetch() }; return global
            }
        }
    }

    /// Whether a lock rule holds the request's keys now.
    /// - Parameters:
    ///   - request: The keys.
    ///   - events: Every counter's events.
    ///   - now: The time.
    /// - Returns: The rule's id and when the lock ends, or nil.
    package func lock(_ request: Request, events: [Counter: [Date]], at now: Date) -> (rule: String, until: Date)? {
        for rule in rules where rule.over == .lock {
            guard let value = request.value(for: rule.key), let lock = rule.lock else { continue }
            let list = events[Counter(counts: rule.counts, key: rule.key, value: value)] ?? []
            let held = zip(list, list.dropFirst()).allSatisfy { $0 <= $1 } ? list : list.sorted()
            // The lock starts at the event that brought a window's count to the limit.
            guard held.count >= rule.limit else { continue }
            for index in stride(from: held.count - 1, through: rule.limit - 1, by: -1) {
                let reached = held[index]
                let first = held[index - (rule.limit - 1)]
                guard reached.timeIntervalSince(first) < rule.windowSeconds else { continue }
                let until = reached.addingTimeInterval(rule.lockSeconds ?? lock.seconds)
                if now < until { return (rule.id, until) }
                break
            }
        }
        return nil
    }

    /// The events a counter keeps at `now`: those some rule on it may still count (the others are
    /// pruned by stores on write).
    /// - Parameters:
    ///   - counter: The counter.
    ///   - events: Its events.
    ///   - now: The time.
    /// - Returns: The events to keep, oldest first.
    package func keep(_ counter: Counter, _ events: [Date], at now: Date) -> [Date] {
        let horizon = horizons[counter.counts]?[counter.key] ?? 0
        let (sorted, from) = Self.window(events, horizon, now: now)
        return from == 0 ? sorted : Array(sorted[from...])
    }
}
