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

/// OneTap's schema, step by step. Stores to come add their tables as further steps here, in the same
/// schema, behind the same pool and runner.
///
/// | version | name | adds |
/// |---|---|---|
/// | 1 | tokens | `tokens` (one row per account, the due index `tokens_due`), the `token_versions` sequence |
/// | 2 | refresh leases | `refresh_leases` (one row per account being refreshed, with its expiry) |
/// | 3 | login sessions | `login_sessions` (one row per session: id, version, expiry, the session's JSON; the index `login_sessions_expiry`) |
/// | 4 | sms | `sms_counters` (a counter's events) and `sms_codes` (a number's code record as JSON), each with its keep-until index |
/// | 5 | exchange ledger | `exchange_ledger` (one row per exchanged token's SHA-256; the indexes `exchange_ledger_forget` and `exchange_ledger_unknown`) |
/// | 6 | guests | `guest_devices` (one row per device record key: generation, account, last-login hint), `guest_data` (one row per owner and kind, the value as JSON) and `merge_journals` (one row per merging guest: version, done, start and finish, the journal as JSON; the index `merge_journals_finished`) |
///
/// Account ids, session ids, counters and numbers are `text COLLATE "C"`, so they compare and sort by
/// their UTF-8 bytes, as the Swift types do. Tokens are `bytea`; token times are milliseconds since 1970
/// (`bigint`), the precision `AccessToken` keeps. Every other time is a `timestamptz` (to the
/// microsecond): a lease's expiry on the database's clock, the rest on the caller's clock.
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
        PostgresMigration(version: 3, name: "login sessions") { schema in
            [
                """
                CREATE TABLE \(schema).login_sessions (
                    id text COLLATE "C" PRIMARY KEY,
                    version bigint NOT NULL CHECK (version > 0),
                    expires_at timestamptz NOT NULL,
                    session text NOT NULL
                )
                """,
                "CREATE INDEX login_sessions_expiry ON \(schema).login_sessions (expires_at)",
            ]
        },
        PostgresMigration(version: 4, name: "sms") { schema in
            [
                """
                CREATE TABLE \(schema).sms_counters (
                    counter text COLLATE "C" PRIMARY KEY,
                    events timestamptz[] NOT NULL,
                    keep_until timestamptz NOT NULL
                )
                """,
                "CREATE INDEX sms_counters_keep_until ON \(schema).sms_counters (keep_until)",
                """
                CREATE TABLE \(schema).sms_codes (
                    number text COLLATE "C" PRIMARY KEY,
                    record text NOT NULL,
                    keep_until timestamptz NOT NULL
                )
                """,
                "CREATE INDEX sms_codes_keep_until ON \(schema).sms_codes (keep_until)",
            ]
        },
        PostgresMigration(version: 5, name: "exchange ledger") { schema in
            [
                """
                CREATE TABLE \(schema).exchange_ledger (
                    token bytea PRIMARY KEY CHECK (length(token) = 32),
                    state text NOT NULL,
                    code text,
                    claimed_at timestamptz NOT NULL,
                    settled_at timestamptz NOT NULL,
                    forget_at timestamptz NOT NULL
                )
                """,
                "CREATE INDEX exchange_ledger_forget ON \(schema).exchange_ledger (forget_at)",
                "CREATE INDEX exchange_ledger_unknown ON \(schema).exchange_ledger (settled_at) WHERE state = 'unknown'",
            ]
        },
        PostgresMigration(version: 6, name: "guests") { schema in
            [
                """
                CREATE TABLE \(schema).guest_devices (
                    key text COLLATE "C" PRIMARY KEY,
                    generation bigint NOT NULL CHECK (generation >= 0),
                    account text COLLATE "C",
                    last_login text
                )
                """,
                """
                CREATE TABLE \(schema).guest_data (
                    owner_kind text NOT NULL CHECK (owner_kind IN ('guest', 'account')),
                    owner text COLLATE "C" NOT NULL,
                    kind text COLLATE "C" NOT NULL,
                    value text NOT NULL,
                    PRIMARY KEY (owner_kind, owner, kind)
                )
                """,
                """
                CREATE TABLE \(schema).merge_journals (
                    guest text COLLATE "C" PRIMARY KEY,
                    version bigint NOT NULL CHECK (version > 0),
                    done boolean NOT NULL,
                    started_at timestamptz NOT NULL,
                    finished_at timestamptz,
                    journal text NOT NULL,
                    CHECK (done = (finished_at IS NOT NULL))
                )
                """,
                "CREATE INDEX merge_journals_finished ON \(schema).merge_journals (finished_at) WHERE done",
            ]
        },
    ]
}
