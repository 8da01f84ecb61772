#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import OneTap

/// OneTap's stores in one PostgreSQL schema, over one connection pool: what a server with many
/// instances opens once at start.
///
/// ```swift
/// let stores = try await PostgresStores.open(try PostgresConfiguration(url: "postgresql:///onetap?host=/var/run/postgresql"))
/// let vault = TokenVault(store: stores.tokenStore(), refresher: MyTianyiRefresher())
/// // … at shutdown:
/// await stores.close()
/// ```
///
/// Opening migrates the schema (``migrate()``). Every store made here shares the pool. While the
/// database is down, store calls fail with `TokenStoreError` kind `io` (a vault answers `store-failed`);
/// the pool reconnects by itself once the server is back.
public final class PostgresStores: Sendable, CustomStringConvertible {
    /// The server, schema, pool size and time limits.
    public let configuration: PostgresConfiguration
    /// The pool every store shares.
    package let pool: PostgresPool
    private let clock: any WallClock

    /// Makes the pool; connects on first use, migrates nothing (``open(_:clock:)`` does both).
    /// - Parameters:
    ///   - configuration: The server and limits.
    ///   - clock: Paces the waits (for a free connection, for another instance's lease).
    ///   - observer: Sees every statement's text before it is sent (tests); nil for none.
    package init(configuration: PostgresConfiguration, clock: any WallClock = SystemClock(), observer: (@Sendable (String) -> Void)? = nil) {
        self.configuration = configuration
        self.clock = clock
        pool = PostgresPool(configuration: configuration, clock: clock, observer: observer)
    }

    /// Connects and brings the schema up to date (``migrate()``).
    /// - Parameters:
    ///   - configuration: The server, schema, pool size and time limits.
    ///   - clock: Paces the waits (for a free connection, for another instance's refresh lease); the
    ///     system clock by default.
    /// - Returns: The stores, ready.
    /// - Throws: ``PostgresError``: `connection-failed` or `timeout` when the server cannot be reached,
    ///   `incompatible-schema` when a newer OneTap migrated the schema, `server-error` when a migration
    ///   failed (the schema is left as it was).
    public static func open(_ configuration: PostgresConfiguration, clock: any WallClock = SystemClock()) async throws -> PostgresStores {
        let stores = PostgresStores(configuration: configuration, clock: clock)
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
    /// - Throws: ``PostgresError``: `incompatible-schema` when the schema is newer than this code (nothing
    ///   changes), the failing statement's error (nothing changes), or the pool's errors.
    @discardableResult
    public func migrate() async throws -> PostgresMigrationReport {
        try await PostgresMigrator(schema: configuration.schema).migrate(pool)
    }

    /// A token store over the pool.
    /// - Parameters:
    ///   - leaseDuration: How long a refresh lease lasts without renewal (at least 100 ms): how long a
    ///     crashed instance can hold up an account's refresh elsewhere; 60 seconds.
    ///   - lockTimeout: How long a refresh waits for another instance's lease before going ahead without
    ///     it; 30 seconds.
    /// - Returns: The store.
    public func tokenStore(leaseDuration: Duration = .seconds(60), lockTimeout: Duration = .seconds(30)) -> PostgresTokenStore {
        PostgresTokenStore(pool: pool, clock: clock, leaseDuration: leaseDuration, lockTimeout: lockTimeout)
    }

    /// Removes rows whose time has passed, so tables do not grow without bound: for now, refresh leases
    /// left by instances that stopped mid-refresh (a finished refresh deletes its own). Run it now and
    /// then (hourly is plenty), from any one instance or all.
    ///
    /// A row goes when its expiry is before both `instant` and the database's `now()`, so a lease that
    /// is still live on the database's clock is never removed, whatever `instant` is.
    /// - Parameter instant: The cut-off; usually the injected clock's now.
    /// - Returns: How many rows of each kind were removed.
    /// - Throws: ``PostgresError`` from the pool or the statement.
    @discardableResult
    public func removeExpiredRows(before instant: Date) async throws -> PostgresCleanupReport {
        let leases = "\(PostgresIdentifier.quoted(configuration.schema)).refresh_leases"
        let rows = try await pool.execute("DELETE FROM \(leases) WHERE expires_at < LEAST($1, now())", [.timestamp(instant)])
        return PostgresCleanupReport(refreshLeases: rows.affected)
    }

    /// Closes the pool's connections; later calls fail with `closed`.
    public func close() async {
        await pool.close()
    }

    /// `PostgresStores(PostgresConfiguration(…password=<redacted>…))`.
    public var description: String { "PostgresStores(\(configuration))" }
}
