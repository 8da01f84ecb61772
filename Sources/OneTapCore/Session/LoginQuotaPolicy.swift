/// The quotas on logins: `Data/login-quotas.csv`. How many logins one address, device or app session may
/// start, and how many paid token exchanges (each billed by the carrier) its logins may cause, in a
/// sliding window.
///
/// Pure: given the events each counter holds, it decides whether one more start or exchange is
/// admitted. A request without an address counts in one shared bucket per rule, ``SMSPolicy/notGiven``
/// (`(not given)`, which no device id can spell: ids have no spaces), one without a device id as the device
/// `(not given)` at its address, so a missing key never removes a limit (fail closed). An IPv6 client counts per /64, /56 and /48 (keys `ip`, `ip56`,
/// `ip48`: the blocks one subscriber, one site and one customer are given), so a client moving to a fresh
/// /64 for each login is still held by its wider blocks; an IPv4 client is its address under all three. Windows are sliding and exact to the second:
/// an event at `t` counts while `now < t + window` (one stamped after `now`, because a clock went back,
/// still counts).
///
/// A rule on starts either limits (refused until a place frees) or asks for a captcha (column `over`: a start past
/// it needs a solved captcha): rules on an address block or a device id, which a stranger behind the same carrier NAT
/// shares or may claim, ask for a captcha, so a stranger's starts cost the others a captcha, not a refusal (the SMS
/// policy's `captcha-rejects` wait says what junk captcha tokens can still do). A rule on exchanges either limits
/// (the app falls back to SMS) or asks for a captcha: past it, a start needs a solved captcha, and a login that started
/// with one is exchanged past it; a login that started without one (the rule filled since) brings one with its success
/// report. A stranger's made-up success reports cost the others a captcha, not their one-tap login.
public struct LoginQuotaPolicy: DataTable, BuiltInTable, RateTable {
    /// `login-quotas.csv`, the table's file in `Data/`.
    package static let fileName = "login-quotas.csv"

    /// What a rule counts per: one of the client's keys (``keys``); a login has no number to count per.
    package typealias Key = RateKey

    /// The keys a rule may count per, in the order an unknown key's error lists them: the client's
    /// address (`ip`, `ip56`, `ip48`), its device, its app session, or `global`.
    static let keys: [Key] = [.ip, .ip56, .ip48, .device, .session, .global]

    /// What a rule counts.
    package enum Counts: String, Hashable, Sendable, CaseIterable, Codable, DescribedByID {
        /// Logins started.
        case starts
        /// Success reports whose token the server sends to the carrier's (paid) exchange.
        case exchanges
    }

    /// One rule: its shared columns (``RateRule``), then what happens past its limit.
    package struct Rule: Hashable, Sendable, CustomStringConvertible, RateRule {
        /// Its id (e.g. `ip-starts-hour`: what a rejection names), what it counts per key, the sliding
        /// window and how many events it may hold.
        package let columns: RateRuleColumns<Key, Counts>
        /// Past the limit: refused (`limit`), or admitted with a solved captcha (`captcha`: a start that brought one,
        /// an exchange of a login whose start or report did).
        package let over: SMSPolicy.Over
        /// Where the rule comes from, or why.
        package let source: String
        /// The row's line in its file.
        package let line: Int

        /// `ip-starts-hour: 600 starts per ip in 3600 s, then captcha`.
        package var description: String { "\(columns), then \(over)" }
    }

    /// The counter a rule counts in, for a request, what stores key: a ``RateCounter`` whose value is the
    /// address block, the device id at the address's /64 (`one-phone at 203.0.113.7`), the app session id,
    /// ``SMSPolicy/notGiven`` or `all`.
    public struct Counter: Hashable, Sendable, CustomStringConvertible, RateCounting {
        /// What it counts, per what key, and the key's value.
        package let counter: RateCounter<Counts, Key>

        /// Wraps a counter.
        /// - Parameter counter: The counter.
        package init(_ counter: RateCounter<Counts, Key>) { self.counter = counter }

        /// `starts:ip:203.0.113.7`: the counter's id, as stores key it.
        public var description: String { counter.description }
    }

