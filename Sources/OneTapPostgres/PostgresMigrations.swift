/// One step of the schema's history: a version, a name, and the statements that take a schema from the
/// version before to this one. Steps are only ever appended: a released step never changes.
package struct PostgresMigration: Sendable {
    /// The version this step brings the schema to, from 1.
    package let version: Int
    /// What it adds, for `schema_migrations` and logs.
    package let name: String
    /// The statements, given the double-quoted schema name (the only thing ever put into their text).
    package let statements: @Sendable (_ schema: String) -> [String]

    /// Creates a step.
    /// - Parameters:
    ///   - version: The version it brings the schema to.
    ///   - name: What it adds.
    ///   - statements: Its statements, from the quoted schema name.
    package init(version: Int, name: String, statements: @escaping @Sendable (_ schema: String) -> [String]) {
        self.version = version
        self.name = name
        self.statements = statements
    }
}

/// OneTap's schema, step by step. Stores to come (login sessions, SMS codes, guests) add their tables as
/// further steps here, in the same schema, behind the same pool and runner.
///
/// | version | name | adds |
/// |---|---|---|
/// | 1 | tokens | `tokens` (one row per account, the due index `tokens_due`), the `token_versions` sequence |
/// | 2 | refresh leases | `refresh_leases` (one row per account being refreshed, with its expiry) |
///
/// Account ids are `text COLLATE "C"`, so they compare and sort by their UTF-8 bytes, as `AccountID`
/// does. Tokens are `bytea`; times are milliseconds since 1970 (`bigint`), the precision `AccessToken`
/// keeps, except a lease's expiry, a `timestamptz` on the database's clock.
package enum PostgresMigrations {
    /// Every step, in order.
    package static let all: [PostgresMigration] = [
        PostgresMigration(version: 1, name: "tokens") { schema in
            [
                "CREATE SEQUENCE \(schema).token_versions AS bigint",
                """
                CREATE TABLE \(schema).tokens (
                    account text COLLATE "C" PRIMARY KEY,
                    version bigint NOT NULL CHECK (version > 0),
                    flow text NOT NULL,
                    access_token bytea NOT NULL,
                    refresh_token bytea,
                    issued_at_ms bigint NOT NULL,
                    expires_at_ms bigint NOT NULL,
                    due_at_ms bigint NOT NULL
                )
                """,
                "CREATE INDEX tokens_due ON \(schema).tokens (due_at_ms, account)",
            ]
        },
        PostgresMigration(version: 2, name: "refresh leases") { schema in
            [
                """
                CREATE TABLE \(schema).refresh_leases (
                    account text COLLATE "C" PRIMARY KEY,
                    holder text NOT NULL,
                    expires_at timestamptz NOT NULL
                )
                """,
                "CREATE INDEX refresh_leases_expiry ON \(schema).refresh_leases (expires_at)",
            ]
        },
    ]
}
