import Foundation
import OneTap
import OneTapTesting
@testable import OneTapPostgres
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite(.connectionBudget) struct PostgresConnectionTests {
    func withConnection(
        statementTimeout: Duration = .seconds(20), waiter: PostgresSocketWaiter? = PostgresSocketWaiter.shared, observer: (@Sendable (String) -> Void)? = nil,
        _ body: (PostgresConnection) async throws -> Void
    ) async throws {
        try await TestDatabase.withConnection(statementTimeout: statementTimeout, waiter: waiter, observer: observer, body)
    }

    @Test(arguments: [
        PostgresValue.text("plain"), .text("it's \"quoted\" \\ $1 -- ; DROP TABLE x"), .text("用户 🙂 café\u{301}"), .text(""),
        .bytes([0, 1, 2, 255, 39, 92]), .bytes([]), .int64(0), .int64(.max), .int64(.min), .bool(true), .bool(false),
        .instant(Date(timeIntervalSince1970: 1_796_083_200.123456)), .instants([Date(timeIntervalSince1970: 1_796_083_200.125), .distantPast, .distantFuture]),
        .textArray(["plain", "it's \"quoted\" {a,b} \\ NULL", "", "用户 🙂"]), .textArray([]), .int64Array([0, 1, .max, .min]), .int64Array([]),
    ])
    func valuesTravelBoundAndComeBackUnchanged(value: PostgresValue) async throws {
        let log = StatementLog()
        try await withConnection(observer: log.observer) { connection in
            let type = switch value {
            case .text: "text"
            case .bytes: "bytea"
            case .int64: "bigint"
            case .bool: "boolean"
            case .textArray: "text[]"
            case .int64Array: "bigint[]"
            case .null: "text"
            }
            let rows = try await connection.execute("SELECT $1::\(type) AS value, $2::text IS NULL AS missing", [value, .null])
            #expect(rows.columns == ["value", "missing"])
            #expect(rows.rows.count == 1)
            #expect(rows.first?[1] == .bool(true))
            #expect(rows.first?[0] == value)
        }
        // The statement text is all the server saw as SQL; the value went apart.
        #expect(log.statements.allSatisfy { !$0.contains("DROP") && !$0.contains("用户") })
    }

    /// An attacker's read of the stores: OneTap's statements named functions without their schema (`nextval`, `unnest`,
    /// `hashtextextended`), and PostgreSQL takes a same-named function from any schema on the search path whose argument
    /// types fit better (an unknown-typed literal prefers `text`; `bigint[]` beats `anyarray`): a role that can create
    /// functions in a schema on OneTap's path (`public`, before PostgreSQL 15) ran its own code inside OneTap's
    /// statements (CVE-2018-1058), e.g. an `unnest` returning nothing, which took every counter's lock away. Every
    /// connection searches `pg_catalog` and `pg_temp` alone; and since a session setting does not follow a pooler in
    /// transaction mode (a server connection that never ran OneTap's, or `DISCARD ALL`), the calls such a function could
    /// take (and the `*` of the database's clock) name `pg_catalog` too: the test then sets the planted path again on
    /// the pool's one connection, as such a server connection would have it.
    @Test func functionsPlantedOnTheSearchPathAreNeverCalled() async throws {
        let planted = TestDatabase.schemaName()
        try await withConnection { connection in
            try await connection.execute("CREATE SCHEMA \(planted)")
            for function in [
                "nextval(text) RETURNS bigint", "unnest(bigint[]) RETURNS SETOF bigint", "hashtextextended(text, integer) RETURNS bigint",
                "times(numeric, integer) RETURNS numeric",
            ] {
                try await connection.execute(
                    "CREATE FUNCTION \(planted).\(function) LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'the planted function ran'; END $$")
            }
            try await connection.execute("CREATE OPERATOR \(planted).* (LEFTARG = numeric, RIGHTARG = integer, FUNCTION = \(planted).times)")
        }
        let url = try await Self.sharedURL(adding: "options", "-csearch_path=\(planted),public")
        let configuration = try TestDatabase.configuration(url, poolSize: 1)
        let fresh = TestDatabase.schemaName()
        try await afterwards(
            "DROP SCHEMA \(planted) CASCADE", "DROP SCHEMA \"\(configuration.schema)\" CASCADE", "DROP SCHEMA IF EXISTS \"\(fresh)\" CASCADE"
        ) {
            let stores = try await PostgresStores.open(configuration, events: DiscardingEventSink())   // the migrator's lock
            do {
                for (path, account) in [("pg_catalog, pg_temp", "u1"), ("\(planted), public", "u2")] as [(String, AccountID)] {   // OneTap's, then a pooler's
                    try await stores.pool.execute("SELECT pg_catalog.set_config('search_path', $1, false)", [.text(path)])
                    try await stores.migrate()   // the migrator's lock again
                    _ = try await stores.tokenStore().save(Tokens.make(account), replacing: nil, dueAt: Tokens.now)   // nextval
                    let counter = SMSPolicy.Counter(counts: .sends, key: .ip, value: "203.0.113.9")
                    try await stores.smsStore().update(counters: [counter], code: nil, at: Tokens.now) { state in   // the counters' locks
                        state.events[counter] = [Tokens.now]
                        state.keepUntil = Tokens.now.addingTimeInterval(60)
                    }
                    _ = try await stores.removeExpiredRows(before: Tokens.now)   // the database's clock
                }
                // Every migration of a fresh schema on the pooled connection (migration 7's `* 1000`, its function, the
                // default it gives `schema_migrations`): the migrator's transaction sets its own search path.
                _ = try await PostgresMigrator(schema: fresh).migrate(stores.pool)
            } catch {
                await stores.close()
                throw error
            }
            await stores.close()
        }
    }

    /// The shared server's URL with one more connection parameter, in the URL's own form (a URI's query, or a
    /// `keyword=value` string).
    static func sharedURL(adding keyword: String, _ value: String) async throws -> String {
        let base = try await TestDatabase.url()
        guard base.contains("://") else { return base + " \(keyword)='\(value)'" }
        let encoded = value.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-_"))) ?? value
        return base + (base.contains("?") ? "&" : "?") + "\(keyword)=\(encoded)"
    }

    /// Runs `body`, then the statements `cleanUp` on a connection of their own whether or not `body` threw; `body`'s
    /// error is thrown after the clean-up.
    func afterwards(_ cleanUp: String..., body: () async throws -> Void) async throws {
        var failure: (any Error)?
        do {
            try await body()
        } catch {
            failure = error
        }
        try await withConnection { connection in
            for statement in cleanUp { try await connection.execute(statement) }
        }
        if let failure { throw failure }
    }

    /// OneTap binds and reads text as UTF-8, and PostgreSQL converts text to the session's `client_encoding` (binary
    /// format too): a database whose default for clients is GBK (or `PGCLIENTENCODING=GBK` in the server's
    /// environment) would refuse `中` or store it garbled. Every session says UTF8 itself.
    @Test func aSessionIsUTF8WhateverTheDatabaseSetsForClients() async throws {
        let database = "gbk_" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
        try await withConnection { connection in
            try await connection.execute("CREATE DATABASE \(database)")
            try await connection.execute("ALTER DATABASE \(database) SET client_encoding = 'GBK'")
        }
        let url = try await Self.sharedURL(adding: "dbname", database)
        try await afterwards("DROP DATABASE \(database)") {
            let connection = try await PostgresConnection.open(try TestDatabase.configuration(url))
            do {
                #expect(try await connection.execute("SHOW client_encoding").first == [.text("UTF8")])
                #expect(try await connection.execute("SELECT $1::text", [.text("用户 中文")]).first == [.text("用户 中文")])
            } catch {
                await connection.close()
                throw error
            }
            await connection.close()
        }
    }

    @Test func aServerErrorCarriesItsSQLStateButNeverItsDetail() async throws {
        try await withConnection { connection in
            try await connection.execute("CREATE TEMPORARY TABLE secrets (value text PRIMARY KEY)")
            try await connection.execute("INSERT INTO secrets VALUES ($1)", [.text("detail-secret-42")])
            await #expect {
                try await connection.execute("INSERT INTO secrets VALUES ($1)", [.text("detail-secret-42")])
            } throws: { error in
                let error = error as! PostgresError
                return error.kind == .server && error.sqlState == "23505" && error.message.contains("duplicate key")
                    && !error.description.contains("detail-secret-42")
            }
            #expect(!connection.isBroken)
            #expect(try await connection.execute("SELECT count(*) FROM secrets").first == [.int64(1)])
        }
    }

    @Test func aStatementOverTheTimeoutIsCancelledByTheServerAndTheConnectionStaysUsable() async throws {
        try await withConnection(statementTimeout: .milliseconds(200)) { connection async throws in
            let started = ContinuousClock.now
            await #expect {
                try await connection.execute("SELECT pg_sleep(5)")
            } throws: { error in
                let error = error as! PostgresError
                return error.kind == .timeout && error.sqlState == "57014" && error.message.contains("0.2 s")
            }
            #expect(ContinuousClock.now - started < .seconds(20))  // not the 5 s of the sleep… nor a hang
            #expect(!connection.isBroken)
            #expect(try await connection.execute("SELECT 1").first == [.int64(1)])
        }
    }

    /// A transaction left idle longer than the statement time limit (an instance frozen between two statements while
    /// it holds a row or an advisory lock, which holds back every other instance's counter update) is ended by the
    /// server, its locks freed (a review: nothing bounded it but TCP noticing a dead peer).
    /// (The limit is the statement limit, 10 s at least: a busy machine may pause a client that long between two
    /// statements. The server's ending of such a transaction is PostgreSQL's own.)
    @Test(arguments: [(Duration.milliseconds(300), "10s"), (.seconds(20), "20s")])
    func connectionsLimitHowLongATransactionSitsIdle(statementTimeout: Duration, idle: String) async throws {
        // The product's own configuration (the tests' own raise it: `TestDatabase.idleInTransactionTimeout`).
        let configuration = try PostgresConfiguration(
            url: try await TestDatabase.url(), poolSize: 1, connectTimeout: .seconds(60), statementTimeout: statementTimeout)
        #expect(configuration.idleInTransactionTimeout == max(statementTimeout, .seconds(10)))
        let connection = try await PostgresConnection.open(configuration)
        let shown: [PostgresValue]?
        do {
            shown = try await connection.execute("SHOW idle_in_transaction_session_timeout").first
        } catch {
            await connection.close()
            throw error
        }
        await connection.close()
        #expect(shown == [.text(idle)])
        // The tests' connections: two minutes.
        try await withConnection(statementTimeout: statementTimeout) { connection async throws in
            #expect(try await connection.execute("SHOW idle_in_transaction_session_timeout").first == [.text("2min")])
        }
    }

    @Test func aTransactionRollsBackWhenItsBodyThrows() async throws {
        try await withConnection { connection in
            try await connection.execute("CREATE TEMPORARY TABLE kept (value bigint)")
            await #expect(throws: PostgresError.self) {
                try await connection.transaction { (connection) -> Void in
                    try await connection.execute("INSERT INTO kept VALUES (1)")
                    try await connection.execute("SELECT * FROM no_such_table")
                }
            }
            #expect(try await connection.execute("SELECT count(*) FROM kept").first == [.int64(0)])
            try await connection.transaction { (connection) -> Void in
                try await connection.execute("INSERT INTO kept VALUES (2)")
            }
            #expect(try await connection.execute("SELECT count(*) FROM kept").first == [.int64(1)])
        }
    }

    /// A body that swallows a failed statement and returns does not make the transaction look committed:
    /// the server answers the `COMMIT` of an aborted transaction with `ROLLBACK`, and the call throws.
    @Test func aTransactionTheServerRolledBackIsNotReportedCommitted() async throws {
        try await withConnection { connection in
            try await connection.execute("CREATE TEMPORARY TABLE kept (value bigint)")
            await #expect {
                try await connection.transaction { (connection) -> Void in
                    try await connection.execute("INSERT INTO kept VALUES (1)")
                    await #expect(throws: PostgresError.self) { try await connection.execute("SELECT * FROM no_such_table") }
                }
            } throws: { error in
                let error = error as! PostgresError
                return error.kind == .server && error.message.contains("rolled the transaction back") && error.message.contains("nothing was written")
            }
            #expect(try await connection.execute("SELECT count(*) FROM kept").first == [.int64(0)])
            #expect(try await connection.execute("SELECT 1::bigint").first == [.int64(1)])
        }
    }

    /// A transaction runs at READ COMMITTED, which the stores' statements are written for, whatever the
    /// database's or the role's default (`default_transaction_isolation`).
    @Test func aTransactionIsReadCommittedWhateverTheSessionsDefault() async throws {
        try await withConnection { connection in
            try await connection.execute("SET default_transaction_isolation = 'serializable'")
            let level = try await connection.transaction { connection in
                try await connection.execute("SHOW transaction_isolation").first?.first?.text
            }
            #expect(level == "read committed")
        }
    }

    /// A statement outside a transaction runs at READ COMMITTED too (a review: only `transaction()` chose it, and every
    /// single-statement compare-and-swap ran at the role's or the database's default).
    @Test func aStatementIsReadCommittedWhateverTheRolesDefault() async throws {
        let url = try await TestDatabase.url()
        let strict = url + (url.contains("?") ? "&" : "?") + "options=-c%20default_transaction_isolation%3Dserializable"
        let connection = try await PostgresConnection.open(try TestDatabase.configuration(strict))
        do {
            #expect(try await connection.execute("SHOW transaction_isolation").first?.first?.text == "read committed")
        } catch {
            Issue.record("SHOW failed: \(error)")
        }
        await connection.close()
    }

    /// More statements than Swift's cooperative pool has threads (it has one per online core), and eight at least.
    static let sleepers = max(8, sysconf(Int32(_SC_NPROCESSORS_ONLN)) + 1)

    /// Statements waiting for the server hold no thread of their callers': more connections than Swift's cooperative
    /// pool has threads wait on `pg_sleep(60)`, and meanwhile one more runs statements on the same pool, sees them all
    /// asleep and cancels them. A statement that waited on its caller's thread held the pool, and the watching
    /// connection ran only once the sleeps had ended. Both ways of waiting: the process's ``PostgresSocketWaiter`` and,
    /// where there is none, the connection's own thread.
    @Test(.connections(Self.sleepers + 1), .timeLimit(.minutes(3)), arguments: [true, false])
    func statementsWaitingOnTheServerHoldNoThreadOfTheCallers(sharedWaiter: Bool) async throws {
        let configuration = try TestDatabase.configuration(try await TestDatabase.url(), statementTimeout: .seconds(90))
        let waiter = sharedWaiter ? PostgresSocketWaiter.shared : nil
        #expect(sharedWaiter == false || waiter != nil, "Linux has epoll and eventfd: the process has a waiter")
        var sleepers: [PostgresConnection] = []
        for _ in 0..<Self.sleepers { sleepers.append(try await PostgresConnection.open(configuration, waiter: waiter)) }
        let watcher = try await PostgresConnection.open(configuration, waiter: waiter)
        let tag = "onetap_sleep_\(UInt32.random(in: 0...UInt32.max))"  // in the text: the other case's sleepers are not counted
        let sawAllAsleep = try await withThrowingTaskGroup(of: Bool.self) { group in
            for sleeper in sleepers {
                group.addTask {
                    do {
                        try await sleeper.execute("SELECT pg_catalog.pg_sleep(60) AS \(tag)")
                    } catch let error as PostgresError where error.sqlState == "57014" {
                        // cancelled by the watcher
                    }
                    return false
                }
            }
            group.addTask {
                let asleep = "FROM pg_catalog.pg_stat_activity WHERE state = 'active' AND query LIKE $1 AND pid <> pg_catalog.pg_backend_pid()"
                let deadline = ContinuousClock.now + .seconds(50)
                var saw = false
                while !saw && ContinuousClock.now < deadline {
                    saw = try await watcher.execute("SELECT count(*) " + asleep, [.text("%" + tag + "%")]).first == [.int64(Int64(Self.sleepers))]
                    if !saw { try await Task.sleep(for: .milliseconds(20)) }
                }
                try await watcher.execute("SELECT pg_catalog.pg_cancel_backend(pid) " + asleep, [.text("%" + tag + "%")])
                return saw
            }
            var saw = false
            for try await result in group { saw = saw || result }
            return saw
        }
        #expect(sawAllAsleep, "the watching connection did not see the \(Self.sleepers) asleep while they slept")
        for sleeper in sleepers { await sleeper.close() }
        await watcher.close()
    }

    @Test func noServerAtTheAddressFailsToConnectNamingTheSocket() async throws {
        let directory = "/tmp/onetap-no-server-\(UInt32.random(in: 0...UInt32.max))"
        let configuration = try PostgresConfiguration(url: "postgresql://api:hunter2@/onetap?host=\(directory)")
        await #expect {
            _ = try await PostgresConnection.open(configuration)
        } throws: { error in
            let error = error as! PostgresError
            return error.kind == .connectionFailed && error.message.contains(directory) && !error.description.contains("hunter2")
        }
    }

    /// A server that accepts the connection and never answers: the connect timeout ends the wait.
    /// A statement larger than the socket's buffer is sent in parts, each waiting for the socket to take more (the
    /// `POLLOUT` wait), by both ways of waiting, and arrives whole.
    @Test(arguments: [true, false]) func aStatementLargerThanTheSocketsBufferIsSentWhole(sharedWaiter: Bool) async throws {
        try await withConnection(waiter: sharedWaiter ? PostgresSocketWaiter.shared : nil) { connection async throws in
            let value = (0..<8_388_608).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            #expect(try await connection.execute("SELECT octet_length($1)::bigint", [.bytes(value)]).first?.first == .int64(8_388_608))
        }
    }

    /// Connecting holds no thread of the callers' either (libpq may look the host name up, which blocks, and waits for
    /// the server up to the connect time-out): more connections than Swift's cooperative pool has threads connect to a
    /// server that lets them in and never answers, and meanwhile a task on the same pool sees every one of them arrive,
    /// then closes them (so the connections fail at once, not at their 20 s time-out). Connections that connected on
    /// their callers' threads held the pool, and the task ran only once they had timed out.
    @Test(.timeLimit(.minutes(4))) func connectingHoldsNoThreadOfTheCallers() async throws {
        try await withSilentServer { directory, listener in
            try #require(fcntl(listener, F_SETFL, fcntl(listener, F_GETFL) | O_NONBLOCK) == 0)
            let configuration = try PostgresConfiguration(url: "postgresql:///onetap?host=\(directory)", connectTimeout: .seconds(20))
            let count = Self.sleepers
            // Counted from before any connection starts: connections that held the pool's threads would keep the task off
            // them until their 20 s time-out.
            let deadline = ContinuousClock.now + .seconds(15)
            let sawAll = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<count {
                    group.addTask {
                        do {
                            _ = try await PostgresConnection.open(configuration)
                        } catch {
                            // refused once the watcher closed it
                        }
                        return false
                    }
                }
                group.addTask {
                    var accepted: [Int32] = []
                    while accepted.count < count && ContinuousClock.now < deadline {
                        let client = accept(listener, nil, nil)
                        if client >= 0 { accepted.append(client) } else { try await Task.sleep(for: .milliseconds(5)) }
                    }
                    for client in accepted { close(client) }
                    return accepted.count == count
                }
                var saw = false
                for try await result in group { saw = saw || result }
                return saw
            }
            #expect(sawAll, "the task on the callers' pool did not see the \(count) connections arrive while they connected")
        }
    }

    /// Runs `body` beside a server that lets clients in and never answers: a Unix socket listening where libpq looks
    /// for PostgreSQL in `directory`, never accepting by itself.
    /// - Parameter body: Given the directory (a URL's `host`) and the listening socket.
    /// - Throws: What `body` throws, or when the socket cannot be made.
    func withSilentServer(_ body: (String, Int32) async throws -> Void) async throws {
        let directory = "/tmp/onetap-silent-\(UInt32.random(in: 0...UInt32.max))"
        mkdir(directory, 0o700)
        defer { removeTemporary(directory) }
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let path = Array((directory + "/.s.PGSQL.5432").utf8CString)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.enumerated() where index < raw.count { raw[index] = UInt8(bitPattern: byte) }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0)
        try #require(listen(listener, 128) == 0)
        try await body(directory, listener)
    }

    @Test func aServerThatNeverAnswersTimesOutConnecting() async throws {
        try await withSilentServer { directory, _ in
            let configuration = try PostgresConfiguration(url: "postgresql:///onetap?host=\(directory)", connectTimeout: .milliseconds(300))
            let started = ContinuousClock.now
            await #expect {
                _ = try await PostgresConnection.open(configuration)
            } throws: { error in
                let error = error as! PostgresError
                return error.kind == .timeout && error.message.contains("connect timeout of 0.3 s")
        }
        let elapsed = ContinuousClock.now - started
        #expect(elapsed >= .milliseconds(250) && elapsed < .seconds(20), "\(elapsed)")  // bounded, whatever the load
        }
    }
}

