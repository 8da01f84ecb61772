#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Foundation
import OneTap
import OneTapPostgres
import OneTapPostgresTestSupport

/// The PostgreSQL stores against `pgbench` on the same server in the same run, at 1 and 8 connections,
/// each side by side with `pgbench` running the same statements from a custom script:
///
/// - the token store's compare-and-swap write (`save(_:replacing:dueAt:)`) and read (`load(_:)`), beside
///   the single-row `UPDATE … WHERE account = … AND version = … RETURNING version` and `SELECT`;
/// - an admitted SMS send decision from a fresh client (``PostgresSMSSendBenchmark``), beside pgbench
///   replaying the statements the store sent for one;
/// - a login session's advance (`PostgresLoginSessionStore.replace(_:expecting:)`), beside the same
///   `UPDATE … WHERE id = … AND version = …` with the session's JSON.
///
/// The server is `ONETAP_POSTGRES_URL`, or a private one started for the run (as the tests do); without
/// either the suite says so and is skipped. A row that fails prints its failure and counts in the report's
/// failures (the run exits non-zero); the suite goes on with its other rows.
enum PostgresBenchmarks {
    static let tokenValue = String(repeating: "t", count: 64)
    static let refreshValue = String(repeating: "r", count: 64)
    static let names = ["cas-write", "read", "sms-send", "session-advance"].flatMap { kind in [1, 8].map { "postgres.\(kind) (\($0) conn)" } }

    static func token(_ account: AccountID, _ issued: Date) -> AccessToken {
        AccessToken(
            value: Secret(tokenValue), refreshToken: Secret(refreshValue), flow: .tianyi, account: account, issuedAt: issued,
            expiresAt: issued.addingTimeInterval(30 * 86_400))
    }

    static func run(_ options: BenchmarkOptions, _ report: inout Report) async {
        guard (names + PostgresAppSessionBenchmarks.names).contains(where: options.wants) else { return }
        await BenchmarkPostgres.run("postgres", schemaPrefix: "bench_", poolSize: 8, serverOptions: PostgresTestServer.Options(), &report) {
            stores, url, server, report in
            guard let pgbench = (server?.binaries ?? PostgresTestServer.findBinaries()).map({ $0 + "/pgbench" }),
                  FileManager.default.isExecutableFile(atPath: pgbench)
            else {
                print("postgres: skipped: no pgbench to compare with (it ships with postgresql-15)")
                return
            }
            try await measureAll(stores, url: url, pgbench: pgbench, seconds: options.quick ? 1 : 4, options, &report)
        }
    }

