import Foundation
import OneTap
import OneTapPostgres
import OneTapPostgresTestSupport
import Testing

/// The tests' way to a server: the shared one (`ONETAP_POSTGRES_URL`, or a private server started once
/// per test process), a fresh schema per test, and a private server for tests that stop and start it.
///
/// When no server can be had the test is cancelled (reported as skipped) with the reason, unless
/// `ONETAP_REQUIRE_POSTGRES=1`, which makes it fail instead.
enum TestDatabase {
    /// A missing server, under `ONETAP_REQUIRE_POSTGRES=1`.
    struct Required: Error, CustomStringConvertible {
        let reason: String
        var description: String { "ONETAP_REQUIRE_POSTGRES=1 but no PostgreSQL server: \(reason)" }
    }

    /// The shared server's URL.
    static func url() async throws -> String {
        do {
            return try await PostgresSharedServer.shared.url()
        } catch {
            try unavailable(error.reason)
        }
    }

    /// A server of the test's own, which it may stop and start; removed by the caller (`remove()`).
    static func privateServer() async throws -> PostgresTestServer {
        do {
            return try await PostgresTestServer.start()
        } catch {
            try unavailable(error.reason)
        }
    }

    private static func unavailable(_ reason: String) throws -> Never {
        if PostgresSharedServer.isRequired { throw Required(reason: reason) }
        try Test.cancel("skipped: no PostgreSQL server (\(reason))")
    }

    /// A schema name no other test uses.
    static func schemaName() -> String {
        "t_" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
    }

    /// A configuration for a fresh schema on the server at `url`. The connect timeout, which also bounds a
    /// caller's wait for a free connection, is 60 s by default: the conformance races queue 50 to 100 calls on a
    /// pool of 4 behind one row's lock, and under ThreadSanitizer on a loaded 2-core machine the last of them can
    /// wait close to 10 s (a refused connection still fails at once).
    static func configuration(
        _ url: String, schema: String = schemaName(), poolSize: Int = 4, connectTimeout: Duration = .seconds(60),
        statementTimeout: Duration = .seconds(20), prepareStatements: Bool = true
    ) throws -> PostgresConfiguration {
        var configuration = try PostgresConfiguration(
            url: url, schema: schema, poolSize: poolSize, connectTimeout: connectTimeout, statementTimeout: statementTimeout,
            prepareStatements: prepareStatements)
        // A test process under ThreadSanitizer on two loaded cores was seen paused past the product's 10 s between two
        // statements of a transaction: the server ended the transaction (`terminating connection due to
        // idle-in-transaction timeout`) and the next statement failed `connection-lost` (reproduced by stopping the
        // test process for 12 s). Tests that mean the server to end an idle transaction set it themselves.
        configuration.idleInTransactionTimeout = max(statementTimeout, idleInTransactionTimeout)
        return configuration
    }

    /// How long the tests' transactions may sit idle between two statements (``configuration(_:schema:poolSize:connectTimeout:statementTimeout:prepareStatements:)``).
    static let idleInTransactionTimeout = Duration.seconds(120)

    /// Opens one connection to the shared server, runs `body` with it, then closes it (also when `body` throws).
    static func withConnection(
        statementTimeout: Duration = .seconds(20), prepareStatements: Bool = true, waiter: PostgresSocketWaiter? = PostgresSocketWaiter.shared,
        observer: (@Sendable (String) -> Void)? = nil, _ body: (PostgresConnection) async throws -> Void
    ) async throws {
        let configuration = try configuration(try await url(), statementTimeout: statementTimeout, prepareStatements: prepareStatements)
        let connection = try await PostgresConnection.open(configuration, waiter: waiter, observer: observer)
        do {
            try await body(connection)
        } catch {
            await connection.close()
            throw error
        }
        await connection.close()
    }

    /// Opens (and migrates) stores over a fresh schema on the shared server, runs `body`, then drops the
    /// schema and closes the pool.
    static func withStores(
        poolSize: Int = 4, clock: any WallClock = SystemClock(), observer: (@Sendable (String) -> Void)? = nil,
        _ body: (PostgresStores) async throws -> Void
    ) async throws {
        let stores = PostgresStores(configuration: try configuration(try await url(), poolSize: poolSize), clock: clock, observer: observer)
        do {
            try await stores.migrate()
            try await body(stores)
        } catch {
            await dispose(stores)
            throw error
        }
        await dispose(stores)
    }

    /// Stores over a fresh, migrated schema whose statements may run `statementTimeout` at most, and stores
    /// over the same schema with the usual limits (to prepare rows and look at them, when the short limit
    /// would fail under load). Dispose of the second; close the first.
    static func timingOutStores(statementTimeout: Duration) async throws -> (short: PostgresStores, usual: PostgresStores) {
        let usual = try await PostgresStores.open(try configuration(try await url()))
        let short = PostgresStores(configuration: try configuration(try await url(), schema: usual.configuration.schema, statementTimeout: statementTimeout))
        return (short, usual)
    }

    /// Drops the stores' schema (best effort: a test that stopped its server has nothing to drop) and
    /// closes the pool.
    static func dispose(_ stores: PostgresStores) async {
        do {
            try await stores.pool.execute("DROP SCHEMA IF EXISTS \"\(stores.configuration.schema)\" CASCADE")
        } catch {
            // The server is gone (a private one, removed with its directory).
        }
        await stores.close()
    }
}

/// Tokens for the tests.
enum Tokens {
    static let now = Date(timeIntervalSince1970: 1_796_083_200)

    static func make(_ account: AccountID, _ value: String = "A0", refresh: String? = "R0", issued: Date = now, lifetime: Double = 30 * 86_400) -> AccessToken {
        AccessToken(
            value: Secret(value), refreshToken: refresh.map(Secret.init), flow: .tianyi, account: account, issuedAt: issued,
            expiresAt: issued.addingTimeInterval(lifetime))
    }
}

/// Statement texts seen by a pool's connections.
final class StatementLog: Sendable {
    private let entries = LockedValue<[String]>([])

    /// The observer to give the pool.
    var observer: @Sendable (String) -> Void {
        { [entries] sql in entries.withLock { $0.append(sql) } }
    }

    var statements: [String] { entries.withLock { $0 } }
}
