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
/// another (every statement the pool sends, by its first word in `statements`). The reference, "the limit":
/// `pgbench` on the same server, at the same clients, running per transaction that many round trips of
/// `SELECT 1` (not the stores' own statements: the observer sees their text with `$n` placeholders, not
/// their values), so the ratio is the share of the database's bare round-trip rate a login reaches.
enum GatewayLoginBenchmarks {
    static let names = [1, 8].map { "login end to end on postgres (cmcc fake, \($0) client\($0 == 1 ? "" : "s"))" }

    static func run(_ options: BenchmarkOptions, _ report: inout Report) async {
        guard names.contains(where: options.wants) else { return }
        let fake: BenchmarkFake
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
        _ stores: PostgresStores, url: String, pgbench: String?, fake: BenchmarkFake, _ options: BenchmarkOptions, _ report: inout Report
    ) async throws {
        let statements = LockedValue([String: Int]())
        // A second set of stores on the same schema whose pool counts every statement it sends.
        let counted = PostgresStores(configuration: stores.configuration) { sql in
            let verb = String(sql.prefix { !$0.isWhitespace }).uppercased()
            statements.withLock { $0[verb, default: 0] += 1 }
        }
        do {
            try await measureCounted(counted, statements, url: url, pgbench: pgbench, fake: fake, options, &report)
        } catch {
            await counted.close()
            throw error
        }
        await counted.close()
    }

    private static func measureCounted(
        _ counted: PostgresStores, _ statements: LockedValue<[String: Int]>, url: String, pgbench: String?, fake: BenchmarkFake,
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
        // One login: true when it ended `done success` with the fake's number.
        let login: @Sendable () async -> String? = {
            let user = users.withLock { $0 += 1; return $0 }
            let (done, problem) = await flood.honestLogin(server, user: user)
            if let problem { return problem }
            guard let done, case .done(.success, .mobile, let verified) = done.instruction, verified?.phoneNumber == expected else {
                return "the login did not end done success with the fake's number: \(done.map { "\($0.instruction)" } ?? "nil")"
            }
            return nil
        }
        // The pool's connections opened and the code paths warmed before counting.
        if let problem = await login() { throw PostgresBenchmarks.BenchmarkFailure(problem) }
        statements.withLock { $0 = [:] }
        let counting = options.quick ? 5 : 20
        for _ in 0..<counting {
            if let problem = await login() { throw PostgresBenchmarks.BenchmarkFailure(problem) }
        }
        let counts = statements.withLock { $0 }
        let perLogin = Double(counts.values.reduce(0, +)) / Double(counting)
        let breakdown = counts.sorted { $0.key < $1.key }.map { "\($0.key)×\(format(Double($0.value) / Double(counting)))" }.joined(separator: " ")
        let roundTrips = max(1, Int(perLogin.rounded()))

        let directory = String(cString: mkdtemp(strdup("/tmp/onetap-pgbench-gw-XXXXXX")))
        defer { _ = system("rm -rf '\(directory)'") }
        let script = directory + "/round-trips.sql"
        try String(repeating: "SELECT 1;\n", count: roundTrips).write(toFile: script, atomically: true, encoding: .utf8)
        let seconds = options.quick ? 1 : 4
        for (clients, name) in zip([1, 8], names) where options.wants(name) {
            var reference: (tps: Double, latency: Double)? = nil
            if let pgbench { reference = await PostgresBenchmarks.runPgbench(pgbench, url: url, script: script, clients: clients, seconds: seconds) }
            let failures = LockedValue((count: 0, first: String?.none))
            let ours = try await PostgresBenchmarks.measureLanes(connections: clients, seconds: seconds) { _, until in
                var samples: [Double] = []
                while nanoseconds() < until {
                    let before = nanoseconds()
                    let problem = await login()
                    samples.append(Double(nanoseconds() - before))
                    if let problem { failures.withLock { $0.count += 1; if $0.first == nil { $0.first = problem } } }
                }
                return samples
            }
            let failed = failures.withLock { $0 }
            if let first = failed.first { print("\(name): \(failed.count) logins failed, the first: \(first)") }
            var row = Measurement(
                name: name, ops: ours.ops, medianNanoseconds: ours.median, p90Nanoseconds: ours.p90, allocationsPerOp: nil,
                reference: reference.map { _ in "pgbench -c \(clients), \(roundTrips) round trips of SELECT 1 (avg latency)" }, referenceMedian: reference?.latency,
                referenceAllocations: nil)
            row.extra = [("p99Ns", format(ours.p99)), ("loginsPerSecond", format(ours.rate))]
            if let reference {
                row.extra += [("pgbenchTps", format(reference.tps)), ("rateRatio", format(ours.rate / reference.tps))]
            } else {
                print("\(name): no pgbench reference (pgbench missing or failed)")
            }
            row.extra += [("roundTripsPerLogin", format(perLogin)), ("statements", "\"\(breakdown)\""), ("failedLogins", String(failed.count))]
            report.add(row)
        }
    }
}