    /// What a start or an exchange is counted under.
    package struct Request: Hashable, Sendable {
        /// The client's address, nil when not given.
        package var address: IPAddress?
        /// The device id, nil when not given.
        package var device: String?
        /// The app session id.
        package var session: String

        /// Creates a request.
        /// - Parameters:
        ///   - address: The client's address.
        ///   - device: The device id.
        ///   - session: The app session id.
        package init(address: IPAddress?, device: String?, session: String) {
            self.address = address
            self.device = device
            self.session = session
        }

        /// The key's value: the address's block (`203.0.113.7`, `2409:8900:1:2::/64`, `…/56`, `…/48`),
        /// the device id at the address's /64 (`one-phone at 203.0.113.7`; a missing one is `(not given) at …`,
        /// counted at its address too), the app session id or `all`; ``SMSPolicy/notGiven`` for a missing address,
        /// the one shared bucket.
        ///
        /// A device is counted per address because its id is the app's claim, no secret: counted alone, a
        /// stranger who knew it used up the device's quota from anywhere and its owner could start no login.
        /// Counted per address, the stranger fills only the device's count at the stranger's address (which
        /// the `ip` rules already bound).
        func value(for key: Key) -> String {
            switch key {
            case .ip: address.map { SMSContext.limitKey($0, prefix: 64) } ?? SMSPolicy.notGiven
            case .ip56: address.map { SMSContext.limitKey($0, prefix: 56) } ?? SMSPolicy.notGiven
            case .ip48: address.map { SMSContext.limitKey($0, prefix: 48) } ?? SMSPolicy.notGiven
            case .device: SMSPolicy.device(device, at: value(for: .ip))
            case .session: session
            case .global: "all"
            case .number, .numberSession, .numberLane, .globalLane: SMSPolicy.notGiven  // no rule counts per them (``keys``)
            }
        }
    }

    /// What the policy says of one more start or exchange.
    package enum Decision: Hashable, Sendable {
        /// Admitted (and counted by the caller).
        case admit
        /// Over the rule's quota until `retryAfter`.
        case over(rule: String, retryAfter: Date)
        /// Past a captcha rule's limit (the full one that frees a place last) and no limit rule's: admitted with a
        /// solved captcha; `retryAfter` is when a place frees without one.
        case captcha(rule: String, retryAfter: Date)
    }

    /// The columns of the file; `over` may be left out (a file written before it: every rule limits).
    static let columns = ["rule", "key", "counts", "window_seconds", "limit", "source", "over"]

    /// Every rule, in file order.
    package let rules: [Rule]

    /// The policy built from `Data/login-quotas.csv`: the default of every parameter that takes one.
    @usableFromInline package static let builtIn: LoginQuotaPolicy = EmbeddedTable.load(LoginQuotaPolicy.self)

    /// Reads a policy from CSV text.
    /// - Parameters:
    ///   - text: The file's text, in the `Data/login-quotas.csv` format.
    ///   - file: The name used in errors.
    /// - Throws: ``TableError`` for an empty or duplicate rule id, an unknown key or count, a window that
    ///   is not 1 to 31,536,000 whole seconds, a limit that is not 1 to 1,000,000, an `over` that is neither
    ///   `limit` nor `captcha`, or a policy with no rule.
    public init(csv text: String, file: String) throws(TableError) {
        rules = try RateRuleColumns<Key, Counts>.rules(
            csv: text, file: file, columns: Self.columns, keys: Self.keys, limits: 1...1_000_000, letting: "login", optional: ["over"]
        ) { (rule, row) throws(TableError) in
            let over: SMSPolicy.Over = row[6].isEmpty ? .limit : try row.choice(row[6], "action", from: [.limit, .captcha], file: file, column: "over")
            return Rule(columns: rule, over: over, source: row[5], line: row.line)
        }
    }

    /// The counters a request touches for what it counts: one per key a rule of that count uses.
    /// - Parameters:
    ///   - request: The request.
    ///   - counts: Starts or exchanges.
    /// - Returns: The counters, each once, in rule order (a missing address or device as `unknown`).
    package func counters(for request: Request, counting counts: Counts) -> [Counter] {
        counters(for: request) { $0.counts == counts }
    }

    /// The counters a decision reads: those it counts (``counters(for:counting:)``) and, for a start, the exchange
    /// counters of the captcha rules on exchanges, which a start past them steps up (read, never counted by it).
    /// - Parameters:
    ///   - request: The request.
    ///   - counts: Starts or exchanges.
    /// - Returns: The counters, each once, in rule order.
    package func readCounters(for request: Request, counting counts: Counts) -> [Counter] {
        counters(for: request) { bears($0, on: counts) }
    }

    /// The counters a decision reads on a server whose captchas are checked or not: with a verifier, a start reads
    /// the captcha rules on exchanges too (``readCounters(for:counting:)``); without one they are limits on the
    /// exchanges alone, and a full one never holds back a start (``counters(for:counting:)``). The one choice of the
    /// server's ``LoginQuotas`` and `onetap quota`.
    /// - Parameters:
    ///   - request: The request.
    ///   - counts: Starts or exchanges.
    ///   - captchasChecked: Whether a captcha verifier checks the captchas a start brings.
    /// - Returns: The counters, each once, in rule order.
    package func counters(toDecide request: Request, counting counts: Counts, captchasChecked: Bool) -> [Counter] {
        captchasChecked ? readCounters(for: request, counting: counts) : counters(for: request, counting: counts)
    }

    /// The counters of the rules `taking` takes: one per count and key, in rule order.
    private func counters(for request: Request, taking: (Rule) -> Bool) -> [Counter] {
        var out: [Counter] = []
        for rule in rules where taking(rule) {
            let counter = Counter(counts: rule.counts, key: rule.key, value: request.value(for: rule.key))
            if !out.contains(counter) { out.append(counter) }
        }
        return out
    }

