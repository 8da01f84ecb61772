#if canImport(Glibc)
import Glibc
#endif
import Foundation
import OneTap
import OneTapGateways
import OneTapPostgres
import OneTapPostgresTestSupport
import OneTapTesting

/// Logins per second end to end on PostgreSQL (issue 22): a ``LoginServer`` over `PostgresStores` (the login
/// session store and the exchange ledger) with an ``ExchangeGuard`` over `ChinaMobileTokenExchange` (MD5
/// mode, `URLSessionTransport`) against the loopback fake. Each login is `LoginFlood.honestLogin(_:user:)`:
/// start → the one-tap success report → the exchange (the fake's 103000) → `done success`, a distinct token
/// per user. At 1 and 8 concurrent clients: logins a second, p50/p90 (p99 in `p99Ns`).
///
/// The round trips per login are counted with the stores' statement observer over a few logins one after
/// another (every statement the pool sends is one round trip; by its first word in `statements`). The
/// reference, "the limit": `pgbench` on the same server, at the same clients, running a custom script made
/// from the statements one real login sent (the last one counted, captured with their values through the
/// pool's values observer, `bytea` zero-filled), in the same order and transaction grouping, with the
/// session's id and the token digest made unique per pgbench transaction (``PgbenchReplay``). So one pgbench
/// transaction is one login's statements, the script cannot drift from the stores, and the ratio (our
/// logins a second over pgbench's transactions a second) is the share of the database's limit a login
/// reaches with the carrier's loopback fake and the server's own work on top. After the rows, the replayed
/// rows are checked (`replayCheck`): every pgbench session at the login's last version, its ledger row
/// answered. `ONETAP_BENCH_LOGIN_SCRIPT=PATH` keeps a copy of the script.
///
/// The whole server login (issue 23), on the same server, fake and stores, at 1, 8 and 32 concurrent
/// clients: see ``measureWhole(_:_:_:_:url:pgbench:fake:_:_:)``.
enum GatewayLoginBenchmarks {
    static let names = [1, 8].map { "login end to end on postgres (cmcc fake, \($0) client\($0 == 1 ? "" : "s"))" }
    /// The whole server login's rows (``measureWhole(_:_:_:_:url:pgbench:fake:_:_:)``).
    static let wholeClients = [1, 8, 32]
    static let wholeNames = wholeClients.map { "login end to end on postgres, whole server login (\($0) client\($0 == 1 ? "" : "s"))" }

    static func run(_ options: BenchmarkOptions, _ report: inout Report) async {
        guard (names + wholeNames).contains(where: options.wants) else { return }
        let fake: FakeServer
        switch await BenchmarkFake.start("cmcc_login_token_validate.py", GatewayBenchmarks.fakeArguments("MD5")) {
        case .success(let started): fake = started
        case .failure(let failure):
            print("login end to end on postgres: skipped: \(failure)")
            return
        }
        defer { fake.stop() }
        // A connection for each of the most clients a row runs (the private server allows 300).
        await BenchmarkPostgres.run(
            "login end to end on postgres", schemaPrefix: "bench_gw_", poolSize: wholeClients.max() ?? 8, serverOptions: PostgresTestServer.Options(), &report
        ) { stores, url, server, report in
            let pgbench = (server?.binaries ?? PostgresTestServer.findBinaries()).map { $0 + "/pgbench" }
            try await measure(stores, url: url, pgbench: pgbench.flatMap { FileManager.default.isExecutableFile(atPath: $0) ? $0 : nil }, fake: fake, options, &report)
        }
    }