    private static func measureAll(
        _ stores: PostgresStores, url: String, pgbench: String, seconds: Int, _ options: BenchmarkOptions, _ report: inout Report
    ) async throws {
        let store = stores.tokenStore()
        let quoted = "\"\(stores.configuration.schema)\""
        let issued = Date()
        // Ours write accounts ours-0…7; pgbench's clients (client_id 0…7) write bench-0…7.
        for index in 0..<8 {
            _ = try await store.save(token(try AccountID("ours-\(index)"), issued), replacing: nil, dueAt: issued)
            _ = try await store.save(token(try AccountID("bench-\(index)"), issued), replacing: nil, dueAt: issued)
        }
        let milliseconds = Int64((issued.timeIntervalSince1970 * 1000).rounded())
        let update = """
            UPDATE \(quoted).tokens SET version = nextval('\(quoted).token_versions'), flow = 'tianyi', access_token = '\(tokenValue)'::bytea, \
            refresh_token = '\(refreshValue)'::bytea, issued_at_ms = \(milliseconds), expires_at_ms = \(milliseconds + 2_592_000_000), \
            due_at_ms = \(milliseconds + 86_400_000) WHERE account = 'bench-' || (:client_id)::bigint AND version = (:v)::bigint RETURNING version AS v \\gset

            """
        let select = "SELECT version, flow, access_token, refresh_token, issued_at_ms, expires_at_ms FROM \(quoted).tokens WHERE account = 'bench-' || (:client_id)::bigint\n"
        let directory = String(cString: mkdtemp(strdup("/tmp/onetap-pgbench-XXXXXX")))
        defer { _ = system("rm -rf '\(directory)'") }
        try update.write(toFile: directory + "/write.sql", atomically: true, encoding: .utf8)
        try select.write(toFile: directory + "/read.sql", atomically: true, encoding: .utf8)

        for (kind, script) in [("cas-write", "write.sql"), ("read", "read.sql")] {
            for connections in [1, 8] {
                let name = "postgres.\(kind) (\(connections) conn)"
                guard options.wants(name) else { continue }
                do {
                    // pgbench's clients start from version 1 (-D v=1) and carry the version \gset returns.
                    try await stores.pool.execute("UPDATE \(quoted).tokens SET version = 1 WHERE account LIKE 'bench-%'")
                    let reference = await runPgbench(pgbench, url: url, script: directory + "/" + script, clients: connections, seconds: seconds)
                    let ours = try await measureOurs(store, kind: kind, connections: connections, seconds: seconds, issued: issued)
                    add(name, connections: connections, ours: ours, reference: reference, &report)
                } catch {
                    report.fail(name, error)
                }
            }
        }
        // A part that fails prints its failure and counts in the report (the run exits non-zero); the
        // suite goes on with the next part.
        await PostgresSMSSendBenchmark.measure(stores, url: url, pgbench: pgbench, directory: directory, seconds: seconds, options, &report)
        do {
            try await measureSessions(stores, url: url, pgbench: pgbench, directory: directory, seconds: seconds, options, &report)
        } catch {
            report.fail("postgres.session-advance", error)
        }
        do {
            try await PostgresAppSessionBenchmarks.measureRefresh(stores, url: url, pgbench: pgbench, directory: directory, seconds: seconds, options, &report)
        } catch {
            report.fail("postgres.app-session refresh", error)
        }
        do {
            try await PostgresAppSessionBenchmarks.measureWholeLogin(stores, quick: seconds == 1, options, &report)
        } catch {
            report.fail("postgres.whole-login", error)
        }
    }

    /// Adds a row: ours beside pgbench's rate and latency.
    static func add(
        _ name: String, connections: Int, ours: Timing, reference: (tps: Double, latency: Double)?, extra: [(String, String)] = [], _ report: inout Report
    ) {
        guard let reference else {
            report.fail(name, "pgbench failed (see its output above); ours \(format(ours.rate)) ops/s")
            return
        }
        let ratio = ours.rate / reference.tps
        let floor = connections >= 8 ? 0.6 : 0.5
        var row = Measurement(
            name: name, ops: ours.ops, medianNanoseconds: ours.median, p90Nanoseconds: ours.p90, allocationsPerOp: nil,
            reference: "pgbench -c \(connections) (avg latency)", referenceMedian: reference.latency, referenceAllocations: nil,
            target: "≥ \(floor)× pgbench's rate", met: ratio >= floor)
        row.extra = [
            ("p99Ns", format(ours.p99)), ("opsPerSecond", format(ours.rate)), ("pgbenchTps", format(reference.tps)), ("rateRatio", format(ratio)),
        ] + extra
        report.add(row)
    }

    /// What one side measured: operations, per-operation median, p90 and p99 in nanoseconds, and the rate.
    typealias Timing = (ops: Int, median: Double, p90: Double, p99: Double, rate: Double)

    /// Runs `lane(index, until)` on `connections` tasks for `seconds`; each lane returns the nanoseconds of each operation
    /// it timed. The rate is each lane's operations over the wall-clock time from the start until that lane ended, the
    /// lanes' rates summed: what a lane does between its timed calls counts against it. pgbench divides its count by one
    /// duration; the two agree when the lanes end together, as they do here (each stops at `until`).
    static func measureLanes(
        connections: Int, seconds: Int, _ lane: @escaping @Sendable (_ index: Int, _ until: UInt64) async throws -> [Double]
    ) async throws -> Timing {
        try await measureLanesWithSetup(connections: connections, seconds: seconds) { index, until in (try await lane(index, until), 0) }
    }