    /// Whether a rule bears on a decision about `counts`: its own rules, and for a start the captcha rules on
    /// exchanges (a start past one needs a captcha, so that its login is exchanged past it).
    private func bears(_ rule: Rule, on counts: Counts) -> Bool {
        rule.counts == counts || (counts == .starts && rule.counts == .exchanges && rule.over == .captcha)
    }

    /// Decides one more start or exchange.
    /// - Parameters:
    ///   - request: Its keys.
    ///   - counts: Starts or exchanges.
    ///   - events: Every counter's events (missing counters hold none).
    ///   - now: The time.
    ///   - captchaPassed: Whether the request brought a captcha its provider took (for an exchange: whether its login's
    ///     start did): captcha rules let it through.
    /// - Returns: `admit`; or `over` with the full limit rule that frees a place last (the first in file order among
    ///   equals) and when it does; or, with no limit rule full, `captcha` with the full captcha rule that frees a place
    ///   last, unless the captcha was passed (for an exchange: its login's start's, or its report's). A start reads the
    ///   captcha rules on exchanges too (``readCounters(for:counting:)``).
    package func decide(_ request: Request, counting counts: Counts, events: [Counter: [Date]], at now: Date, captchaPassed: Bool = false) -> Decision {
        var over: (rule: String, retryAfter: Date)? = nil
        var captcha: (rule: String, retryAfter: Date)? = nil
        for rule in rules where bears(rule, on: counts) && !(captchaPassed && rule.over == .captcha) {
            let counter = Counter(counts: rule.counts, key: rule.key, value: request.value(for: rule.key))
            let window = rule.window.seconds
            let (held, from) = SlidingWindow.events(events[counter] ?? [], window, now: now)
            guard held.count - from >= rule.limit else { continue }
            let leaves = SlidingWindow.freesAPlace(held, limit: rule.limit, window, now: now)
            if rule.over == .captcha {
                if let current = captcha, current.retryAfter >= leaves { continue }
                captcha = (rule.id, leaves)
            } else {
                if let current = over, current.retryAfter >= leaves { continue }
                over = (rule.id, leaves)
            }
        }
        if let over { return .over(rule: over.rule, retryAfter: over.retryAfter) }
        return captcha.map { .captcha(rule: $0.rule, retryAfter: $0.retryAfter) } ?? .admit
    }

    /// Decides one more start or exchange and, admitted, counts it: the one place a decision is counted (the
    /// server's ``LoginQuotas`` under its store's lock, and `onetap quota`).
    /// - Parameters:
    ///   - request: Its keys.
    ///   - counts: Starts or exchanges.
    ///   - counters: The counters it touches (``counters(for:counting:)``, or ``readCounters(for:counting:)``).
    ///   - events: Every counter's events; the admitted event is added to each of `counters` that counts `counts`.
    ///   - now: The time.
    ///   - captchaPassed: Whether it brought a captcha its provider took.
    /// - Returns: The decision (``decide(_:counting:events:at:captchaPassed:)``), and when admitted the instant the
    ///   counters must be kept until (their longest window after `now`).
    package func admit(
        _ request: Request, counting counts: Counts, in counters: [Counter], events: inout [Counter: [Date]], at now: Date, captchaPassed: Bool = false
    ) -> (decision: Decision, keepUntil: Date?) {
        let decision = decide(request, counting: counts, events: events, at: now, captchaPassed: captchaPassed)
        guard decision == .admit else { return (decision, nil) }
        var keepUntil = now
        for counter in counters where counter.counts == counts {
            count(now, in: &events[counter, default: []], of: counter)
            keepUntil = max(keepUntil, now.addingTimeInterval(horizon(of: counter)))
        }
        return (decision, keepUntil)
    }

    /// How long a counter's events must be kept after the newest: its longest window.
    /// - Parameter counter: The counter.
    /// - Returns: The horizon in seconds.
    package func horizon(of counter: Counter) -> Double {
        rules.filter { $0.counts == counter.counts && $0.key == counter.key }.map(\.window.seconds).max() ?? 0
    }
}

extension ErrorKind where Failure == LoginRejection {
    /// The client is over a login quota (`Data/login-quotas.csv`): too many logins started, or too many
    /// paid exchanges caused, from its address, device or app session; or a start or success report past a captcha
    /// rule whose address's captcha checks wait (the SMS policy's `captcha-rejects`). For HTTP: 429 Too Many Requests, with
    /// `Retry-After` from ``LoginRejection/retryAt``; a refused success report changes nothing, and the app may
    /// switch the login to SMS.
    public static let overQuota = Self("over-quota")
    /// A start past a quota's captcha rule (an address block's or a device's, which strangers may share), or a
    /// success report past a captcha rule on exchanges that filled after its login started: show a captcha and start
    /// (or send the report) again with its token; the message says whether a token came and did not pass. For
    /// HTTP: 428 Precondition Required. Nothing is stored; a token that did not pass counts under the SMS policy's
    /// rejected-captcha rules (`captcha-rejects`).
    public static let captchaRequired = Self("captcha-required")
}
