/// A counter of a table of sliding-window rules (`Data/sms-policy.csv`, `Data/login-quotas.csv`): what it
/// counts, per what key, and the key's value for a request. Its id, `counts:key:value`
/// (`sends:number:13800138000`, `starts:ip:203.0.113.7`), is what stores key it by; two counters are the
/// same when all three are. A counter is hashed once, when it is made (its three parts, with this
/// process's seed), and its dictionary look-ups (a store's read, the rules, the write-back: several per
/// request) combine that one number instead of hashing the value's text again each time. Made in this
/// module only (callers elsewhere make a table's counter: ``RateCounting/init(counts:key:value:)``).
package struct RateCounter<Counts: Hashable & Sendable & CustomStringConvertible, Key: Hashable & Sendable & CustomStringConvertible>: Hashable, Sendable, CustomStringConvertible {
    /// What it counts.
    package let counts: Counts
    /// What it counts per.
    package let key: Key
    /// The key's value: the request's (an address block, a device id, a session id, …), `all` for the
    /// global key (`all` or `all (returning owner)` for the global lane), or ``SMSPolicy/notGiven`` for a key the
    /// request lacks.
    package let value: String
    /// `counts`, `key` and `value` hashed together, by ``init(counts:key:value:)``.
    private let hashOfParts: Int

    /// Creates a counter.
    /// - Parameters:
    ///   - counts: What it counts.
    ///   - key: What it counts per.
    ///   - value: The key's value.
    /// - Complexity: O(*n*) in the value's length, once; look-ups of the counter are O(1) in it after.
    init(counts: Counts, key: Key, value: String) {
        (self.counts, self.key, self.value) = (counts, key, value)
        var hasher = Hasher()
        hasher.combine(counts)
        hasher.combine(key)
        hasher.combine(value)
        hashOfParts = hasher.finalize()
    }

    /// Whether two counters count the same, per the same key and value.
    /// - Parameters:
    ///   - lhs: A counter.
    ///   - rhs: Another.
    /// - Returns: True when all three parts are equal.
    package static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.hashOfParts == rhs.hashOfParts && lhs.counts == rhs.counts && lhs.key == rhs.key && lhs.value == rhs.value
    }

    /// Feeds the hash made when the counter was.
    /// - Parameter hasher: The hasher.
    package func hash(into hasher: inout Hasher) { hasher.combine(hashOfParts) }

    /// `sends:number:13800138000`: the counter's id, as stores key it.
    package var description: String { "\(counts):\(key):\(value)" }
}
