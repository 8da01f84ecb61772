import Foundation
import OneTap
@testable import OneTapPostgres
import Testing

/// Migration 7: every `timestamptz` column to a `bigint` of milliseconds since 1970 (`…_ms`), the rows
/// a schema at version 6 holds converted in place, and a schema migrated so has the columns of one
/// made at version 7 from the start.
@Suite(.connectionBudget) struct PostgresMigration7Tests {
    /// The columns of a schema's tables: table, column, type, nullability, default, collation, in order.
    static func columns(_ pool: PostgresPool, _ schema: String) async throws -> [[String]] {
        let rows = try await pool.execute(
            """
            SELECT table_name::text, column_name::text, data_type::text, udt_name::text, is_nullable::text, coalesce(column_default::text, ''), \
            coalesce(collation_name::text, '') FROM information_schema.columns WHERE table_schema = $1 ORDER BY table_name, ordinal_position
            """, [.text(schema)])
        return rows.rows.map { $0.map { $0.text ?? "" } }
    }

    /// The indexes and constraints, the schema's name taken out of their definitions.
    static func definitions(_ pool: PostgresPool, _ schema: String) async throws -> [String] {
        let indexes = try await pool.execute("SELECT indexname::text || ': ' || indexdef::text FROM pg_catalog.pg_indexes WHERE schemaname = $1", [.text(schema)])
        let constraints = try await pool.execute(
            """
            SELECT conrelid::regclass::text || ': ' || pg_get_constraintdef(oid) FROM pg_catalog.pg_constraint \
            WHERE connamespace = (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = $1)
            """, [.text(schema)])
        return (indexes.rows + constraints.rows).compactMap { $0.first?.text?.replacingOccurrences(of: schema, with: "SCHEMA") }.sorted()
    }

