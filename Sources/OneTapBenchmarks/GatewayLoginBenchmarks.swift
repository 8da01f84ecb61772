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
enum GatewayLoginBenchmarks {
    static let names = [1, 8].map { "login end to end on postgres (cmcc fake, \($0) client\($0 == 1 ? "" : "s"))" }

    static func run(_ options: BenchmarkOptions, _ report: inout Report) async {
        guard names.contains(where: options.wants) else { return }
        let fake: FakeServer
        switch await BenchmarkFake.start("cmcc_login_token_validate.py", GatewayBenchmarks.fakeArguments("MD5")) {
        case .success(let started): fake = started
        case .failure(let failure):
            print("login end to end on postgres: skipped: \(failure)")
            return
        }
        defer { fake.stop() }
        await BenchmarkPostgres.run(
            "login end to end on postgres", schemaPrefix: "bench_gw_", poolSize: 8, serverOptions: PostgresTestServer.Options(), &report
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
        do {
            try await measureCounted(counted, stores.pool, statements, capture, url: url, pgbench: pgbench, fake: fake, options, &report)
        } catch {
            await counted.close()
            throw error
        }
        await counted.close()
    }

    private static func measureCounted(
        _ counted: PostgresStores, _ pool: PostgresPool, _ statements: LockedValue<[String: Int]>,
        _ capture: LockedValue<(on: Bool, seen: [ObservedStatement])>, url: String, pgbench: String?, fake: FakeServer,
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
        let login: @Sendable () async -> (LoginSession?, String?) = {
            let user = users.withLock { $0 += 1; return $0 }
            let (done, problem) = await flood.honestLogin(server, user: user)
            if let problem { return (nil, problem) }
            guard let done, case .done(.success, .mobile, let verified) = done.instruction, verified?.phoneNumber == expected else {
                return (nil, "the login did not end done success with the fake's number: \(done.map { "\($0.instruction)" } ?? "nil")")
            }
            return (done.session, nil)
        }
        // The pool's connections opened and the code paths warmed before counting.
        if let problem = await login().1 { throw PostgresBenchmarks.BenchmarkFailure(problem) }
        statements.withLock { $0 = [:] }
        let counting = options.quick ? 5 : 20
        var captured: (session: LoginSession, statements: [ObservedStatement])? = nil
        for index in 0..<counting {
            // The last login's statements, with their values, are the pgbench script.
            if index == counting - 1 { capture.withLock { $0 = (true, []) } }
            let (session, problem) = await login()
            if let problem { throw PostgresBenchmarks.BenchmarkFailure(problem) }
            if index == counting - 1, let session { captured = (session, capture.withLock { $0.on = false; return $0.seen }) }
        }
        guard let captured else { throw PostgresBenchmarks.BenchmarkFailure("no login was captured") }
        let counts = statements.withLock { $0 }
        let perLogin = Double(counts.values.reduce(0, +)) / Double(counting)
        let breakdown = counts.sorted { $0.key < $1.key }.map { "\($0.key)×\(format(Double($0.value) / Double(counting)))" }.joined(separator: " ")

        let directory = try TemporaryDirectory.make("onetap-pgbench-gw-")
        defer { TemporaryDirectory.remove(directory) }
        let script = directory + "/login.sql"
        let replay = try PgbenchReplay.script(captured.statements, keys: [captured.session.id.text])
        try replay.write(toFile: script, atomically: true, encoding: .utf8)
        // To read the script: ONETAP_BENCH_LOGIN_SCRIPT=PATH keeps a copy.
        if let keep = ProcessInfo.processInfo.environment["ONETAP_BENCH_LOGIN_SCRIPT"], !keep.isEmpty {
            try replay.write(toFile: keep, atomically: true, encoding: .utf8)
        }
        let seconds = options.quick ? 1 : 4
        var rows: [Measurement] = []
        for (clients, name) in zip([1, 8], names) where options.wants(name) {
            var reference: (tps: Double, latency: Double)? = nil
            if let pgbench { reference = await PostgresBenchmarks.runPgbench(pgbench, url: url, script: script, clients: clients, seconds: seconds) }
            let failures = LockedValue((count: 0, first: String?.none))
            let ours = try await PostgresBenchmarks.measureLanes(connections: clients, seconds: seconds) { _, until in
                var samples: [Double] = []
                while nanoseconds() < until {
                    let before = nanoseconds()
                    let problem = await login().1
                    samples.append(Double(nanoseconds() - before))
                    if let problem { failures.withLock { $0.count += 1; if $0.first == nil { $0.first = problem } } }
                }
                return samples
            }
            let failed = failures.withLock { $0 }
            if let first = failed.first { print("\(name): \(failed.count) logins failed, the first: \(first)") }
            let described = "pgbench -c \(clients), one login's \(captured.statements.count) statements (avg latency)"
            var row = Measurement(
                name: name, ops: ours.ops, medianNanoseconds: ours.median, p90Nanoseconds: ours.p90, allocationsPerOp: nil,
                reference: reference.map { _ in described }, referenceMedian: reference?.latency, referenceAllocations: nil)
            row.extra = [("p99Ns", format(ours.p99)), ("loginsPerSecond", format(ours.rate))]
            if let reference {
                row.extra += [("pgbenchTps", format(reference.tps)), ("rateRatio", format(ours.rate / reference.tps))]
            } else {
                print("\(name): no pgbench reference (pgbench missing or failed)")
            }
            row.extra += [("roundTripsPerLogin", format(perLogin)), ("statements", "\"\(breakdown)\""), ("failedLogins", String(failed.count))]
            rows.append(row)
        }
        let check = pgbench == nil ? nil : try await replayCheck(pool, finalVersion: captured.session.version)
        for var row in rows {
            if let check { row.extra.append(("replayCheck", "\"\(check)\"")) }
            report.add(row)
        }
    }

    /// What pgbench's replays left: its sessions, how many stand at the captured login's last version, its
    /// ledger rows and how many are answered (each count should equal the first).
    private static func replayCheck(_ pool: PostgresPool, finalVersion: Int) async throws -> String {
        let schema = "\"\(pool.configuration.schema)\""
        let rows = try await pool.execute(
            """
            SELECT (SELECT count(*) FROM \(schema).login_sessions WHERE id LIKE 'pgb-%'), \
            (SELECT count(*) FROM \(schema).login_sessions WHERE id LIKE 'pgb-%' AND version = $1), \
            (SELECT count(*) FROM \(schema).exchange_ledger WHERE session LIKE 'pgb-%'), \
            (SELECT count(*) FROM \(schema).exchange_ledger WHERE session LIKE 'pgb-%' AND state = 'answered')
            """, [.int64(Int64(finalVersion))])
        guard let row = rows.first, row.count == 4, let sessions = row[0].int64, let atVersion = row[1].int64, let ledger = row[2].int64,
              let answered = row[3].int64
        else { throw PostgresBenchmarks.BenchmarkFailure("the replay check read no counts") }
        let text = "sessions \(sessions), at version \(finalVersion) \(atVersion), ledger \(ledger), answered \(answered)"
        if atVersion != sessions || ledger != sessions || answered != sessions {
            print("login end to end on postgres: the pgbench replay did not leave what a login leaves: \(text)")
        }
        return text
    }
}
