/// A table's own counter type (``SMSPolicy/Counter``, ``LoginQuotaPolicy/Counter``): a ``RateCounter`` of
/// the table's counts and keys under the table's name, which stores and callers spell. What it counts, its
/// key, its value and its id are the ``RateCounter``'s, written once here.
package protocol RateCounting: Hashable, Sendable, CustomStringConvertible {
    /// What the table's rules count.
    associatedtype Counts: Hashable & Sendable & CustomStringConvertible
    /// What the table's rules count per.
    associatedtype Key: Hashable & Sendable & CustomStringConvertible

    /// The counter.
    var counter: RateCounter<Counts, Key> { get }

    /// Wraps a counter.
    /// - Parameter counter: The counter.
    init(_ counter: RateCounter<Counts, Key>)
}

extension RateCounting {
    /// Creates a counter.
    /// - Parameters:
    ///   - counts: What it counts.
    ///   - key: What it counts per.
    ///   - value: The key's value.
    package init(counts: Counts, key: Key, value: String) {
        self.init(RateCounter(counts: counts, key: key, value: value))
    }

    /// What it counts.
    package var counts: Counts { counter.counts }
    /// What it counts per.
    package var key: Key { counter.key }
    /// The key's value (``RateCounter/value``).
    package var value: String { counter.value }
}
