import Foundation
import OneTap
import OneTapGateways
import OneTapPostgres
import OneTapTesting

/// The whole server login as load (issue 23), on the stores, server and loopback fake of the login end to
/// end rows: N clients at once (1, 8, 32), each running whole logins one after another, every one the
/// requests a server answers for a new user (``PostgresAppSessionBenchmarks/Login``, the README's handlers):
/// first open (`AppSessions.open`, a guest), `authenticate`, `LoginServer.start`, `live`, the one-tap
/// success report exchanged through the ``ExchangeGuard`` and its ledger against the loopback China Mobile
/// fake (MD5 mode, `URLSessionTransport` with a connection per client), `done success`, the number's account
/// created (`AccountLogin.resolve`), the app session moved to it (`loggedIn`), and the app's refresh of its
/// session (`AppSessions.refresh`). The fake answers every token with one number; the benchmark's carrier
/// (``PostgresAppSessionBenchmarks/NumberedExchange``) takes its success and names the token's number
/// instead, so every login is a new number and creates its account.
///
/// Each row: logins a second (the wall clock's: logins over the row's time), p50/p90/p99 per login,
/// statements per login (counted over logins one after another on a second set of stores whose pool
/// counts them; every statement is a round trip; the timed clients run on stores without an observer,
/// after as many untimed logins at once as the row has clients), beside `pgbench` at the same clients
/// replaying the statements of one whole login (``PgbenchReplay``, keys `pgw-…`: the login and app
/// session ids, the account id, the number and the token digest unique per pgbench transaction), half its
/// time before our clients and half after (`pgbenchTpsBeforeAfter`; the reference is the mean, so it
/// brackets the row on a machine whose load moves); its transactions a second are the database's limit
/// in logins a second, and `rateRatio` is ours over it. The
/// target: ≥ 0.8 of it, nothing lost, memory bounded. Nothing lost: every login started is counted when it
/// ends, as succeeded or as failed with its reason (`lost` = started − succeeded − failed, printed); and
/// the tables grew by what the succeeded logins leave (`stored`: app sessions opened = started, and
/// login sessions, answered ledger rows, accounts and app sessions on an account each = succeeded, counted
/// before and after our clients ran, while nothing else writes). `processCpuPerLoginNs`: this process's
/// CPU time (user and system, every thread: the server's work, libpq, URLSession; not PostgreSQL's nor
/// the fake's) over the row's logins; `exchangeCallCpuNs`, the same for the carrier's call alone (the
/// gateway's exchange, one call after another, before the rows). Memory: the peak resident growth while
/// the clients ran (`VmHWM` reset through /proc/self/clear_refs before, over `VmRSS` before).
extension GatewayLoginBenchmarks {
    /// The most the resident memory may grow while a row's clients run.
    static let wholeMemoryBoundMiB = 64.0
    /// The share of the database's limit a row's logins must reach.
    static let wholeTargetRatio = 0.8

