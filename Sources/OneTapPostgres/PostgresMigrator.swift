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
/// transaction only), and so does a second instance's wait for the advisory lock. A step that waits for a
/// lock on a table gives up after the configuration's statement timeout instead (`lock_timeout`, SQLSTATE
/// 55P03), so that a migration queued behind a long transaction never queues the stores' statements on that
/// table behind itself for longer than they would wait anyway; nothing is changed, and it can be run again.
package struct PostgresMigrator: Sendable {
    /// The schema's name (validated).
    package let schema: String
    /// The steps, in version order.
    package let migrations: [PostgresMigration]
    /// The longest the migration's transaction may run, waiting for another instance's included.
    package let timeout: Duration

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
        let schema = self.schema
        let migrations = self.migrations
        let newest = migrations.last?.version ?? 0
        // A second run when the server asks for one (a prepared statement gone stale, a deadlock): nothing
        // of the first was written.
        let timeout = self.timeout
        let milliseconds = { (duration: Duration) in PostgresValue.text(String(max(1, Monotonic.nanoseconds(duration) / 1_000_000))) }
        let lockTimeout = milliseconds(pool.configuration.statementTimeout)
        return try await pool.transaction(attempts: 2) { (connection) -> PostgresMigrationReport in
            try await connection.execute("SELECT set_config('statement_timeout', $1, true)", [milliseconds(timeout)])
            try await connection.execute(
                "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [.text("onetap.migrate:" + schema)], waitingUpTo: timeout)
            try await connection.execute("SELECT set_config('lock_timeout', $1, true)", [lockTimeout])
            // Checked before creating, so that a role without CREATE on the database can run over a
            // schema its administrator made.
            let exists = try await connection.execute("SELECT count(*) FROM pg_catalog.pg_namespace WHERE nspname = $1", [.text(schema)])
            if exists.first?.first?.int64 == 0 {
                try await connection.execute("CREATE SCHEMA \(quoted)")
            }
            let table = try await connection.execute("SELECT to_regclass($1) IS NOT NULL", [.text("\(quoted).schema_migrations")])
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