    /// A schema made at version 6 by the steps then, with rows in it, then migrated; and a schema made at
    /// version 7 from nothing: the same columns, types, defaults, indexes and constraints.
    @Test func aSchemaMigratedFrom6HasTheColumnsOfOneMadeAt7() async throws {
        let url = try await TestDatabase.url()
        let migrated = PostgresStores(configuration: try TestDatabase.configuration(url))
        let fresh = PostgresStores(configuration: try TestDatabase.configuration(url))
        let six = try await PostgresMigrator(schema: migrated.configuration.schema, migrations: Array(PostgresMigrations.all.prefix(6))).migrate(migrated.pool)
        #expect(six.version == 6)
        try await Self.seedVersion6(migrated)
        // Up to 7 only: the later steps add tables of their own, which this comparison is not about.
        let upTo7 = Array(PostgresMigrations.all.prefix(7))
        let seven = try await PostgresMigrator(schema: migrated.configuration.schema, migrations: upTo7).migrate(migrated.pool)
        #expect(seven.applied == [7])
        #expect(try await PostgresMigrator(schema: fresh.configuration.schema, migrations: upTo7).migrate(fresh.pool).applied == [1, 2, 3, 4, 5, 6, 7])
        let columns = try await Self.columns(migrated.pool, migrated.configuration.schema)
        #expect(columns == (try await Self.columns(fresh.pool, fresh.configuration.schema)))
        #expect(try await Self.definitions(migrated.pool, migrated.configuration.schema) == (try await Self.definitions(fresh.pool, fresh.configuration.schema)))
        // No instant is a timestamptz any more; each is a bigint named …_ms.
        #expect(!columns.contains { $0[3].hasPrefix("timestamp") || $0[3] == "_timestamptz" })
        let instants = columns.filter { $0[1].hasSuffix("_ms") }.map { "\($0[0]).\($0[1]) \($0[3])" }
        #expect(instants == [
            "exchange_ledger.claimed_at_ms int8", "exchange_ledger.settled_at_ms int8", "exchange_ledger.forget_at_ms int8", "login_sessions.expires_at_ms int8",
            "merge_journals.started_at_ms int8", "merge_journals.finished_at_ms int8", "refresh_leases.expires_at_ms int8", "schema_migrations.applied_at_ms int8",
            "sms_codes.keep_until_ms int8", "sms_counters.events_ms _int8", "sms_counters.keep_until_ms int8", "tokens.issued_at_ms int8",
            "tokens.expires_at_ms int8", "tokens.due_at_ms int8",
        ])
        await TestDatabase.dispose(migrated)
        await TestDatabase.dispose(fresh)
    }

    /// Rows in every converted column, written at version 6 (to the microsecond, as `timestamptz` holds
    /// them), read back as milliseconds after the migration: the nearest millisecond, a half away from
    /// zero; an array's order kept, an empty array empty; `NULL` left `NULL`.
    @Test func theRowsKeepTheirInstantsToTheMillisecond() async throws {
        let url = try await TestDatabase.url()
        let stores = PostgresStores(configuration: try TestDatabase.configuration(url))
        _ = try await PostgresMigrator(schema: stores.configuration.schema, migrations: Array(PostgresMigrations.all.prefix(6))).migrate(stores.pool)
        try await Self.seedVersion6(stores)
        _ = try await stores.migrate()
        let schema = "\"\(stores.configuration.schema)\""
        func values(_ sql: String) async throws -> [[PostgresValue]] { try await stores.pool.execute(sql).rows }
        // 2026-12-01T08:00:00.1235Z is 1796112000123.5 ms: 124; …00.1234 is 123; …00.9996 is 1796112001000.
        #expect(try await values("SELECT expires_at_ms FROM \(schema).refresh_leases") == [[.int64(1_796_112_000_124)]])
        #expect(try await values("SELECT id, expires_at_ms FROM \(schema).login_sessions") == [[.text("s-1"), .int64(1_796_112_000_123)]])
        #expect(try await values("SELECT counter, events_ms, keep_until_ms FROM \(schema).sms_counters ORDER BY counter") == [
            [.text("a"), .int64Array([1_796_112_001_000, 1_796_112_000_124, 0]), .int64(1_796_284_800_000)],
            [.text("b"), .int64Array([]), .int64(1_796_284_800_000)],
        ])
        #expect(try await values("SELECT keep_until_ms FROM \(schema).sms_codes") == [[.int64(1_796_284_800_001)]])
        #expect(try await values("SELECT claimed_at_ms, settled_at_ms, forget_at_ms FROM \(schema).exchange_ledger") == [
            [.int64(1_796_112_000_000), .int64(1_796_112_000_500), .int64(1_796_198_400_000)],
        ])
        #expect(try await values("SELECT guest, started_at_ms, finished_at_ms FROM \(schema).merge_journals ORDER BY guest") == [
            [.text("g-1"), .int64(1_796_112_000_250), .null], [.text("g-2"), .int64(1_796_112_000_250), .int64(1_796_112_002_000)],
        ])
        // The migrator's own log: each step's time, and the default that times the next.
        let applied = try await values("SELECT version, applied_at_ms FROM \(schema).schema_migrations ORDER BY version")
        #expect(applied.count == PostgresMigrations.all.count)
        let now = Date().millisecondsSince1970
        #expect(applied.allSatisfy { ($0[1].int64 ?? 0) > now - 3_600_000 && ($0[1].int64 ?? .max) <= now + 60_000 }, "\(applied)")
        await TestDatabase.dispose(stores)
    }

    /// Rows a version-6 schema holds, written with SQL as the stores of that version wrote them.
    static func seedVersion6(_ stores: PostgresStores) async throws {
        let schema = "\"\(stores.configuration.schema)\""
        for statement in [
            "INSERT INTO \(schema).refresh_leases VALUES ('a', 'h', '2026-12-01T08:00:00.1235Z')",
            "INSERT INTO \(schema).login_sessions VALUES ('s-1', 1, '2026-12-01T08:00:00.1234Z', '{}')",
            """
            INSERT INTO \(schema).sms_counters VALUES \
            ('a', ARRAY['2026-12-01T08:00:00.9996Z', '2026-12-01T08:00:00.1235Z', '1970-01-01T00:00:00Z']::timestamptz[], '2026-12-03T08:00:00Z'), \
            ('b', '{}', '2026-12-03T08:00:00Z')
            """,
            "INSERT INTO \(schema).sms_codes VALUES ('13800138000', '{}', '2026-12-03T08:00:00.0005Z')",
            "INSERT INTO \(schema).exchange_ledger VALUES ('\\x\(String(repeating: "ab", count: 32))', 'answered', '0', '2026-12-01T08:00:00Z', '2026-12-01T08:00:00.5Z', '2026-12-02T08:00:00Z')",
            """
            INSERT INTO \(schema).merge_journals VALUES ('g-1', 1, false, '2026-12-01T08:00:00.25Z', NULL, '{}'), \
            ('g-2', 2, true, '2026-12-01T08:00:00.25Z', '2026-12-01T08:00:02Z', '{}')
            """,
        ] {
            try await stores.pool.execute(statement)
        }
    }
}