    private static func measure(
        _ stores: PostgresStores, url: String, pgbench: String?, fake: FakeServer, _ options: BenchmarkOptions, _ report: inout Report
    ) async throws {
        let statements = LockedValue([String: Int]())
        let capture = LockedValue((on: false, seen: [ObservedStatement]()))
        // A second set of stores on the same schema whose pool counts every statement it sends and, while
        // capturing, keeps them with their values.
        let counted = PostgresStores(
            configuration: stores.configuration,
            observer: { sql in
                let verb = String(sql.prefix { !$0.isWhitespace }).uppercased()
                statements.withLock { $0[verb, default: 0] += 1 }
            },
            valuesObserver: { sql, values in capture.withLock { if $0.on { $0.seen.append(ObservedStatement(sql: sql, values: values)) } } })
        let observed = Observed(statements: statements, capture: capture)
        do {
            if names.contains(where: options.wants) {
                try await measureCounted(counted, stores.pool, observed, url: url, pgbench: pgbench, fake: fake, options, &report)
            }
            if wholeNames.contains(where: options.wants) {
                try await measureWhole(counted, stores, stores.pool, observed, url: url, pgbench: pgbench, fake: fake, options, &report)
            }
        } catch {
            await counted.close()
            throw error
        }
        await counted.close()
    }

    /// What the counted stores' pool saw: every statement by its first word, and, while capturing, each
    /// statement with its values.
    struct Observed: Sendable {
        let statements: LockedValue<[String: Int]>
        let capture: LockedValue<(on: Bool, seen: [ObservedStatement])>
    }

    /// One login as a row runs it: what it left for the replay, or why it failed.
    typealias OneLogin = @Sendable () async -> Result<Finished, LoginFailure>

    /// What a login left that its replay makes unique per pgbench transaction, and the login session's last version.
    struct Finished: Sendable {
        var keys: Set<String>
        var numbers: Set<String> = []
        var loginVersion: Int
        /// The app session's id, for the whole login.
        var appSession: String? = nil
        /// What the replay's keys start with: the replay check counts the rows of one script.
        var prefix = "pgb-"
    }

    /// Why a login failed: one line, its reason.
    struct LoginFailure: Error {
        let reason: String
    }

    /// Logins one after another, after one to open the pool's connection and warm the code paths: the
    /// statements per login (and by first word), and the last login's statements with their values.
    static func countAndCapture(
        _ observed: Observed, counting: Int, _ login: OneLogin
    ) async throws -> (perLogin: Double, breakdown: String, statements: [ObservedStatement], last: Finished) {
        if case .failure(let failure) = await login() { throw PostgresBenchmarks.BenchmarkFailure(failure.reason) }
        observed.statements.withLock { $0 = [:] }
        var captured: (Finished, [ObservedStatement])? = nil
        for index in 0..<counting {
            // The last login's statements, with their values, are the pgbench script.
            if index == counting - 1 { observed.capture.withLock { $0 = (true, []) } }
            let finished: Finished
            switch await login() {
            case .success(let done): finished = done
            case .failure(let failure): throw PostgresBenchmarks.BenchmarkFailure(failure.reason)
            }
            if index == counting - 1 { captured = (finished, observed.capture.withLock { $0.on = false; return $0.seen }) }
        }
        guard let captured else { throw PostgresBenchmarks.BenchmarkFailure("no login was captured") }
        let counts = observed.statements.withLock { $0 }
        let perLogin = Double(counts.values.reduce(0, +)) / Double(counting)
        let breakdown = counts.sorted { $0.key < $1.key }.map { "\($0.key)×\(format(Double($0.value) / Double(counting)))" }.joined(separator: " ")
        return (perLogin, breakdown, captured.1, captured.0)
    }

    /// The captured login as a pgbench script in `directory`; `keep` names the environment variable whose
    /// path gets a copy.
    static func writeScript(_ statements: [ObservedStatement], _ last: Finished, directory: String, keep: String) throws -> String {
        let script = directory + "/login.sql"
        let replay = try PgbenchReplay.script(statements, keys: last.keys, numbers: last.numbers, prefix: last.prefix)
        try replay.write(toFile: script, atomically: true, encoding: .utf8)
        if let path = ProcessInfo.processInfo.environment[keep], !path.isEmpty {
            try replay.write(toFile: path, atomically: true, encoding: .utf8)
        }
        return script
    }