    /// Runs lanes as ``measureLanes(connections:seconds:_:)`` does, each lane also saying how
    /// many nanoseconds it spent on setup the reference does not do (a login session's create, where pgbench's script
    /// only updates): a lane's rate is its operations over the wall-clock time less that setup, the lanes' rates summed.
    static func measureLanesWithSetup(
        connections: Int, seconds: Int, _ lane: @escaping @Sendable (_ index: Int, _ until: UInt64) async throws -> (samples: [Double], untimed: Double)
    ) async throws -> Timing {
        let start = nanoseconds()
        let until = start + UInt64(seconds) * 1_000_000_000
        let lanes = try await withThrowingTaskGroup(of: (samples: [Double], untimed: Double, ended: UInt64).self) { group in
            for index in 0..<connections {
                group.addTask {
                    let (samples, untimed) = try await lane(index, until)
                    return (samples, untimed, nanoseconds())
                }
            }
            var lanes: [(samples: [Double], untimed: Double, ended: UInt64)] = []
            for try await lane in group { lanes.append(lane) }
            return lanes
        }
        let sorted = lanes.flatMap(\.samples).sorted()
        func percentile(_ p: Double) -> Double { sorted.percentile(p) ?? 0 }
        let rate = lanes.reduce(0.0) { total, lane in
            let busy = (Double(lane.ended - start) - lane.untimed) / 1e9
            return busy > 0 ? total + Double(lane.samples.count) / busy : total
        }
        return (sorted.count, percentile(0.5), percentile(0.9), percentile(0.99), rate)
    }

    /// A login session's advance (compare-and-swap on its version), beside pgbench's `UPDATE` of the
    /// same row shape.
    private static func measureSessions(
        _ stores: PostgresStores, url: String, pgbench: String, directory: String, seconds: Int, _ options: BenchmarkOptions, _ report: inout Report
    ) async throws {
        let store = stores.loginSessionStore()
        let machine = LoginSessionMachine()
        let snapshot = DeviceSnapshot(sim: .present, plmn: try PLMN("46000"))
        let quoted = "\"\(stores.configuration.schema)\""
        // pgbench's rows bench-0…7, and the JSON it writes: a session's, as long as ours.
        let sample = try machine.advance(machine.start(snapshot, at: Date(), id: .random()).session, .fault(.mobile, "benchmark"), at: Date()).session
        let json = try sample.json()
        let nowMs = "(extract(epoch FROM now()) * 1000)::bigint"
        for index in 0..<8 {
            try await stores.pool.execute(
                "INSERT INTO \(quoted).login_sessions (id, version, expires_at_ms, session) VALUES ($1, 1, \(nowMs), $2)", [.text("bench-\(index)"), .text(json)])
        }
        let script = """
            UPDATE \(quoted).login_sessions SET version = (:v)::bigint + 1, expires_at_ms = \(nowMs) + 600000, session = \(PgbenchReplay.quoted(json)) WHERE id = 'bench-' || (:client_id)::bigint AND version = (:v)::bigint AND (:v)::bigint + 1 > (:v)::bigint RETURNING version AS v \\gset

            """
        try script.write(toFile: directory + "/session.sql", atomically: true, encoding: .utf8)
        let chain = LockedValue((sessions: 0, replaces: 0))
        for connections in [1, 8] {
            let name = "postgres.session-advance (\(connections) conn)"
            guard options.wants(name) else { continue }
            try await stores.pool.execute("UPDATE \(quoted).login_sessions SET version = 1 WHERE id LIKE 'bench-%'")
            let reference = await runPgbench(pgbench, url: url, script: directory + "/session.sql", clients: connections, seconds: seconds)
            // Each lane drives logins to their end, one report after another (China Mobile's 200023 and
            // faults); a new login follows each one that ended, its create left out of the lane's time (pgbench's
            // script only updates).
            let ours = try await measureLanesWithSetup(connections: connections, seconds: seconds) { _, until -> (samples: [Double], untimed: Double) in
                var samples: [Double] = []
                var untimed = 0.0
                samples.reserveCapacity(100_000)
                while nanoseconds() < until {
                    let start = Date()
                    var session = machine.start(snapshot, at: start, id: .random()).session
                    let creating = nanoseconds()
                    try await store.create(session)
                    untimed += Double(nanoseconds() - creating)
                    chain.withLock { $0.sessions += 1 }
                    while !session.isOver, let flow = session.flow, nanoseconds() < until {
                        let report: LoginReport = flow == .mobile ? .result(.mobile, code: "200023") : .fault(flow, "benchmark")
                        let next = try machine.advance(session, report, version: session.version, at: start).session
                        let before = nanoseconds()
                        try await store.replace(next, expecting: session.version)
                        samples.append(Double(nanoseconds() - before))
                        chain.withLock { $0.replaces += 1 }
                        session = next
                    }
                }
                return (samples, untimed)
            }
            let seen = chain.withLock { $0 }
            add(name, connections: connections, ours: ours, reference: reference,
                extra: [("replacesPerLogin", format(Double(seen.replaces) / Double(max(1, seen.sessions))))], &report)
        }
    }