    static func measureWhole(
        _ counted: PostgresStores, _ plain: PostgresStores, _ pool: PostgresPool, _ observed: Observed, url: String, pgbench: String?, fake: FakeServer,
        _ options: BenchmarkOptions, _ report: inout Report
    ) async throws {
        let transport = URLSessionTransport(maximumConnectionsPerHost: wholeClients.max() ?? 16)
        let gateway = try GatewayBenchmarks.gateway("MD5", transport, url: fake.url("/unisdk/rsapi/loginTokenValidate"))
        // The same server twice: over the counted stores (statements counted and captured) and over the
        // plain ones, which the timed clients use (no observer on their statements).
        func server(_ stores: PostgresStores) -> PostgresAppSessionBenchmarks.Login {
            PostgresAppSessionBenchmarks.Login(
                appSessions: stores.appSessionStore(), loginSessions: stores.loginSessionStore(), ledger: stores.exchangeLedger(),
                directory: stores.accountDirectory(), exchange: PostgresAppSessionBenchmarks.NumberedExchange(carrier: gateway))
        }
        let numbers = LockedValue(UInt64(13_700_000_000))
        let counting = wholeLogin(server(counted), numbers)
        let login = wholeLogin(server(plain), numbers)
        let captured = try await countAndCapture(observed, counting: options.quick ? 5 : 20, counting)
        guard let appSession = captured.last.appSession,
              let appVersion = try await pool.execute(
                "SELECT version FROM \"\(pool.configuration.schema)\".app_sessions WHERE id = $1", [.text(appSession)]).first?.first?.int64
        else { throw PostgresBenchmarks.BenchmarkFailure("the captured login's app session was not stored") }

        // What the exchange alone costs this process: the carrier's calls one after another, as a login makes them.
        let probes = options.quick ? 10 : 50
        let probeCPU = cpuNanoseconds()
        for probe in 0..<probes {
            let answer = try await gateway.exchange(CarrierCredential(flow: .mobile, token: Secret("cpu-probe-\(probe)"), uniqueID: "bench"))
            guard answer.phoneNumber != nil else { throw PostgresBenchmarks.BenchmarkFailure("the fake refused a probe: \(answer.code)") }
        }
        let exchangeCPU = (cpuNanoseconds() - probeCPU) / Double(probes)

        let directory = try TemporaryDirectory.make("onetap-pgbench-whole-")
        defer { TemporaryDirectory.remove(directory) }
        // To read the script: ONETAP_BENCH_WHOLE_LOGIN_SCRIPT=PATH keeps a copy.
        let script = try writeScript(captured.statements, captured.last, directory: directory, keep: "ONETAP_BENCH_WHOLE_LOGIN_SCRIPT")
        let seconds = options.quick ? 1 : 4
        // pgbench runs half the time before our clients and half after (at least a second each), and its
        // rate is the mean of the two: the reference brackets the row on a machine whose load moves.
        let half = max(1, seconds / 2)
        var rows: [Measurement] = []
        for (clients, name) in zip(wholeClients, wholeNames) where options.wants(name) {
            // As many logins at once as the row has clients, not timed: the plain pool's connections and the
            // transport's opened.
            try await warm(clients: clients, login)
            var first: (tps: Double, latency: Double)? = nil
            if let pgbench { first = await PostgresBenchmarks.runPgbench(pgbench, url: url, script: script, clients: clients, seconds: half) }
            let before = try await tableCounts(pool)
            let memoryBefore = ProcessMemory.read()
            let peakReset = ProcessMemory.resetPeak()
            let cpuBefore = cpuNanoseconds()
            let ours = try await runLanes(clients: clients, seconds: seconds, login)
            let cpuPerLogin = (cpuNanoseconds() - cpuBefore) / Double(max(1, ours.started))
            let memoryAfter = ProcessMemory.read()
            let after = try await tableCounts(pool)
            var second: (tps: Double, latency: Double)? = nil
            if let pgbench, first != nil { second = await PostgresBenchmarks.runPgbench(pgbench, url: url, script: script, clients: clients, seconds: half) }
            var reference: (tps: Double, latency: Double)? = nil
            if let first, let second { reference = ((first.tps + second.tps) / 2, (first.latency + second.latency) / 2) }
            printFailures(name, ours)
            let grown = zip(after, before).map { $0 - $1 }
            let expected = [ours.started] + Array(repeating: ours.succeeded, count: grown.count - 1)
            let stored = grown == expected
            let growthMiB = peakReset ? Double(max(0, memoryAfter.highWaterKiB - memoryBefore.residentKiB)) / 1024 : nil
            let ratio = reference.map { ours.wallRate / $0.tps }
            let met = ours.lost == 0 && ours.failed == 0 && stored && (growthMiB ?? 0) <= wholeMemoryBoundMiB && (ratio ?? 0) >= wholeTargetRatio
            let described = "pgbench -c \(clients), one whole login's \(captured.statements.count) statements (avg latency)"
            var row = Measurement(
                name: name, ops: ours.timing.ops, medianNanoseconds: ours.timing.median, p90Nanoseconds: ours.timing.p90, allocationsPerOp: nil,
                reference: reference.map { _ in described }, referenceMedian: reference?.latency, referenceAllocations: nil,
                target: "≥ \(format(wholeTargetRatio))× pgbench's rate; lost 0, every login stored; memory growth ≤ \(format(wholeMemoryBoundMiB)) MiB", met: met)
            row.extra = [("p99Ns", format(ours.timing.p99)), ("loginsPerSecond", format(ours.wallRate))]
            if let reference, let ratio {
                row.extra += [("pgbenchTps", format(reference.tps)), ("rateRatio", format(ratio))]
                if let first, let second { row.extra += [("pgbenchTpsBeforeAfter", "\"\(format(first.tps)) / \(format(second.tps))\"")] }
            } else {
                print("\(name): no pgbench reference (pgbench missing or failed)")
            }
            row.extra += [
                ("roundTripsPerLogin", format(captured.perLogin)), ("statements", "\"\(captured.breakdown)\""),
                ("started", String(ours.started)), ("succeeded", String(ours.succeeded)), ("failed", String(ours.failed)), ("lost", String(ours.lost)),
                ("stored", "\"\(zip(["app sessions", "login sessions", "answered exchanges", "accounts", "app sessions on an account"], grown).map { "\($0) +\($1)" }.joined(separator: ", "))\""),
                ("processCpuPerLoginNs", format(cpuPerLogin)), ("exchangeCallCpuNs", format(exchangeCPU)), ("rssGrowthMiB", growthMiB.map { format($0) } ?? "null"), ("rssBeforeMiB", format(Double(memoryBefore.residentKiB) / 1024)),
            ]
            print("\(name): lost: \(ours.lost) (started \(ours.started), succeeded \(ours.succeeded), failed \(ours.failed))\(stored ? "" : "; the tables did not grow by what the logins leave")")
            rows.append(row)
        }
        let check = pgbench == nil ? nil : try await replayCheck(pool, prefix: "pgw-", finalVersion: captured.last.loginVersion, appSessionVersion: Int(appVersion))
        for var row in rows {
            if let check {
                row.extra.append(("replayCheck", "\"\(check.text)\""))
                if !check.complete { row.met = false }
            }
            report.add(row)
        }
    }

