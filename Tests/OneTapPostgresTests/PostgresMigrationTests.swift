import Foundation
import OneTap
@testable import OneTapPostgres
import OneTapTesting
import Testing

/// The migration runner (`PostgresMigrator`) over OneTap's steps (`PostgresMigrations`) and others.
@Suite(.connectionBudget) struct PostgresMigrationTests {
    func tables(_ pool: PostgresPool, _ schema: String) async throws -> Set<String> {
        let rows = try await pool.execute("SELECT tablename::text FROM pg_catalog.pg_tables WHERE schemaname = $1", [.text(schema)])
        return Set(rows.rows.compactMap { $0.first?.text })
    }

    func versions(_ pool: PostgresPool, _ schema: String) async throws -> [Int64] {
        try await pool.execute("SELECT version FROM \"\(schema)\".schema_migrations ORDER BY version").rows.compactMap { $0.first?.int64 }
    }

    @Test func aFreshSchemaGetsEveryStepOnceAndThenNothing() async throws {
        let configuration = try TestDatabase.configuration(try await TestDatabase.url())
        let stores = PostgresStores(configuration: configuration)
        let first = try await stores.migrate()
        let all = PostgresMigrations.all.map(\.version)
        #expect(first.applied == all && first.version == all.last)
        #expect(first.description == "schema \(configuration.schema) at version \(all.last ?? 0) (applied \(all.map(String.init).joined(separator: ", ")))")
        #expect(try await tables(stores.pool, configuration.schema) == [
            "schema_migrations", "tokens", "refresh_leases", "login_sessions", "sms_counters", "sms_codes", "exchange_ledger", "guest_devices",
            "guest_data", "merge_journals", "app_sessions", "account_numbers", "login_quota_counters",
        ])
        let second = try await stores.migrate()
        #expect(second.applied.isEmpty && second.version == all.last)
        #expect(second.description.hasSuffix("(already current)"))
        #expect(try await versions(stores.pool, configuration.schema) == all.map(Int64.init))
        let names = try await stores.pool.execute("SELECT name FROM \"\(configuration.schema)\".schema_migrations ORDER BY version")
        #expect(names.rows.compactMap { $0.first?.text } == PostgresMigrations.all.map(\.name))
        await TestDatabase.dispose(stores)
    }

    /// A schema at version 2 (what the first OneTapPostgres made) gets the later steps only, and keeps
    /// its tokens.
    @Test func aSchemaAtAnEarlierVersionGetsOnlyTheLaterSteps() async throws {
        let configuration = try TestDatabase.configuration(try await TestDatabase.url())
        let stores = PostgresStores(configuration: configuration)
        let early = try await PostgresMigrator(schema: configuration.schema, migrations: Array(PostgresMigrations.all.prefix(2))).migrate(stores.pool)
        #expect(early.applied == [1, 2])
        // The row as OneTap wrote it at version 2 (this version's statements name migration 12's `key_id`).
        let schema = "\"\(configuration.schema)\""
        try await stores.pool.execute(
            """
            INSERT INTO \(schema).tokens (account, version, flow, access_token, refresh_token, issued_at_ms, expires_at_ms, due_at_ms) \
            VALUES ('kept', nextval('\(schema).token_versions'), 'tianyi', convert_to('A0', 'UTF8'), convert_to('R0', 'UTF8'), $1, $2, $1)
            """, [.int64(1_796_083_200_000), .int64(1_798_675_200_000)])
        let report = try await stores.migrate()
        #expect(report.applied == Array(PostgresMigrations.all.map(\.version).dropFirst(2)) && report.version == PostgresMigrations.all.last?.version)
        #expect(try await stores.tokenStore().load("kept")?.token.value.reveal() == "A0")
        await TestDatabase.dispose(stores)
    }

    /// Migration 15 indexes the app sessions whose stored JSON holds a pending merge, as version 14 wrote them (and as
    /// an earlier version named it, `unmergedGuest`), and no other row; a row that is not JSON fails nothing, and one
    /// whose id is no app session id stops no listing. The rows are the committed golden records, inserted as version
    /// 14's store wrote its columns.
    @Test func migration15FlagsThePendingMergesOfTheRowsStoredBefore() async throws {
        let configuration = try TestDatabase.configuration(try await TestDatabase.url())
        let stores = PostgresStores(configuration: configuration)
        _ = try await PostgresMigrator(schema: configuration.schema, migrations: Array(PostgresMigrations.all.prefix(14))).migrate(stores.pool)
        func golden(_ name: String) throws -> String {
            try String(contentsOfFile: Package.path("Tests/Golden/app-session/\(name).json"), encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
        // The two golden records with a pending merge share an id: the second is stored under another.
        let rows: [(id: String, version: Int64, record: String)] = [
            ("Golden-app-session-004", 2, try golden("account-unmerged-guest")),
            ("Golden-app-session-014", 2, try golden("account-unmerged-guest-elsewhere").replacingOccurrences(of: "Golden-app-session-004", with: "Golden-app-session-014")),
            ("Golden-app-session-005", 5, try golden("account-family")),
            ("Golden-app-session-006", 1, try golden("guest-fresh").replacingOccurrences(of: "Golden-app-session-001", with: "Golden-app-session-006")),
            ("Golden-app-session-007", 1, #"not json, "pendingGuest" without its colon"#),
            ("Golden-app-session-00!", 1, #"{"pendingGuest":"not a session id"}"#),
            ("Golden-app-session-0000", 1, #"{"pendingGuest":"nor this, 23 characters"}"#),
        ]
        let schema = "\"\(configuration.schema)\""
        for row in rows {
            try await stores.pool.execute(
                "INSERT INTO \(schema).app_sessions (id, version, account, revoked_at_ms, expires_at_ms, record) VALUES ($1, $2, NULL, NULL, 1798707700000, $3)",
                [.text(row.id), .int64(row.version), .text(row.record)])
        }
        let report = try await stores.migrate()
        #expect(report.applied == [15])
        let store = stores.appSessionStore()
        var listed: [String] = []
        var cursor: AppSessionID? = nil
        for _ in 0..<5 {
            let page = try await store.pendingMerges(after: cursor, limit: 1)
            listed += page.map(\.text)
            guard let last = page.last else { break }
            cursor = last
        }
        #expect(listed == ["Golden-app-session-004", "Golden-app-session-014"], "one a page, the malformed ids passed over")
        #expect(try await store.load(try AppSessionID("Golden-app-session-014"))?.pendingMerge?.account == "42")
        #expect(try await store.load(try AppSessionID("Golden-app-session-004"))?.pendingMerge?.account == "42")
        await TestDatabase.dispose(stores)
    }

    /// Every step is appended, never changed: versions run 1, 2, 3… without a gap, and the names are the
    /// released ones.
    @Test func stepsAreNumberedWithoutGaps() {
        #expect(PostgresMigrations.all.map(\.version) == Array(1...PostgresMigrations.all.count))
        #expect(PostgresMigrations.all.map(\.name) == [
            "tokens", "refresh leases", "login sessions", "sms", "exchange ledger", "guests", "instants in milliseconds", "app sessions", "accounts",
            "exchange answers",
            "sms codes per session",
            "sealed tokens",
            "login quotas",
            "verification verdicts",
            "pending merges",
        ])
    }

    /// The due index and the byte-order collation are what the token store's statements rely on.
    @Test func theTokensTableComparesAccountsByBytesAndIndexesTheDueTime() async throws {
        try await TestDatabase.withStores { stores in
            let schema = stores.configuration.schema
            let indexes = try await stores.pool.execute(
                "SELECT indexdef::text FROM pg_catalog.pg_indexes WHERE schemaname = $1 AND tablename = 'tokens' ORDER BY indexname", [.text(schema)])
            #expect(indexes.rows.compactMap { $0.first?.text }.contains { $0.contains("(due_at_ms, account)") })
            let collation = try await stores.pool.execute(
                "SELECT collation_name::text FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'tokens' AND column_name = 'account'",
                [.text(schema)])
            #expect(collation.first == [.text("C")])
        }
    }

    /// Six instances starting at once on one new schema: one applies the steps, the others find them done.
    @Test(.connections(16)) func concurrentInstancesTakeTurns() async throws {
        let url = try await TestDatabase.url()
        let schema = TestDatabase.schemaName()
        let instances = try (0..<6).map { _ in PostgresStores(configuration: try TestDatabase.configuration(url, schema: schema, poolSize: 1)) }
        let reports = try await withThrowingTaskGroup(of: PostgresMigrationReport.self) { group in
            for stores in instances { group.addTask { try await stores.migrate() } }
            var reports: [PostgresMigrationReport] = []
            for try await report in group { reports.append(report) }
            return reports
        }
        #expect(reports.filter { $0.applied == PostgresMigrations.all.map(\.version) }.count == 1)
        #expect(reports.filter { $0.applied.isEmpty }.count == 5)
        #expect(reports.allSatisfy { $0.version == PostgresMigrations.all.last?.version })
        #expect(try await versions(instances[0].pool, schema) == PostgresMigrations.all.map { Int64($0.version) })
        for stores in instances.dropFirst() { await stores.close() }
        await TestDatabase.dispose(instances[0])
    }

    @Test func aSchemaFromANewerOneTapIsLeftAlone() async throws {
        try await TestDatabase.withStores { stores in
            let schema = stores.configuration.schema
            try await stores.pool.execute("INSERT INTO \"\(schema)\".schema_migrations (version, name) VALUES (99, 'from the future')")
            await #expect {
                try await stores.migrate()
            } throws: { error in
                let error = error as! StoreError
                return error.kind == .incompatibleSchema && error.message.contains("version 99") && error.message.contains("knows")
            }
            #expect(try await versions(stores.pool, schema) == PostgresMigrations.all.map { Int64($0.version) } + [99])
        }
    }

    /// A step that fails undoes the whole call: the steps before it in the same call, the schema and its
    /// `schema_migrations` table.
    @Test func aFailingStepChangesNothing() async throws {
        let configuration = try TestDatabase.configuration(try await TestDatabase.url())
        let schema = configuration.schema
        let pool = PostgresPool(configuration: configuration)
        let good = PostgresMigration(version: 1, name: "a") { schema in ["CREATE TABLE \(schema).a (id bigint)"] }
        let bad = PostgresMigration(version: 2, name: "b") { schema in ["CREATE TABLE \(schema).b (id bigint)", "CREATE TABLE \(schema).b (id bigint)"] }
        await #expect {
            try await PostgresMigrator(schema: schema, migrations: [good, bad]).migrate(pool)
        } throws: { error in
            let error = error as! PostgresError
            return error.kind == .server && error.sqlState == "42P07" && error.message.contains("migration 2 (b)") && error.message.contains("nothing was changed")
        }
        let exists = try await pool.execute("SELECT count(*) FROM pg_catalog.pg_namespace WHERE nspname = $1", [.text(schema)])
        #expect(exists.first == [.int64(0)])
        let fixed = PostgresMigration(version: 2, name: "b") { schema in ["CREATE TABLE \(schema).b (id bigint)"] }
        let report = try await PostgresMigrator(schema: schema, migrations: [fixed, good]).migrate(pool)
        #expect(report.applied == [1, 2])
        #expect(try await tables(pool, schema) == ["schema_migrations", "a", "b"])
        try await pool.execute("DROP SCHEMA \"\(schema)\" CASCADE")
        await pool.close()
    }

    /// Runs `body` with a fresh schema's name and two pools of one connection each on it, under the statement
    /// timeout given; with `tableA`, the schema is first migrated to version 1, the table `a`. Then the schema is
    /// dropped and both pools close, also when `body` throws.
    func withTwoPools(
        statementTimeout: Duration, tableA: Bool = false, observingTheFirst observer: (@Sendable (String) -> Void)? = nil,
        _ body: (String, PostgresPool, PostgresPool) async throws -> Void
    ) async throws {
        let schema = TestDatabase.schemaName()
        let configuration = try TestDatabase.configuration(try await TestDatabase.url(), schema: schema, poolSize: 1, statementTimeout: statementTimeout)
        let (first, second) = (PostgresPool(configuration: configuration, observer: observer), PostgresPool(configuration: configuration))
        let result: Result<Void, any Error>
        do {
            if tableA { _ = try await PostgresMigrator(schema: schema, migrations: [Self.tableA]).migrate(first) }
            try await body(schema, first, second)
            result = .success(())
        } catch {
            result = .failure(error)
        }
        try await first.execute("DROP SCHEMA IF EXISTS \"\(schema)\" CASCADE")
        await first.close()
        await second.close()
        try result.get()
    }

    /// Version 1: the table `a`.
    static let tableA = PostgresMigration(version: 1, name: "a") { schema in ["CREATE TABLE \(schema).a (id bigint)"] }
    /// Version 2: a column of `a`, which waits for every transaction that read `a`.
    static let columnB = PostgresMigration(version: 2, name: "column") { schema in ["ALTER TABLE \(schema).a ADD COLUMN b bigint"] }

    /// A step may take longer than one statement of the stores may (an index built over a large table):
    /// migrations run under their own limit, not the configuration's `statementTimeout`. A second instance
    /// that waits meanwhile for the first one's advisory lock waits under the same limit, then finds nothing to do.
    @Test(.connections(2)) func aStepLongerThanTheStatementTimeoutRunsAndAnotherInstanceWaitsForIt() async throws {
        try await withTwoPools(statementTimeout: .milliseconds(300)) { schema, first, second in
            let slow = PostgresMigration(version: 1, name: "slow") { schema in ["SELECT pg_sleep(1)", "CREATE TABLE \(schema).a (id bigint)"] }
            let migrator = PostgresMigrator(schema: schema, migrations: [slow])
            async let one = migrator.migrate(first)
            async let two = migrator.migrate(second)
            let reports = try await [one, two]
            #expect(reports.map(\.applied).sorted { $0.count < $1.count } == [[], [1]])
            #expect(try await tables(first, schema) == ["schema_migrations", "a"])
        }
    }

    /// A step that waits for a table another transaction holds gives up after half the configuration's
    /// `statementTimeout` (PostgreSQL's `lock_timeout`, SQLSTATE 55P03), rather than queueing every store's
    /// statements on that table behind it for as long as a migration may run; the migration runs again a few
    /// times, then fails, and nothing is changed.
    @Test(.connections(2)) func aStepWaitingForATableLockGivesUpAndChangesNothing() async throws {
        try await withTwoPools(statementTimeout: .milliseconds(500), tableA: true) { schema, pool, holder in
            try await holder.transaction(attempts: 1) { connection in
                // Another client's transaction, idle as long as it likes (OneTap's own end at the statement limit).
                try await connection.execute("SET LOCAL idle_in_transaction_session_timeout = 0")
                try await connection.execute("SELECT count(*) FROM \"\(schema)\".a")
                await #expect {
                    try await PostgresMigrator(schema: schema, migrations: [Self.tableA, Self.columnB]).migrate(pool)
                } throws: { error in
                    let error = error as! PostgresError
                    return error.sqlState == "55P03" && error.message.contains("migration 2 (column)") && error.message.contains("nothing was changed")
                }
            }
            #expect(try await versions(pool, schema) == [1])
        }
    }

    private static func migrate(_ pool: PostgresPool, _ schema: String, _ steps: [PostgresMigration], after gate: Gate) async throws -> PostgresMigrationReport {
        await gate.wait()
        return try await PostgresMigrator(schema: schema, migrations: steps).migrate(pool)
    }

    /// A step that gave up waiting for a table's lock runs again: once the other transaction ends, the
    /// migration goes through.
    @Test(.connections(2)) func aStepThatGaveUpOnATableLockRunsAgainAndGoesThrough() async throws {
        let alters = LockedValue(0)
        try await withTwoPools(statementTimeout: .milliseconds(400), tableA: true, observingTheFirst: { sql in
            if sql.hasPrefix("ALTER TABLE") { alters.withLock { $0 += 1 } }
        }) { schema, pool, holder in
            let held = Gate()
            async let migrated = Self.migrate(pool, schema, [Self.tableA, Self.columnB], after: held)
            try await holder.transaction(attempts: 1) { connection in
                try await connection.execute("SET LOCAL idle_in_transaction_session_timeout = 0")  // another client's, as above
                try await connection.execute("SELECT count(*) FROM \"\(schema)\".a")
                held.open()
                // Held until the step is sent, then past its lock timeout (200 ms) with room to spare, then let go.
                try await waitUntil { alters.withLock { $0 } >= 1 }
                try await connection.execute("SELECT pg_sleep(0.3)")
                try await connection.execute("SELECT pg_sleep(0.3)")
            }
            let report = try await migrated
            #expect(report.applied == [2])
            #expect(try await versions(pool, schema) == [1, 2])
        }
        #expect(alters.withLock { $0 } >= 2, "the step gave up at least once and ran again")
    }

    @Test func openingMigratesAndAnUnreachableServerFailsClearly() async throws {
        let url = try await TestDatabase.url()
        let configuration = try TestDatabase.configuration(url)
        let stores = try await PostgresStores.open(configuration)
        #expect(try await tables(stores.pool, configuration.schema).contains("tokens"))
        await TestDatabase.dispose(stores)
        let nowhere = try PostgresConfiguration(url: "postgresql:///onetap?host=/tmp/onetap-nowhere-\(UInt32.random(in: 0...UInt32.max))")
        await #expect {
            _ = try await PostgresStores.open(nowhere)
        } throws: { error in
            let error = error as! StoreError
            return error.kind == .io && error.message.contains("connection-failed")
        }
    }
}