    /// A benchmark that could not measure what it meant to.
    struct BenchmarkFailure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// Runs the store call from `connections` tasks for `seconds`, each on its own account.
    private static func measureOurs(
        _ store: any TokenStore, kind: String, connections: Int, seconds: Int, issued: Date
    ) async throws -> (ops: Int, median: Double, p90: Double, p99: Double, rate: Double) {
        let duration = UInt64(seconds) * 1_000_000_000
        let start = nanoseconds()
        let samples = try await withThrowingTaskGroup(of: [Double].self) { group in
            for index in 0..<connections {
                group.addTask {
                    let account = try AccountID("ours-\(index)")
                    let fresh = token(account, issued)
                    var version = try await store.load(account)?.version
                    var samples: [Double] = []
                    samples.reserveCapacity(100_000)
                    let due = Date().addingTimeInterval(86_400)
                    while nanoseconds() - start < duration {
                        let before = nanoseconds()
                        if kind == "read" {
                            blackHole(try await store.load(account))
                        } else {
                            version = try await store.save(fresh, replacing: version, dueAt: due)
                        }
                        samples.append(Double(nanoseconds() - before))
                    }
                    return samples
                }
            }
            var all: [Double] = []
            for try await part in group { all += part }
            return all
        }
        let elapsed = Double(nanoseconds() - start) / 1e9
        let sorted = samples.sorted()
        func percentile(_ p: Double) -> Double { sorted.percentile(p) ?? 0 }
        return (sorted.count, percentile(0.5), percentile(0.9), percentile(0.99), Double(sorted.count) / elapsed)
    }

    /// Runs pgbench off the cooperative pool and reads its rate and average latency. Its statements are prepared
    /// (`-M prepared`: parsed and planned once per connection, then run by name with their variables as parameters),
    /// as OneTap's pool prepares what it runs again: the reference is the database's own rate, not its parser's.
    static func runPgbench(_ pgbench: String, url: String, script: String, clients: Int, seconds: Int) async -> (tps: Double, latency: Double)? {
        // The URL (it may hold a password) goes in PGDATABASE, which pgbench reads as a connection string, never on the
        // command line every user of the machine can read.
        let command = [pgbench, "-n", "-M", "prepared", "-f", script, "-D", "v=1", "-c", String(clients), "-j", String(clients), "-T", String(seconds)]
        let (status, output) = await PostgresTestServer.run(command, environment: ["PGDATABASE": url])
        let failed = output.contains("number of failed transactions:") && !output.contains("number of failed transactions: 0 ")
        guard status == 0, !failed else {
            print("pgbench: exit \(status): \(output.suffix(500))")
            return nil
        }
        func number(after label: String) -> Double? {
            guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix(label) }) else { return nil }
            return Double(line.dropFirst(label.count).prefix { $0.isNumber || $0 == "." })
        }
        guard let tps = number(after: "tps = "), let latency = number(after: "latency average = ") else { return nil }
        return (tps, latency * 1e6)
    }
}
