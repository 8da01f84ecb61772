import OneTap

/// Brings a schema to the newest version this code knows, idempotently and safely when several instances
/// start at once.
///
/// One transaction: it takes a transaction-scoped advisory lock keyed by the schema name (so a second
/// instance waits, then finds nothing to do), creates the schema and `schema_migrations` when they are
/// missing, applies the steps not yet recorded, records each, and commits. PostgreSQL's DDL is
/// transactional, so a step that fails leaves the schema as it was before the call.
///
/// Time limits: a step may take longer than one statement of the stores may (an index built over a large
/// table), so the transaction runs under ``timeout`` (PostgreSQL's `statement_timeout`, set for the
/// transaction only; never less than the configuration's statement timeout), and so does a second
/// instance's wait for the advisory lock. A step that waits for a lock on a table gives up sooner instead:
/// after half the configuration's statement timeout, at most 2 s (`lock_timeout`, SQLSTATE 55P03), so that
/// a migration queued behind a long transaction never holds the stores' statements on that table queued
/// behind itself long enough for them to time out. Then the whole migration runs again, up to
/// ``lockAttempts`` times in all, a little later each time; nothing of a run that gave up is kept. The bound is per
/// wait: a migration runs in one transaction, so a table locked earlier in it (an earlier step's, or an earlier
/// statement of one step: migration 7 alters seven tables) stays locked while a later statement waits for another's
/// lock, and statements queued on the first can wait for the sum of those waits; a table a statement rewrites
/// (`ALTER COLUMN … TYPE`) stays locked for the rewrite, which no lock timeout bounds. Migrate at a quiet time.
package struct PostgresMigrator: Sendable {
    /// The schema's name (validated).
    package let schema: String
    /// The steps, in version order.
    package let migrations: [PostgresMigration]
    /// The longest the migration's transaction may run, waiting for another instance's included.
    package let timeout: Duration
    /// How many runs a migration gets whose step gave up waiting for a table's lock.
    package static let lockAttempts = 5

    /// Creates a runner.
    /// - Parameters:
    ///   - schema: A schema name ``PostgresConfiguration`` accepted.
    ///   - migrations: The steps; OneTap's own by default (tests pass others).
    ///   - timeout: The longest one step, or the wait for another instance's migration, may take; an hour.
    package init(schema: String, migrations: [PostgresMigration] = PostgresMigrations.all, timeout: Duration = .seconds(3600)) {
        self.schema = schema
        self.migrations = migrations.sorted { $0.version < $1.version }
        self.timeout = timeout
    }

    /// Applies what is missing.
    /// - Parameter pool: The pool to run on (one transaction on one connection, run once more when the
    ///   server asks: ``PostgresPool/transaction(attempts:retrying:connected:committing:_:)``).
    /// - Returns: What was applied and the version now.
    /// - Throws: ``PostgresError``: `incompatible-schema` when the schema holds a version newer than this
    ///   code knows (nothing is changed), or the failure of a statement (nothing is changed).
    package func migrate(_ pool: PostgresPool) async throws -> PostgresMigrationReport {
        let quoted = PostgresIdentifier.quoted(schema)
        let statementTimeout = pool.configuration.statementTimeout
        let timeout = max(self.timeout, statementTimeout)
        let milliseconds = { (duration: Duration) in PostgresValue.text(String(max(1, Monotonic.nanoseconds(duration) / 1_000_000))) }
        let lockTimeout = milliseconds(min(statementTimeout / 2, .seconds(2)))
        var attempt = 1
        while true {
            do {
                return try await run(on: pool, quoted: quoted, timeout: timeout, lockTimeout: lockTimeout, statementTimeout: milliseconds(timeout))
            } catch let error as PostgresError where error.sqlState == "55P03" && attempt < Self.lockAttempts {
                try await pool.clock.sleep(for: .milliseconds(100 * attempt))
                attempt += 1
            }
        }
    }

    /// One run of the migration, in one transaction.
    private func run(
        on pool: PostgresPool, quoted: String, timeout: Duration, lockTimeout: PostgresValue, statementTimeout: PostgresValue
    ) async throws -> PostgresMigrationReport {
        let schema = self.schema
        let migrations = self.migrations
        let newest = migrations.last?.version ?? 0
        // A second run when the server asks for one (a prepared statement gone stale, a deadlock): nothing
        // of the first was written.
        return try await pool.transaction(attempts: 2) { (connection) -> PostgresMigrationReport in
            // The migrations' text (kept as it ran) names its functions and operators without their schema: the
            // transaction searches `pg_catalog` alone, whatever search path the server connection came with (a
            // pooler's, which keeps no session setting of OneTap's), so a function planted on it is never bound.
            try await connection.execute("SELECT pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true)")
            try await connection.execute("SELECT pg_catalog.set_config('statement_timeout', $1, true)", [statementTimeout])
            try await connection.execute(
                "SELECT pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtextextended($1, 0))", [.text("onetap.migrate:" + schema)], waitingUpTo: timeout)
            try await connection.execute("SELECT pg_catalog.set_config('lock_timeout', $1, true)", [lockTimeout])
            // Checked before creating, so that a role without CREATE on the database can run over a
            // schema its administrator made.
            let exists = try await connection.execute("SELECT count(*) FROM pg_catalog.pg_namespace WHERE nspname = $1", [.text(schema)])
            if exists.first?.first?.int64 == 0 {
                try await connection.execute("CREATE SCHEMA \(quoted)")
            }
            let table = try await connection.execute("SELECT pg_catalog.to_regclass($1) IS NOT NULL", [.text("\(quoted).schema_migrations")])
            if table.first?.first?.bool != true {
                try await connection.execute("""
                    CREATE TABLE \(quoted).schema_migrations (
                        version integer PRIMARY KEY,
                        name text NOT NULL,
                        applied_at timestamptz NOT NULL DEFAULT now()
                    )
                    """)
            }
            let rows = try await connection.execute("SELECT version FROM \(quoted).schema_migrations ORDER BY version")
            let done = Set(rows.rows.compactMap { $0.first?.int64 }.map(Int.init))
            if let unknown = done.max(), unknown > newest {
                throw PostgresError(
                    .incompatibleSchema,
                    message: "schema \(schema) is at version \(unknown), newer than the \(newest) this version of OneTap knows; upgrade OneTap (nothing was changed)")
            }
            var applied: [Int] = []
            for migration in migrations where !done.contains(migration.version) {
                for statement in migration.statements(quoted) {
                    do throws(PostgresError) {
                        try await connection.execute(statement, waitingUpTo: timeout)
                    } catch {
                        throw error.withMessage(
                            "migration \(migration.version) (\(migration.name)) of schema \(schema) failed: \(error.message); nothing was changed")
                    }
                }
                try await connection.execute(
                    "INSERT INTO \(quoted).schema_migrations (version, name) VALUES ($1, $2)",
                    [.int64(Int64(migration.version)), .text(migration.name)])
                applied.append(migration.version)
            }
            return PostgresMigrationReport(schema: schema, applied: applied, version: max(done.max() ?? 0, applied.last ?? 0))
        }
    }
}
