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

    /// One rule: its shared columns (``RateRule``), all a quota has.
    package struct Rule: Hashable, Sendable, CustomStringConvertible, RateRule {
        /// Its id (e.g. `ip-starts-hour`: what a rejection names), what it counts per key, the sliding
        /// window and how many events it may hold.
        package let columns: RateRuleColumns<Key, Counts>
        /// Where the rule comes from, or why.
        package let source: String
        /// The row's line in its file.
        package let line: Int

        /// `ip-starts-hour: 600 starts per ip in 3600 s`.
        package var description: String { columns.description }
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
            case .number, .numberSession: SMSPolicy.notGiven  // no rule counts per them (``keys``)
            }
        }
    }

    /// What the policy says of one more start or exchange.
    package enum Decision: Hashable, Sendable {
        /// Admitted (and counted by the caller).
        case admit
        /// Over the rule's quota until `retryAfter`.
        case over(rule: String, retryAfter: Date)
    }

    /// The columns of the file.
    static let columns = ["rule", "key", "counts", "window_seconds", "limit", "source"]

    /// Every rule, in file order.
    package let rules: [Rule]

    /// The policy built from `Data/login-quotas.csv`: the default of every parameter that takes one.
    @usableFromInline package static let builtIn: LoginQuotaPolicy = EmbeddedTable.load(LoginQuotaPolicy.self)

    /// Reads a policy from CSV text.
    /// - Parameters:
    ///   - text: The file's text, in the `Data/login-quotas.csv` format.
    ///   - file: The name used in errors.
    /// - Throws: ``TableError`` for an empty or duplicate rule id, an unknown key or count, a window that
    ///   is not 1 to 31,536,000 whole seconds, a limit that is not 1 to 1,000,000, or a policy with no rule.
    public init(csv text: String, file: String) throws(TableError) {
        rules = try RateRuleColumns<Key, Counts>.rules(csv: text, file: file, columns: Self.columns, keys: Self.keys, limits: 1...1_000_000, letting: "login") {
            (rule, row) throws(TableError) in
            Rule(columns: rule, source: row[5], line: row.line)
        }
    }

    /// The counters a request touches for what it counts: one per key a rule of that count uses.
    /// - Parameters:
    ///   - request: The request.
    ///   - counts: Starts or exchanges.
    /// - Returns: The counters, each once, in rule order (a missing address or device as `unknown`).
    package func counters(for request: Request, counting counts: Counts) -> [Counter] {
        var out: [Counter] = []
        for rule in rules where rule.counts == counts {
            let counter = Counter(counts: counts, key: rule.key, value: request.value(for: rule.key))
            if !out.contains(counter) { out.append(counter) }
        }
        return out
    }

    /// Decides one more start or exchange.
    /// - Parameters:
    ///   - request: Its keys.
    ///   - counts: Starts or exchanges.
    ///   - events: Every counter's events (missing counters hold none).
    ///   - now: The time.
    /// - Returns: `admit`, or the full rule that frees a place last (the first in file order among equals)
    ///   and when it does.
    package func decide(_ request: Request, counting counts: Counts, events: [Counter: [Date]], at now: Date) -> Decision {
        var over: (rule: String, retryAfter: Date)? = nil
        for rule in rules where rule.counts == counts {
            let counter = Counter(counts: counts, key: rule.key, value: request.value(for: rule.key))
            let window = rule.window.seconds
            let (held, from) = SlidingWindow.events(events[counter] ?? [], window, now: now)
            guard held.count - from >= rule.limit else { continue }
            let leaves = SlidingWindow.freesAPlace(held, limit: rule.limit, window, now: now)
            if let current = over, current.retryAfter >= leaves { continue }
            over = (rule.id, leaves)
        }
        return over.map { .over(rule: $0.rule, retryAfter: $0.retryAfter) } ?? .admit
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
    /// paid exchanges caused, from its address, device or app session. For HTTP: 429 Too Many Requests,
    /// with `Retry-After` from the message's time; a refused success report changes nothing, and the
    /// app may switch the login to SMS.
    public static let overQuota = Self("over-quota")
}
