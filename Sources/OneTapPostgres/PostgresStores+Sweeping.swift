import OneTap

extension PostgresStores {
    /// Every table that keeps rows with a time to go, as stores an ``ExpiredRecordSweeper`` sweeps on a
    /// schedule, in batches, each on its own (a failing table does not hold the others back):
    /// `refresh-leases` (left by instances that stopped mid-refresh; a lease still live on the database's
    /// clock stays), `login-sessions`, `sms` (counters and code records), `login-quotas`, `exchange-ledger`
    /// (rows past the ledger's retention), `merge-journals` (30 days after the merge finished),
    /// `app-sessions` (once the refresh token expired; a revoked one once the access tokens issued before it are out, or
    /// its refresh token expired while a guest-data merge is pending in it). Guest data never expires.
    ///
    /// ```swift
    /// let sweeper = ExpiredRecordSweeper(stores: stores.sweptStores(), interval: .seconds(300))
    /// ```
    /// Several instances may sweep one database at once: each batch skips the rows another transaction holds. Each
    /// fails with ``StoreError``, as every store does.
    /// - Returns: The tables as stores to sweep.
    public func sweptStores() -> [SweptStore] {
        let sessions = PostgresLoginSessionStore(pool: pool)
        let sms = PostgresSMSStore(pool: pool, attempts: 4)
        let quotas = PostgresLoginQuotaStore(pool: pool, attempts: 4)
        let guests = PostgresGuestDataStore(pool: pool)
        let apps = PostgresAppSessionStore(pool: pool)
        return [
            SweptStore(name: "refresh-leases") { before, limit in
                try await PostgresError.asStoreError(doing: "remove expired refresh leases") { try await self.removeExpiredLeases(before: before, limit: limit) }
            },
            .loginSessions(sessions),
            SweptStore(name: "sms") { try await sms.removeExpired(before: $0, limit: $1) },
            SweptStore(name: "login-quotas") { try await quotas.removeExpired(before: $0, limit: $1) },
            SweptStore(name: "exchange-ledger") { before, limit in
                try await PostgresError.asStoreError(doing: "remove forgotten exchanges") { try await self.removeForgottenExchanges(before: before, limit: limit) }
            },
            SweptStore(name: "merge-journals") { before, limit in
                try await PostgresError.asStoreError(doing: "remove finished merge journals") { try await guests.removeFinishedJournals(before: before, limit: limit) }
            },
            SweptStore(name: "app-sessions") { try await apps.removeExpired(before: $0, limit: $1) },
        ]
    }

    /// Deletes up to `limit` refresh leases that expired before `instant` and on the database's clock
    /// (a lease still live there stays), skipping rows another transaction holds.
    /// - Returns: How many were deleted.
    package func removeExpiredLeases(before instant: Date, limit: Int) async throws -> Int {
        let leases = "\(PostgresIdentifier.quoted(configuration.schema)).refresh_leases"
        return try await PostgresExpiredRows.remove(
            PostgresExpiredRows.delete(from: leases, key: "account", before: "expires_at_ms"), before: instant, limit: limit, on: pool)
    }

    /// Deletes up to `limit` exchange ledger rows past their retention at `instant`, skipping rows another
    /// transaction holds.
    /// - Returns: How many were deleted.
    package func removeForgottenExchanges(before instant: Date, limit: Int) async throws -> Int {
        let ledger = "\(PostgresIdentifier.quoted(configuration.schema)).exchange_ledger"
        return try await PostgresExpiredRows.remove(PostgresExpiredRows.delete(from: ledger, key: "token", before: "forget_at_ms"), before: instant, limit: limit, on: pool)
    }
}
