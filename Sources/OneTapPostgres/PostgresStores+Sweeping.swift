import OneTap

extension PostgresStores {
    /// Every table ``removeExpiredRows(before:)`` cleans, as stores an ``ExpiredRecordSweeper`` sweeps on
    /// a schedule, in batches, each on its own (a failing table does not hold the others back):
    /// `refresh-leases`, `login-sessions`, `sms`, `exchange-ledger`, `merge-journals`, `app-sessions`, with
    /// the same rules as ``removeExpiredRows(before:)`` (a lease still live on the database's clock stays;
    /// a merge journal goes 30 days after its merge finished).
    ///
    /// ```swift
    /// let sweeper = ExpiredRecordSweeper(stores: stores.sweptStores(), interval: .seconds(300))
    /// ```
    /// Several instances may sweep one database at once: each batch skips the rows another transaction holds.
    /// - Returns: The tables as stores to sweep.
    public func sweptStores() -> [SweptStore] {
        let pool = pool
        let schema = PostgresIdentifier.quoted(configuration.schema)
        let leases = "\(schema).refresh_leases"
        let removeLeases = """
            DELETE FROM \(leases) WHERE account IN \
            (SELECT account FROM \(leases) WHERE expires_at_ms < LEAST($1, \(PostgresMigrations.databaseNow)) LIMIT $2 FOR UPDATE SKIP LOCKED)
            """
        let removeExchanges = PostgresExpiredRows.delete(from: "\(schema).exchange_ledger", key: "token", before: "forget_at_ms")
        let sessions = PostgresLoginSessionStore(pool: pool)
        let sms = PostgresSMSStore(pool: pool, attempts: 4)
        let guests = PostgresGuestDataStore(pool: pool)
        let apps = PostgresAppSessionStore(pool: pool)
        return [
            SweptStore(name: "refresh-leases") { instant, limit in
                guard limit > 0 else { return 0 }
                return try await pool.execute(removeLeases, [.bound(instant), .int64(Int64(limit))]).affected
            },
            SweptStore(name: "login-sessions") { try await sessions.removeExpired(before: $0, limit: $1) },
            SweptStore(name: "sms") { try await sms.removeExpired(before: $0, limit: $1) },
            SweptStore(name: "exchange-ledger") { instant, limit in
                guard limit > 0 else { return 0 }
                return try await pool.execute(removeExchanges, [.bound(instant), .int64(Int64(limit))]).affected
            },
            SweptStore(name: "merge-journals") { try await guests.removeFinishedJournals(before: $0, limit: $1) },
            SweptStore(name: "app-sessions") { try await apps.removeExpired(before: $0, limit: $1) },
        ]
    }
}
