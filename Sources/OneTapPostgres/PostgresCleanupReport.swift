/// What ``PostgresStores/removeExpiredRows(before:)`` removed, table by table.
package struct PostgresCleanupReport: Sendable, Hashable, CustomStringConvertible {
    /// Refresh leases whose time had passed (left by instances that stopped mid-refresh).
    package internal(set) var refreshLeases = 0
    /// Login sessions that had expired.
    package internal(set) var loginSessions = 0
    /// SMS counters kept only until before the cut-off.
    package internal(set) var smsCounters = 0
    /// SMS code records kept only until before the cut-off.
    package internal(set) var smsCodes = 0
    /// Login quota counters kept only until before the cut-off.
    package internal(set) var loginQuotaCounters = 0
    /// Exchange-ledger rows past their retention.
    package internal(set) var exchangeLedgerRows = 0
    /// Journals of finished guest merges past their retention.
    package internal(set) var mergeJournals = 0
    /// App sessions whose refresh token had expired (revoked ones too).
    package internal(set) var appSessions = 0

    /// `removed 2 expired refresh leases, 1 login session, 0 SMS counters, 0 SMS code records, 0 login quota counters, 0 exchange-ledger rows, 0 merge journals, 0 app sessions`.
    package var description: String {
        func count(_ number: Int, _ one: String, _ many: String) -> String { "\(number) \(number == 1 ? one : many)" }
        return "removed " + [
            count(refreshLeases, "expired refresh lease", "expired refresh leases"), count(loginSessions, "login session", "login sessions"),
            count(smsCounters, "SMS counter", "SMS counters"), count(smsCodes, "SMS code record", "SMS code records"),
            count(loginQuotaCounters, "login quota counter", "login quota counters"),
            count(exchangeLedgerRows, "exchange-ledger row", "exchange-ledger rows"), count(mergeJournals, "merge journal", "merge journals"),
            count(appSessions, "app session", "app sessions"),
        ].joined(separator: ", ")
    }
}