    /// What the lanes of a row did: the timing, the logins a second by the wall clock, and the count of
    /// every login: started, succeeded, failed by reason.
    struct LaneRun {
        var timing: PostgresBenchmarks.Timing
        var wallRate: Double
        var started = 0
        var succeeded = 0
        var failures: [String: Int] = [:]

        var failed: Int { failures.values.reduce(0, +) }
        /// Logins started but neither succeeded nor failed.
        var lost: Int { started - succeeded - failed }
    }

    /// Runs `login` on `clients` lanes for `seconds`, counting each login when it starts and when it ends.
    static func runLanes(clients: Int, seconds: Int, _ login: @escaping OneLogin) async throws -> LaneRun {
        let tally = LockedValue((started: 0, succeeded: 0, failures: [String: Int]()))
        let begin = nanoseconds()
        let timing = try await PostgresBenchmarks.measureLanes(connections: clients, seconds: seconds) { _, until in
            var samples: [Double] = []
            while nanoseconds() < until {
                tally.withLock { $0.started += 1 }
                let before = nanoseconds()
                let result = await login()
                samples.append(Double(nanoseconds() - before))
                tally.withLock {
                    switch result {
                    case .success: $0.succeeded += 1
                    case .failure(let failure): $0.failures[failure.reason, default: 0] += 1
                    }
                }
            }
            return samples
        }
        let elapsed = Double(nanoseconds() - begin) / 1e9
        let counts = tally.withLock { $0 }
        return LaneRun(timing: timing, wallRate: Double(timing.ops) / elapsed, started: counts.started, succeeded: counts.succeeded, failures: counts.failures)
    }

    /// The failures of a row, printed by reason (at most three reasons).
    static func printFailures(_ name: String, _ run: LaneRun) {
        guard run.failed > 0 else { return }
        print("\(name): \(run.failed) logins failed")
        for (reason, count) in run.failures.sorted(by: { $0.value > $1.value }).prefix(3) { print("\(name):   \(count)× \(reason)") }
    }

    private static func measureCounted(
        _ counted: PostgresStores, _ pool: PostgresPool, _ observed: Observed, url: String, pgbench: String?, fake: FakeServer,
        _ options: BenchmarkOptions, _ report: inout Report
    ) async throws {
        let clock = SystemClock()
        let gateway = try GatewayBenchmarks.gateway("MD5", URLSessionTransport(), url: fake.url("/unisdk/rsapi/loginTokenValidate"))
        let server = LoginServer(
            store: counted.loginSessionStore(), exchange: ExchangeGuard(provider: gateway, ledger: counted.exchangeLedger(), clock: clock), clock: clock,
            events: DiscardingEventSink())
        let flood = try LoginFlood(now: clock.now())
        let expected = try PhoneNumber(GatewayBenchmarks.number)
        let users = LockedValue(0)
        // One login: its last state when it ended `done success` with the fake's number, else what went wrong.
        let login: OneLogin = {
            let user = users.withLock { $0 += 1; return $0 }
            let (done, problem) = await flood.honestLogin(server, user: user)
            if let problem { return .failure(LoginFailure(reason: problem)) }
            guard let done, case .done(.success, .mobile, let verified) = done.instruction, verified?.phoneNumber == expected else {
                return .failure(LoginFailure(reason: "the login did not end done success with the fake's number: \(done.map { "\($0.instruction)" } ?? "nil")"))
            }
            return .success(Finished(keys: [done.session.id.text], loginVersion: done.session.version))
        }
        let counting = options.quick ? 5 : 20
        let captured = try await countAndCapture(observed, counting: counting, login)

        let directory = try TemporaryDirectory.make("onetap-pgbench-gw-")
        defer { TemporaryDirectory.remove(directory) }
        // To read the script: ONETAP_BENCH_LOGIN_SCRIPT=PATH keeps a copy.
        let script = try writeScript(captured.statements, captured.last, directory: directory, keep: "ONETAP_BENCH_LOGIN_SCRIPT")
        let seconds = options.quick ? 1 : 4
        var rows: [Measurement] = []
        for (clients, name) in zip([1, 8], names) where options.wants(name) {
            var reference: (tps: Double, latency: Double)? = nil
            if let pgbench { reference = await PostgresBenchmarks.runPgbench(pgbench, url: url, script: script, clients: clients, seconds: seconds) }
            let ours = try await runLanes(clients: clients, seconds: seconds, login)
            printFailures(name, ours)
            let described = "pgbench -c \(clients), one login's \(captured.statements.count) statements (avg latency)"
            var row = Measurement(
                name: name, ops: ours.timing.ops, medianNanoseconds: ours.timing.median, p90Nanoseconds: ours.timing.p90, allocationsPerOp: nil,
                reference: reference.map { _ in described }, referenceMedian: reference?.latency, referenceAllocations: nil)
            row.extra = [("p99Ns", format(ours.timing.p99)), ("loginsPerSecond", format(ours.timing.rate))]
            if let reference {
                row.extra += [("pgbenchTps", format(reference.tps)), ("rateRatio", format(ours.timing.rate / reference.tps))]
            } else {
                print("\(name): no pgbench reference (pgbench missing or failed)")
            }
            row.extra += [("roundTripsPerLogin", format(captured.perLogin)), ("statements", "\"\(captured.breakdown)\""), ("failedLogins", String(ours.failed))]
            rows.append(row)
        }
        let check = pgbench == nil ? nil : try await replayCheck(pool, finalVersion: captured.last.loginVersion)
        for var row in rows {
            if let check { row.extra.append(("replayCheck", "\"\(check.text)\"")) }
            report.add(row)
        }
    }

