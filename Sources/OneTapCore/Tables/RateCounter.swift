/// A counter of a table of sliding-window rules (`Data/sms-policy.csv`, `Data/login-quotas.csv`): what it
/// counts, per what key, and the key's value for a request. Its id, `counts:key:value`
/// (`sends:number:13800138000`, `starts:ip:203.0.113.7`), is what stores key it by; two counters are the
/// same when all three are, so each table's keys and counts choose how fast they hash (``RateKey``
/// hashes its position). Made in this module only, with its memberwise initializer (callers elsewhere
/// make a table's counter: ``RateCounting/init(counts:key:value:)``).
package struct RateCounter<Counts: Hashable & Sendable & CustomStringConvertible, Key: Hashable & Sendable & CustomStringConvertible>: Hashable, Sendable, CustomStringConvertible {
    /// What it counts.
    package let counts: Counts
    /// What it counts per.
    package let key: Key
    /// The key's value: the request's (an address block, a device id, a session id, …), `all` for the
    /// global key, or ``SMSPolicy/notGiven`` for a key the request lacks.
    package let value: String

    /// `sends:number:13800138000`: the counter's id, as stores key it.
    package var description: String { "\(counts):\(key):\(value)" }
}
