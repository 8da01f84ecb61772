extension SMSPolicy.Counts {
    /// The case's position in `allCases`.
    var position: Int {
        switch self {
        case .sends: 0
        case .failedVerifies: 1
        case .failedVerifySessions: 2
        case .rejectedCaptchas: 3
        }
    }

    /// Hashes the case's position, not its text (as ``RateKey``).
    /// - Parameter hasher: The hasher.
    package func hash(into hasher: inout Hasher) { hasher.combine(position) }

    /// Whether two counts are the same case (compared by position, not by text).
    package static func == (lhs: Self, rhs: Self) -> Bool { lhs.position == rhs.position }
}

extension SMSPolicy {
    /// The value a counter takes for a key the request does not have (no address, no device id, no
    /// session): one shared bucket per rule, so a missing key never removes its limit. It holds a space,
    /// which no number, address, device id (printable ASCII without spaces) or session id has.
    package static let notGiven = "(not given)"
    /// What a returning owner's lane adds to the number on the `number-lane` key (`13800138000 (returning owner)`), and to
    /// `all` on the `global-lane` key: it holds a space, which no number has.
    package static let ownerLane = " (returning owner)"

    /// The value a device counts under: its id at the client's address block (`one-phone at 203.0.113.7`,
    /// `one-phone at 2409:8900:1:2::/64`, `one-phone at (not given)`), for the SMS rules and the login quotas
    /// alike. A device id is the app's claim, no secret: counted alone, a stranger who knew it spent its count
    /// from anywhere (its sends, its wrong guesses, its login starts) and held its owner back; counted per
    /// address, the stranger fills only the device's count at the stranger's own address, which the address
    /// rules already bound. A missing device id is `(not given)` at its address (no device id can spell it: it
    /// holds a space): one bucket across every address let anyone fill it for every client that sends none.
    /// - Parameters:
    ///   - device: The device id, or nil when the request gave none.
    ///   - block: The address's key (``SMSContext/limitKey(_:prefix:)``, its /64), or ``notGiven``.
    /// - Returns: The counter's value.
    package static func device(_ device: String?, at block: String) -> String { "\(device ?? notGiven) at \(block)" }

    /// The counter a rule counts in, for a request: a ``RateCounter`` whose value is the number's digits,
    /// the number and session (`13800138000/<session>`), the address (an IPv6 /64, /56 or /48), the device
    /// id at the address's /64 (``SMSPolicy/device(_:at:)``), the session id, or ``SMSPolicy/notGiven``.
    public struct Counter: Hashable, Sendable, CustomStringConvertible, RateCounting {
        /// What it counts, per what key, and the key's value.
        package let counter: RateCounter<Counts, Key>

        /// Wraps a counter.
        /// - Parameter counter: The counter.
        package init(_ counter: RateCounter<Counts, Key>) { self.counter = counter }

        /// `sends:number:13800138000`: the counter's id, as stores key it.
        public var description: String { counter.description }
    }

