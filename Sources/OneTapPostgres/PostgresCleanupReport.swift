/// What ``PostgresStores/removeExpiredRows(before:)`` removed, table by table. Stores to come add their
/// own counts (expired SMS codes, login sessions).
public struct PostgresCleanupReport: Sendable, Hashable, CustomStringConvertible {
    /// Refresh leases whose time had passed (left by instances that stopped mid-refresh).
    public let refreshLeases: Int

    /// Creates a report.
    /// - Parameter refreshLeases: The leases removed.
    package init(refreshLeases: Int) {
        self.refreshLeases = refreshLeases
    }

    /// `removed 2 expired refresh leases`.
    public var description: String {
        "removed \(refreshLeases) expired refresh lease\(refreshLeases == 1 ? "" : "s")"
    }
}