/// The socket wait under every statement's deadline (no server needed): an answer that came while the waiting
/// thread was not running is taken, even when the thread wakes past the deadline (a loaded CI machine once woke
/// a thread late enough that an arrived answer was thrown away as the client's own time-out).
@Suite struct PostgresSocketWaitTests {
    @Test func pastTheDeadlineAReadySocketIsTakenAndAQuietOneTimesOut() throws {
        var ends: [Int32] = [0, 0]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0)
        defer {
            close(ends[0])
            close(ends[1])
        }
        #expect(write(ends[1], "x", 1) == 1)
        let passed = Monotonic.now - 1
        #expect(PostgresConnection.wait(ends[0], for: Int16(POLLIN), until: passed), "the byte that came is taken")
        #expect(!PostgresConnection.wait(ends[1], for: Int16(POLLIN), until: passed), "nothing came: a time-out, at once")
    }

    /// An attacker's read of the PostgreSQL layer: a server that lets the client in and then stalls (overloaded) held
    /// the session's setup statement for the statement timeout and two seconds more past the connect timeout, and the
    /// failure said the statement's outcome was unknown (`passedAwaitingAnAnswer`: a store's write "may have been
    /// committed", `onetap db` exit 1) for a statement of the caller's that was never sent. Opening stays within the
    /// connect timeout (and the two seconds every answer gets) and fails as a time-out of the connection.
    @Test(.timeLimit(.minutes(3)), arguments: [true, false]) func aServerThatStallsAfterLettingTheClientInIsAConnectTimeout(sharedWaiter: Bool) async throws {
        let fake = try await FakeServer.start("stalled_postgres.py")
        defer { fake.stop() }
        // A connect timeout of 3 s: the fake (Python) lets the client in within it however loaded the machine (at 0.5 s, a
        // loaded CI run timed out before it had, and the failure was the connection's, not the setup's under test).
        let configuration = try PostgresConfiguration(
            url: "postgresql://api@127.0.0.1:\(fake.port)/onetap?sslmode=disable", connectTimeout: .seconds(3), statementTimeout: .seconds(40))
        let started = ContinuousClock.now
        await #expect {
            _ = try await PostgresConnection.open(configuration, waiter: sharedWaiter ? PostgresSocketWaiter.shared : nil)
        } throws: { error in
            let error = error as! PostgresError
            return error.kind == .timeout && !error.passedAwaitingAnAnswer
                && error.message.contains("its session could not be set up within the connect timeout of 3.0 s")
        }
        let elapsed = ContinuousClock.now - started
        // 5 s expected (the connect timeout and the two seconds every answer gets); the bound leaves a loaded machine room
        // (a CI run took 11.4 s at a connect timeout of 0.5 s) and stays far from the 40 s.
        #expect(elapsed < .seconds(25), "\(elapsed): not the statement timeout of 40 s")
    }
}
