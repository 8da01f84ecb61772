import OneTap

/// OneTap's stores in one PostgreSQL schema, over one connection pool: what a server with many
/// instances opens once at start.
///
/// ```swift
/// let stores = try await PostgresStores.open(try PostgresConfiguration(url: "postgresql:///onetap?host=/var/run/postgresql"))
/// let keyring = try PostgresTokenKeyring(currentKeyID: "2026-12", keys: ["2026-12": keyFromYourSecretManager])
/// let vault = TokenVault(store: stores.tokenStore(keyring: keyring), refresher: MyTianyiRefresher())
/// // … at shutdown:
/// await stores.close()
/// ```
///
/// ```swift
/// let logins = LoginServer(store: stores.loginSessionStore(), exchange: ExchangeGuard(provider: MyExchange(), ledger: stores.exchangeLedger()),
///                          sms: SMSCodeService(keys: keys, sender: MyGateway(), store: stores.smsStore()))
/// ```
///
/// Opening migrates the schema (as `onetap db migrate` does before a deploy). Every store made here shares the pool. While the
/// database is down, store calls fail with `StoreError` of kind `io` (a vault answers `store-failed`, an
/// exchange guard does not exchange); the pool reconnects by itself once the server is back.
public final class PostgresStores: Sendable, CustomStringConvertible {
    /// The server, schema, pool size and time limits.
    package let configuration: PostgresConfiguration
    /// The pool every store shares.
    package let pool: PostgresPool
    private let clock: any WallClock
    /// Where the `database` events go.
    private let events: any EventSink

    /// Makes the pool; connects on first use, migrates nothing (``open(_:clock:events:)`` does both). Emits a
    /// `weak-tls` event when the configuration names a weak `sslmode` for a TCP host.
    /// - Parameters:
    ///   - configuration: The server and limits.
    ///   - clock: Paces the waits (for a free connection, for another instance's lease).
    ///   - events: Where the `weak-tls` and `unsealed-tokens` events go.
    ///   - observer: Sees every statement's text before it is sent (tests); nil for none.
    ///   - valuesObserver: Sees every statement's text and values before it is sent, `bytea` values zero-filled
    ///     (benchmarks; see ``PostgresConnection/open(_:waiter:observer:valuesObserver:)``); nil for none.
    package init(
        configuration: PostgresConfiguration, clock: any WallClock = SystemClock(), events: any EventSink = StandardErrorEventSink.shared,
        observer: (@Sendable (String) -> Void)? = nil, valuesObserver: (@Sendable (String, [PostgresValue]) -> Void)? = nil
    ) {
        self.configuration = configuration
        self.clock = clock
        self.events = events
        pool = PostgresPool(configuration: configuration, clock: clock, observer: observer, valuesObserver: valuesObserver)
        if let event = configuration.transportSecurity.event {
            events.receive(OneTapEvent(at: clock.now(), .database(event)))
        }
    }

    /// Connects and brings the schema up to date: applies its missing migrations, in one transaction under
    /// an advisory lock, so instances opening together take turns and a current schema is left alone (the
    /// schema and its `schema_migrations` table are created when missing).
    /// - Parameters:
    ///   - configuration: The server, schema, pool size and time limits.
    ///   - clock: Paces the waits (for a free connection, for another instance's refresh lease); the
    ///     system clock by default.
    ///   - events: Where a `weak-tls` event (area `database`) goes when the configuration names a weak `sslmode`
    ///     for a TCP host; standard error by default.
    /// - Returns: The stores, ready.
    /// - Throws: ``StoreError``: `io` or `timeout` when the server cannot be reached (the message names
    ///   libpq's reason), `incompatible-schema` when a newer OneTap migrated the schema, `io` when a
    ///   migration failed (the schema is left as it was; the message names the server's SQLSTATE).
    public static func open(
        _ configuration: PostgresConfiguration, clock: any WallClock = SystemClock(), events: any EventSink = StandardErrorEventSink.shared
    ) async throws -> PostgresStores {
        let stores = PostgresStores(configuration: configuration, clock: clock, events: events)
        do {
            try await stores.migrate()
        } catch {
            await stores.close()
            throw error
        }
        return stores
    }

    /// Applies the schema's missing migrations (what `onetap db migrate --url URL` runs). Safe to call
    /// at any time and from several instances at once: an advisory lock makes them take turns, and a
    /// schema that is current is left alone. The schema and its `schema_migrations` table are created
    /// when missing.
    /// - Returns: The versions applied and the schema's version now.
    /// - Throws: ``StoreError``: `incompatible-schema` when the schema is newer than this code (nothing
    ///   changes), `io` for the failing statement (nothing changes; the message names its SQLSTATE) or a
    ///   server that cannot be reached, `timeout` when no connection came free in time.
    @discardableResult
    package func migrate() async throws -> PostgresMigrationReport {
        try await PostgresError.asStoreError(doing: "migrate the schema") { try await PostgresMigrator(schema: configuration.schema).migrate(pool) }
    }

