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
/// | 7 | instants in milliseconds | every `timestamptz` column becomes a `bigint` of whole milliseconds since 1970 named `…_ms` (`expires_at_ms`, `keep_until_ms`, `claimed_at_ms`, …, `schema_migrations.applied_at_ms`), `sms_counters.events` the `bigint[]` `events_ms`; rows keep their instants, rounded to the millisecond |
/// | 8 | app sessions | `app_sessions` (one row per app session: id, version, the account it is logged in to, when it was revoked, its refresh token's expiry, the record's JSON; the indexes `app_sessions_account` on the live sessions of an account and `app_sessions_expiry`) |
/// | 9 | accounts | `account_numbers` (one row per phone number, its primary key: the account, when it was bound, its last and previous verification; the index `account_numbers_account`) |
/// | 10 | exchange answers | to `exchange_ledger`: `session` (the login session that claimed the token), `phone_number` and `account` (an answered exchange's, kept as long as the row), `sends` (1, or 2 after a resend); the index `exchange_ledger_pending` |
/// | 11 | sms codes per session | `sms_codes` holds one code record per number and login session: a session-bound record's row moves from the number's digits to `digits/session id` (the key ``SMSCodeKey/id``), so a stranger's send no longer replaces the owner's code; every record stays readable |
/// | 12 | sealed tokens | `tokens.key_id` (`text COLLATE "C"`, NULL for a row written unsealed): the id of the ``PostgresTokenKeyring`` key that sealed the row's tokens |
/// | 13 | login quotas | `login_quota_counters` (a login quota counter's events as a `bigint[]` of milliseconds, its keep-until; the index `login_quota_counters_keep_until`), shared by every instance's ``LoginQuotas`` |
/// | 14 | verification verdicts | to `exchange_ledger`: `verdict` (`pass`, `reject` or `unknown`: an answered number verification's, so a retry of the same token and number gets it back; NULL for an exchange) |
/// | 15 | pending merges | to `app_sessions`: the partial index `app_sessions_pending_merge` on the id of each row whose JSON holds a login's pending guest-data merge (``pendingMerge``), from which ``AppSessionStore/pendingMerges(after:limit:)`` lists them; no column, nothing rewritten |
///
/// Account ids, session ids, counters and numbers are `text COLLATE "C"`, so they compare and sort by
/// their UTF-8 bytes, as the Swift types do. Tokens are `bytea`. Every instant is a `bigint` of whole
/// milliseconds since 1970 (a column named `…_ms`), as in every record OneTap stores: a lease's expiry on
/// the database's clock (``databaseNow``), the rest on the caller's clock. The JSON columns hold each
/// record's own JSON (its instants whole milliseconds too); a row an earlier version wrote (instants as
/// seconds) is read as it is and written in the new form at its next change.
///
/// Migration 7 changes column types, so instances of an earlier version cannot run against a schema
/// it migrated: stop them first, then start the new version (which migrates before it serves).
package enum PostgresMigrations {
    /// The database's clock as whole milliseconds since 1970 (`bigint`): what a refresh lease's expiry
    /// is measured on, so that clock skew between instances cannot give one lease to two.
    /// Its function and operator named with their schema, as a statement that runs on a server connection whose search
    /// path another setting chose (a pooler's) needs them.
    package static let databaseNow = "(extract(epoch FROM pg_catalog.clock_timestamp()) OPERATOR(pg_catalog.*) 1000)::bigint"

    /// Whether an `app_sessions` row's JSON holds a pending merge (`pendingGuest`, or an earlier version's `unmergedGuest`):
    /// migration 15's index predicate, which the listing of pending merges repeats word for word so the planner takes the
    /// index. Read from the JSON itself, every row matches it as written, by any version, with nothing to backfill or
    /// keep in step; by pattern, so no row's JSON can fail the migration (a key is a quoted name before a colon, which no
    /// string value holds unescaped, and OneTap writes no space before a colon). Released with migration 15: never changes.
    package static let pendingMerge = #"(strpos(record, '"pendingGuest":') > 0 OR strpos(record, '"unmergedGuest":') > 0)"#

    /// ``databaseNow`` as migration 7 wrote it into `schema_migrations`' default (a default keeps the functions it was
    /// made with): its text is the migration's, kept as it ran.
    private static let migratedNow = "(extract(epoch FROM clock_timestamp()) * 1000)::bigint"

    /// The statements of migration 7: each `timestamptz` column (and array) to `bigint` milliseconds,
    /// renamed `…_ms`, rows converted in place (rounded to the nearest millisecond).
    static func millisecondColumns(_ schema: String) -> [String] {
        func column(_ table: String, _ name: String) -> [String] {
            [
                "ALTER TABLE \(schema).\(table) ALTER COLUMN \(name) TYPE bigint USING (extract(epoch FROM \(name)) * 1000)::bigint",
                "ALTER TABLE \(schema).\(table) RENAME COLUMN \(name) TO \(name)_ms",
            ]
        }
        // An array's elements are converted by a function of the migration's own (a column's new value
        // cannot be a subquery), dropped at once.
        let events = "\(schema).onetap_milliseconds"
        let convert = """
            CREATE FUNCTION \(events)(instants timestamptz[]) RETURNS bigint[] LANGUAGE sql STABLE AS $$ \
            SELECT coalesce(array_agg((extract(epoch FROM instant) * 1000)::bigint ORDER BY position), '{}') \
            FROM unnest(instants) WITH ORDINALITY AS event(instant, position) $$
            """
        return column("refresh_leases", "expires_at")
            + column("login_sessions", "expires_at")
            + [
                convert,
                "ALTER TABLE \(schema).sms_counters ALTER COLUMN events TYPE bigint[] USING \(events)(events)",
                "ALTER TABLE \(schema).sms_counters RENAME COLUMN events TO events_ms",
                "DROP FUNCTION \(events)(timestamptz[])",
            ]
            + column("sms_counters", "keep_until")
            + column("sms_codes", "keep_until")
            + column("exchange_ledger", "claimed_at") + column("exchange_ledger", "settled_at") + column("exchange_ledger", "forget_at")
            + column("merge_journals", "started_at") + column("merge_journals", "finished_at")
            + ["ALTER TABLE \(schema).schema_migrations ALTER COLUMN applied_at DROP DEFAULT"]
            + column("schema_migrations", "applied_at")
            + ["ALTER TABLE \(schema).schema_migrations ALTER COLUMN applied_at_ms SET DEFAULT \(migratedNow)"]
    }

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
        PostgresMigration(version: 7, name: "instants in milliseconds", statements: millisecondColumns),
        PostgresMigration(version: 8, name: "app sessions") { schema in
            [
                """
                CREATE TABLE \(schema).app_sessions (
                    id text COLLATE "C" PRIMARY KEY,
                    version bigint NOT NULL CHECK (version > 0),
                    account text COLLATE "C",
                    revoked_at_ms bigint,
                    expires_at_ms bigint NOT NULL,
                    record text NOT NULL
                )
                """,
                "CREATE INDEX app_sessions_account ON \(schema).app_sessions (account) WHERE account IS NOT NULL AND revoked_at_ms IS NULL",
                "CREATE INDEX app_sessions_expiry ON \(schema).app_sessions (expires_at_ms)",
            ]
        },
        PostgresMigration(version: 9, name: "accounts") { schema in
            [
                """
                CREATE TABLE \(schema).account_numbers (
                    number text COLLATE "C" PRIMARY KEY CHECK (number ~ '^1[3-9][0-9]{9}$'),
                    account text COLLATE "C" NOT NULL,
                    created_at_ms bigint NOT NULL,
                    last_verified_at_ms bigint NOT NULL,
                    previous_verified_at_ms bigint
                )
                """,
                "CREATE INDEX account_numbers_account ON \(schema).account_numbers (account)",
            ]
        },
        PostgresMigration(version: 10, name: "exchange answers") { schema in
            [
                """
                ALTER TABLE \(schema).exchange_ledger ADD COLUMN session text COLLATE "C", ADD COLUMN phone_number text COLLATE "C", \
                ADD COLUMN account text COLLATE "C", ADD COLUMN sends integer NOT NULL DEFAULT 1 CHECK (sends BETWEEN 1 AND 2)
                """,
                "CREATE INDEX exchange_ledger_pending ON \(schema).exchange_ledger (claimed_at_ms) WHERE state = 'pending'",
            ]
        },
        PostgresMigration(version: 11, name: "sms codes per session") { schema in
            // The session id as the record's JSON holds it (22 URL-safe base64 characters, in either form
            // OneTap ever wrote), read by pattern so no row's JSON can fail the migration.
            let session = #"substring(record from '"session":"([A-Za-z0-9_-]{22})"')"#
            return ["UPDATE \(schema).sms_codes SET number = number || '/' || \(session) WHERE \(session) IS NOT NULL"]
        },
        PostgresMigration(version: 12, name: "sealed tokens") { schema in
            ["ALTER TABLE \(schema).tokens ADD COLUMN key_id text COLLATE \"C\""]
        },
        PostgresMigration(version: 13, name: "login quotas") { schema in
            [
                """
                CREATE TABLE \(schema).login_quota_counters (
                    counter text COLLATE "C" PRIMARY KEY,
                    events_ms bigint[] NOT NULL,
                    keep_until_ms bigint NOT NULL
                )
                """,
                "CREATE INDEX login_quota_counters_keep_until ON \(schema).login_quota_counters (keep_until_ms)",
            ]
        },
        PostgresMigration(version: 14, name: "verification verdicts") { schema in
            ["ALTER TABLE \(schema).exchange_ledger ADD COLUMN verdict text COLLATE \"C\" CHECK (verdict IN ('pass', 'reject', 'unknown'))"]
        },
        PostgresMigration(version: 15, name: "pending merges") { schema in
            ["CREATE INDEX app_sessions_pending_merge ON \(schema).app_sessions (id) WHERE \(pendingMerge)"]
        },
    ]
}
