/// What ``PostgresStores/removeExpiredRows(before:)`` removed, table by table.
public struct PostgresCleanupReport: Sendable, Hashable, CustomStringConvertible {
    /// Refresh leases whose time had passed (left by instances that stopped mid-refresh).
    public let refreshLeases: Int
    /// Login sessions that had expired.
    public let loginSessions: Int
    /// SMS counters kept only until before the cut-off.
    public let smsCounters: Int
    /// SMS code records kept only until before the cut-off.
    public let smsCodes: Int
    /// Exchange-ledger rows past their retention.
    public let exchangeLedgerRows: Int
    /// Journals of finished guest merges past their retention.
    public let mergeJournals: Int

    /// Creates a report.
    /// - Parameters:
    ///   - refreshLeases: The leases removed.
    ///   - loginSessions: The sessions removed.
    ///   - smsCounters: The SMS counters removed.
    ///   - smsCodes: The SMS code records removed.
    ///   - exchangeLedgerRows: The ledger rows removed.
    ///   - mergeJournals: The merge journals removed.
    package init(
        refreshLeases: Int, loginSessions: Int = 0, smsCounters: Int = 0, smsCodes: Int = 0, exchangeLedgerRows: Int = 0, mergeJournals: Int = 0
    ) {
        self.refreshLeases = refreshLeases
        self.loginSessions = loginSessions
        self.smsCounters = smsCounters
        self.smsCodes = smsCodes
        self.exchangeLedgerRows = exchangeLedgerRows
        self.mergeJournals = mergeJournals
    }

    /// `removed 2 expired refresh leases, 1 login session, 0 SMS counters, 0 SMS code records, 0 exchange-ledger rows, 0 merge journals`.
    public var description: String {
        func count(_ number: Int, _ one: String, _ many: String) -> String { "\(number) \(number == 1 ? one : many)" }
        return "removed " + [
            count(refreshLeases, "expired refresh lease", "expired refresh leases"), count(loginSessions, "login session", "login sessions"),
            count(smsCounters, "SMS counter", "SMS counters"), count(smsCodes, "SMS code record", "SMS code records"),
            count(exchangeLedgerRows, "exchange-ledger row", "exchange-ledger rows"), count(mergeJournals, "merge journal", "merge journals"),
        ].joined(separator: ", ")
    }
}