    /// What a send or verify asks about: the keys it counts under.
    package struct Request: Hashable, Sendable {
        /// The number's digits.
        package var number: String { didSet { numberSession = Self.numberSession(number, session) } }
        /// The client's address, counted per /64 for IPv6.
        package var ip: String?
        /// The client's IPv6 /56 (an IPv4 address as it is).
        package var ip56: String?
        /// The client's IPv6 /48 (an IPv4 address as it is).
        package var ip48: String?
        /// The device id.
        package var device: String?
        /// The login session id.
        package var session: String? { didSet { numberSession = Self.numberSession(number, session) } }
        /// Whether the send comes from the number's returning owner (an app session that logged in with it lately,
        /// as ``SMSContext/returningOwner`` says): its sends count in a lane of their own on the `number-lane` and
        /// `global-lane` keys.
        package var returningOwner = false
        /// The number-session key's value, made once per request (every rule on it reads it).
        private var numberSession: String

        /// `13800138000/<session>`, or `13800138000/(not given)`.
        private static func numberSession(_ number: String, _ session: String?) -> String {
            number + "/" + (session ?? SMSPolicy.notGiven)
        }

        /// Creates a request.
        /// - Parameters:
        ///   - number: The number's digits.
        ///   - ip: The client's address key.
        ///   - ip56: The client's /56 key.
        ///   - ip48: The client's /48 key.
        ///   - device: The device id.
        ///   - session: The session id.
        package init(
            number: String, ip: String? = nil, ip56: String? = nil, ip48: String? = nil, device: String? = nil, session: String? = nil
        ) {
            self.number = number
            self.ip = ip
            self.ip56 = ip56
            self.ip48 = ip48
            self.device = device
            self.session = session
            numberSession = Self.numberSession(number, session)
        }

        /// The key's value, or ``SMSPolicy/notGiven`` when the request lacks it: never nil, so every
        /// rule counts every request.
        /// - Parameter key: The key.
        /// - Returns: The value.
        package func value(for key: Key) -> String {
            switch key {
            case .number: number
            case .numberSession: numberSession
            case .numberLane: returningOwner ? number + SMSPolicy.ownerLane : number
            case .ip: ip ?? SMSPolicy.notGiven
            case .ip56: ip56 ?? SMSPolicy.notGiven
            case .ip48: ip48 ?? SMSPolicy.notGiven
            case .device: SMSPolicy.device(device, at: ip ?? SMSPolicy.notGiven)
            case .session: session ?? SMSPolicy.notGiven
            case .global: "all"
            case .globalLane: returningOwner ? "all" + SMSPolicy.ownerLane : "all"
            }
        }
    }

    /// The counters a request touches, for rules that count `counts`.
    /// - Parameters:
    ///   - request: The request.
    ///   - counts: Sends; rejected captchas (read only when a captcha token is to be checked); or failed
    ///     verifies (then every counter a verify reads: failed verifies, guessing sessions, and the session's
    ///     own wrong codes they are told from).
    /// - Returns: One counter per key a rule uses (a missing key's value is ``notGiven``).
    package func counters(for request: Request, counting counts: Counts) -> [Counter] {
        var out: [Counter] = []
        switch counts {
        case .sends, .rejectedCaptchas:
            let keys = counts == .sends ? sendKeys : captchaKeys
            out.reserveCapacity(keys.count)
            for key in keys { out.append(Counter(counts: counts, key: key, value: request.value(for: key))) }
        case .failedVerifies, .failedVerifySessions:
            out.reserveCapacity(verifyCounters.count)
            for (counts, key) in verifyCounters { out.append(Counter(counts: counts, key: key, value: request.value(for: key))) }
        }
        return out
    }

    /// The events a state holds in the request's counter of `counts` per `key`, found by comparing each
    /// counter's parts rather than hashing a new one: a state holds one counter per (counts, key) a rule
    /// uses, a dozen at most, and the rules read it many times per decision.
    /// - Parameters:
    ///   - counts: What the counter counts.
    ///   - key: What it counts per.
    ///   - request: The request, whose value for `key` the counter must have.
    ///   - events: The state's counters.
    /// - Returns: The counter's events as stored, or none.
    /// - Complexity: O(*n*) for *n* counters in `events`.
    static func events(_ counts: Counts, _ key: Key, of request: Request, in events: [Counter: [Date]]) -> [Date] {
        for (counter, list) in events where counter.counts == counts && counter.key == key {
            if counter.value == request.value(for: key) { return list }
        }
        return []
    }

    /// How long a counter's events matter (``RateTable/horizon(of:)``): the longest window of a rule on it
    /// plus its lock, looked up in ``horizons``.
    /// - Parameter counter: The counter.
    /// - Returns: The horizon in seconds.
    package func horizon(of counter: Counter) -> Double {
        horizons[Self.horizonSlot(counter.counts, counter.key)]
    }
}