    /// A token store over the pool.
    /// - Parameters:
    ///   - leaseDuration: How long a refresh lease lasts without renewal (at least 100 ms): how long a
    ///     crashed instance can hold up an account's refresh elsewhere; 60 seconds.
    ///   - lockTimeout: How long a refresh waits for another instance's lease before it fails without
    ///     calling the carrier (one refresh at a time); 30 seconds.
    ///   - keyring: The keys that seal the access and refresh tokens (AES-256-GCM) before they reach the
    ///     database; nil stores them unsealed, readable by anyone who reads the table or a backup, and emits
    ///     an `unsealed-tokens` event (area `database`) saying so. Rows written unsealed are read either way, and
    ///     sealed at their next save when a keyring is given.
    /// - Returns: The store.
    public func tokenStore(
        leaseDuration: Duration = .seconds(60), lockTimeout: Duration = .seconds(30), keyring: PostgresTokenKeyring? = nil
    ) -> any TokenStore {
        if keyring == nil {
            events.receive(OneTapEvent(at: clock.now(), .database(.unsealedTokens(schema: configuration.schema))))
        }
        let (events, clock, schema) = (events, clock, configuration.schema)
        return PostgresTokenStore(pool: pool, clock: clock, leaseDuration: leaseDuration, lockTimeout: lockTimeout, keyring: keyring) { account in
            events.receive(OneTapEvent(at: clock.now(), .database(.refreshLeaseLost(schema: schema, account: account.rawValue))))
        }
    }

    /// A login-session store over the pool, for ``LoginServer``: every instance that opens the same
    /// schema shares its sessions.
    /// - Returns: The store.
    public func loginSessionStore() -> any LoginSessionStore {
        PostgresLoginSessionStore(pool: pool)
    }

    /// An SMS store over the pool, for ``SMSCodeService``: every instance that opens the same schema
    /// counts against the same limits.
    /// - Parameter attempts: How many runs an update gets when the database reports a deadlock, a
    ///   serialization failure or a prepared statement gone stale (at least 1); 4.
    /// - Returns: The store.
    public func smsStore(attempts: Int = 4) -> any SMSStore {
        PostgresSMSStore(pool: pool, attempts: attempts)
    }

    /// A login quota store over the pool, for ``LoginQuotas``: every instance that opens the same schema
    /// counts logins started and paid exchanges against the same quotas, so N instances admit a quota
    /// once, not N times. While the database is down it fails, and the quotas admit nothing.
    ///
    /// ```swift
    /// let quotas = LoginQuotas(store: stores.loginQuotaStore())
    /// ```
    /// - Parameter attempts: How many runs an update gets when the database reports a deadlock, a
    ///   serialization failure or a prepared statement gone stale (at least 1); 4.
    /// - Returns: The store.
    public func loginQuotaStore(attempts: Int = 4) -> any LoginQuotaStore {
        PostgresLoginQuotaStore(pool: pool, attempts: attempts)
    }

    /// An exchange ledger over the pool, for ``ExchangeGuard``: a token is exchanged once across every
    /// instance that opens the same schema.
    /// - Parameter retention: How long a token is remembered after its claim; one day, as
    ///   ``InMemoryExchangeLedger`` (no one-tap token lives that long). At least an hour
    ///   (``PostgresExchangeLedger/minimumRetention``), whatever is given: a token forgotten sooner could be sent to
    ///   the carrier again while it still lives (30 minutes at most in `Data/token-lifetimes.csv`) or while its login
    ///   still takes reports (10 minutes) and its resend-once rule holds (an attacker's read: a minute's retention
    ///   sent a token whose first exchange had no answer a second time, a minute later, and a stranger's replay of it
    ///   went to the carrier instead of being answered `replayed`). Shorten the phone numbers' stay in the rows no
    ///   further than that; with a replacement `token-lifetimes.csv` whose tokens live longer (up to a day), give a
    ///   retention above its longest lifetime and the login's.
    /// - Returns: The ledger.
    public func exchangeLedger(retention: Duration = .seconds(86_400)) -> any ExchangeLedger {
        PostgresExchangeLedger(pool: pool, retention: max(retention, PostgresExchangeLedger.minimumRetention))
    }

