/// A rule of a rate table (``SMSPolicy/Rule``, ``LoginQuotaPolicy/Rule``): the columns both tables
/// share (``RateRuleColumns``), read once, under the names the decisions and the tools read them by.
package protocol RateRule {
    /// What the table's rules count per.
    associatedtype Key: RawRepresentable & Equatable where Key.RawValue == String
    /// What the table's rules count.
    associatedtype Counts: RawRepresentable & Equatable & CaseIterable where Counts.RawValue == String, Counts.AllCases == [Counts]

    /// The rule's shared columns.
    var columns: RateRuleColumns<Key, Counts> { get }
}

extension RateRule {
    /// The rule's id, e.g. `number-minute` or `ip-starts-hour`: what results, rejections and the CLI name.
    package var id: String { columns.id }
    /// What it counts per.
    package var key: Key { columns.key }
    /// What it counts.
    package var counts: Counts { columns.counts }
    /// The sliding window.
    package var window: Duration { columns.window }
    /// How many events the window may hold before the rule applies.
    package var limit: Int { columns.limit }
}