    /// What pgbench's replays left: its sessions, how many stand at the captured login's last version, its
    /// ledger rows and how many are answered (each count should equal the first); for the whole login
    /// (`appSessionVersion` given) also its app sessions on an account at the captured one's last version,
    /// and its accounts' numbers.
    static func replayCheck(_ pool: PostgresPool, prefix: String = "pgb-", finalVersion: Int, appSessionVersion: Int? = nil) async throws -> (text: String, complete: Bool) {
        let schema = "\"\(pool.configuration.schema)\""
        let rows = try await pool.execute(
            """
            SELECT (SELECT count(*) FROM \(schema).login_sessions WHERE id LIKE $3), \
            (SELECT count(*) FROM \(schema).login_sessions WHERE id LIKE $3 AND version = $1), \
            (SELECT count(*) FROM \(schema).exchange_ledger WHERE session LIKE $3), \
            (SELECT count(*) FROM \(schema).exchange_ledger WHERE session LIKE $3 AND state = 'answered'), \
            (SELECT count(*) FROM \(schema).app_sessions WHERE id LIKE $3 AND account LIKE $3 AND version = $2), \
            (SELECT count(*) FROM \(schema).account_numbers WHERE account LIKE $3)
            """, [.int64(Int64(finalVersion)), .int64(Int64(appSessionVersion ?? 0)), .text(prefix + "%")])
        guard let row = rows.first, row.count == 6, let sessions = row[0].int64, let atVersion = row[1].int64, let ledger = row[2].int64,
              let answered = row[3].int64, let appSessions = row[4].int64, let accounts = row[5].int64
        else { throw PostgresBenchmarks.BenchmarkFailure("the replay check read no counts") }
        var text = "sessions \(sessions), at version \(finalVersion) \(atVersion), ledger \(ledger), answered \(answered)"
        var complete = atVersion == sessions && ledger == sessions && answered == sessions
        if let appSessionVersion {
            text += ", app sessions on an account at version \(appSessionVersion) \(appSessions), accounts \(accounts)"
            complete = complete && appSessions == sessions && accounts == sessions
        }
        if !complete {
            print("login end to end on postgres: the pgbench replay did not leave what a login leaves: \(text)")
        }
        return (text, complete)
    }
}