    /// A guest-data store over the pool, for ``GuestMerger``: guests' and accounts' data and the merge
    /// journals, so a guest merges once whichever instances its logins reach.
    /// - Returns: The store.
    public func guestDataStore() -> any GuestDataStore {
        PostgresGuestDataStore(pool: pool)
    }

    /// An app-session store over the pool, for ``AppSessions``: every instance that opens the same schema
    /// shares the sessions, so a refresh token rotates once however many instances it reaches at once,
    /// and a revocation holds on every instance.
    /// - Returns: The store.
    public func appSessionStore() -> any AppSessionStore {
        PostgresAppSessionStore(pool: pool)
    }

    /// An account directory over the pool, for ``AccountLogin``: one number, one account across every
    /// instance that opens the same schema; racing first logins of a number create one account.
    /// - Returns: The directory.
    public func accountDirectory() -> any AccountDirectory {
        PostgresAccountDirectory(pool: pool)
    }

    /// Removes rows whose time has passed, so tables do not grow without bound. Run it now and then
    /// (hourly is plenty), from any one instance or all; concurrent runs skip the rows another holds.
    ///
    /// - refresh leases left by instances that stopped mid-refresh (a finished refresh deletes its own):
    ///   expired before both `instant` and the database's clock, so a lease still live on the
    ///   database's clock is never removed, whatever `instant` is;
    /// - login sessions that expired before `instant` (the sweepers, `sweptStores()`, keep each a minute past
    ///   its end, while its exchange's answer is still taken: pass an instant a minute earlier to match them);
    /// - SMS counters and code records kept only until before `instant`;
    /// - login quota counters kept only until before `instant`;
    /// - exchange-ledger rows forgotten before `instant` (claimed longer than the ledger's retention ago);
    /// - app sessions whose expiry passed before `instant`: a live one's when its refresh token expires, a revoked
    ///   one's when the access tokens issued before its revocation are out (the access lifetime, 2 hours by default;
    ///   its refresh token's expiry while a guest-data merge is pending in it);
    /// - journals of guest merges that finished more than 30 days before `instant`
    ///   (``MergeJournal/finishedRetention``). Guest data never expires, and the
    ///   `guest_devices` rows of earlier versions (migration 6) are left as they are: nothing reads them.
    ///
    /// Each table is cleaned in batches of 10,000 rows, one statement each, so no statement holds many
    /// rows at once; what a batch removed stays removed if a later one fails.
    /// - Parameter instant: The cut-off; usually the injected clock's now.
    /// - Returns: How many rows of each kind were removed.
    /// - Throws: ``PostgresError`` from the pool or a statement.
    @discardableResult
    package func removeExpiredRows(before instant: Date) async throws -> PostgresCleanupReport {
        let batch = Self.cleanupBatch
        func drain(_ step: () async throws -> Int) async throws -> Int {
            var total = 0
            while true {
                let removed = try await step()
                total += removed
                if removed < batch { return total }
            }
        }
        let refreshLeases = try await drain { try await removeExpiredLeases(before: instant, limit: batch) }
        let sessions = PostgresLoginSessionStore(pool: pool)
        let loginSessions = try await drain { try await sessions.removeExpiredRows(before: instant, limit: batch) }
        let sms = PostgresSMSStore(pool: pool, attempts: 4)
        var smsCounters = 0
        var smsCodes = 0
        _ = try await drain {
            let (counters, codes) = try await sms.removeExpiredRows(before: instant, limit: batch)
            smsCounters += counters
            smsCodes += codes
            return counters + codes
        }
        let quotas = PostgresLoginQuotaStore(pool: pool, attempts: 4)
        let loginQuotaCounters = try await drain { try await quotas.removeExpiredRows(before: instant, limit: batch) }
        let exchanges = try await drain { try await removeForgottenExchanges(before: instant, limit: batch) }
        let guests = PostgresGuestDataStore(pool: pool)
        let journals = try await drain { try await guests.removeFinishedJournals(before: instant, limit: batch) }
        let apps = PostgresAppSessionStore(pool: pool)
        let appSessions = try await drain { try await apps.removeExpiredRows(before: instant, limit: batch) }
        return PostgresCleanupReport(
            refreshLeases: refreshLeases, loginSessions: loginSessions, smsCounters: smsCounters, smsCodes: smsCodes, loginQuotaCounters: loginQuotaCounters,
            exchangeLedgerRows: exchanges, mergeJournals: journals, appSessions: appSessions)
    }

    /// The most rows one cleanup statement removes.
    static let cleanupBatch = 10_000

    /// Closes the pool's connections; later calls fail with `closed`.
    public func close() async {
        await pool.close()
    }

    /// `PostgresStores(PostgresConfiguration(…password=<redacted>…))`.
    public var description: String { "PostgresStores(\(configuration))" }
}