    /// Runs `clients` logins at once; the first failure is thrown.
    private static func warm(clients: Int, _ login: @escaping OneLogin) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<clients {
                group.addTask {
                    if case .failure(let failure) = await login() { throw PostgresBenchmarks.BenchmarkFailure("a warm-up login failed: \(failure.reason)") }
                }
            }
            try await group.waitForAll()
        }
    }

    /// One whole login on `server` for the next number, with the app's refresh after it.
    private static func wholeLogin(_ server: PostgresAppSessionBenchmarks.Login, _ numbers: LockedValue<UInt64>) -> OneLogin {
        {
            let number = numbers.withLock { $0 += 1; return $0 }
            do {
                let (session, grant, account) = try await server.credentials(number: number)
                let refreshed = try await server.sessions.refresh(grant.refreshToken)    // POST /session/refresh, at the app's next open
                guard refreshed.session == grant.session, refreshed.identity == .account(account) else {
                    return .failure(LoginFailure(reason: "the refresh answered another session or identity: \(refreshed.identity)"))
                }
                return .success(Finished(
                    keys: [session.id.text, grant.session.text, account.rawValue], numbers: [String(number)], loginVersion: session.version,
                    appSession: grant.session.text, prefix: "pgw-"))
            } catch {
                return .failure(LoginFailure(reason: "\(error)"))
            }
        }
    }

    /// The rows a whole login leaves, counted: app sessions, login sessions, answered exchanges, accounts'
    /// numbers, app sessions on an account.
    private static func tableCounts(_ pool: PostgresPool) async throws -> [Int] {
        let schema = "\"\(pool.configuration.schema)\""
        let rows = try await pool.execute(
            """
            SELECT (SELECT count(*) FROM \(schema).app_sessions), (SELECT count(*) FROM \(schema).login_sessions), \
            (SELECT count(*) FROM \(schema).exchange_ledger WHERE state = 'answered'), (SELECT count(*) FROM \(schema).account_numbers), \
            (SELECT count(*) FROM \(schema).app_sessions WHERE account IS NOT NULL)
            """)
        guard let row = rows.first, row.count == 5 else { throw PostgresBenchmarks.BenchmarkFailure("the table counts read nothing") }
        return try row.map { value in
            guard let count = value.int64 else { throw PostgresBenchmarks.BenchmarkFailure("a table count was not a number") }
            return Int(count)
        }
    }
}
