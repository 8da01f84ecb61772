#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Foundation
import OneTap
import OneTapPostgres
import OneTapPostgresTestSupport

/// The PostgreSQL token store against `pgbench` on the same server in the same run: a compare-and-swap
/// write (`save(_:replacing:dueAt:)`) and a read (`load(_:)`), at 1 and 8 connections, each side by side
/// with `pgbench` running the equivalent single-row statement (`UPDATE … WHERE account = … AND version =
/// … RETURNING version`, and the `SELECT`) from a custom script. The server is `ONETAP_POSTGRES_URL`, or
/// a private one started for the run (as the tests do); without either the suite says so and is skipped.
enum PostgresBenchmarks {
    static let tokenValue = String(repeating: "t", count: 64)
    static let refreshValue = String(repeating: "r", count: 64)
    static let names = ["cas-write", "read"].flatMap { kind in [1, 8].map { "postgres.\(kind) (\($0) conn)" } }

    static func token(_ account: AccountID, _ issued: Date) -> AccessToken {
        AccessToken(
            value: Secret(tokenValue), refreshToken: Secret(refreshValue), flow: .tianyi, account: account, issuedAt: issued,
            expiresAt: issued.addingTimeInterval(30 * 86_400))
    }

    static func run(_ options: BenchmarkOptions, _ report: inout Report) async {
        guard names.contains(where: options.wants) else { return }
        var server: PostgresTestServer? = nil
        let url: String
        if let external = ProcessInfo.processInfo.environment["ONETAP_POSTGRES_URL"], !external.isEmpty {
            url = external
        } else {
            do {
                server = try await PostgresTestServer.start()
                url = server!.url()
            } catch {
                print("postgres: skipped: no PostgreSQL server (\(error)); set ONETAP_POSTGRES_URL or install postgresql-15")
                return
            }
        }
        defer { server?.remove() }
        guard let pgbench = (server?.binaries ?? PostgresTestServer.findBinaries()).map({ $0 + "/pgbench" }),
              FileManager.default.isExecutableFile(atPath: pgbench)
        else {
            print("postgres: skipped: no pgbench to compare with (it ships with postgresql-15)")
            return
        }
        let seconds = options.quick ? 1 : 4
        let schema = "bench_" + String(UInt32.random(in: 0...UInt32.max), radix: 16)
        let stores: PostgresStores
        do {
            stores = try await PostgresStores.open(try PostgresConfiguration(url: url, schema: schema, poolSize: 8))
        } catch {
            print("postgres: skipped: \(error)")
            return
        }
        do {
            try await measureAll(stores, url: url, pgbench: pgbench, seconds: seconds, options, &report)
        } catch {
            print("postgres: failed: \(error)")
        }
        _ = try? await stores.pool.execute("DROP SCHEMA \"\(schema)\" CASCADE")
        await stores.close()
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
            due_at_ms = \(milliseconds + 86_400_000) WHERE account = 'bench-' || :client_id AND version = :v RETURNING version AS v \\gset

            """
        let select = "SELECT version, flow, access_token, refresh_token, issued_at_ms, expires_at_ms FROM \(quoted).tokens WHERE account = 'bench-' || :client_id\n"
        let directory = String(cString: mkdtemp(strdup("/tmp/onetap-pgbench-XXXXXX")))
        defer { _ = system("rm -rf '\(directory)'") }
        try update.write(toFile: directory + "/write.sql", atomically: true, encoding: .utf8)
        try select.write(toFile: directory + "/read.sql", atomically: true, encoding: .utf8)

        for (kind, script) in [("cas-write", "write.sql"), ("read", "read.sql")] {
            for connections in [1, 8] {
                let name = "postgres.\(kind) (\(connections) conn)"
                guard options.wants(name) else { continue }
                // pgbench's clients start from version 1 (-D v=1) and carry the version \gset returns.
                try await stores.pool.execute("UPDATE \(quoted).tokens SET version = 1 WHERE account LIKE 'bench-%'")
                let reference = await runPgbench(pgbench, url: url, script: directory + "/" + script, clients: connections, seconds: seconds)
                let ours = try await measureOurs(store, kind: kind, connections: connections, seconds: seconds, issued: issued)
                guard let reference else {
                    print("\(name): pgbench failed; ours \(format(ours.rate)) ops/s")
                    continue
                }
                let ratio = ours.rate / reference.tps
                var row = Measurement(
                    name: name, ops: ours.ops, medianNanoseconds: ours.median, p90Nanoseconds: ours.p90, allocationsPerOp: nil,
                    reference: "pgbench -c \(connections) (avg latency)", referenceMedian: reference.latency, referenceAllocations: nil,
                    target: "≥ 0.5× pgbench's rate", met: ratio >= 0.5)
                row.extra = [
                    ("p99Ns", format(ours.p99)), ("opsPerSecond", format(ours.rate)), ("pgbenchTps", format(reference.tps)),
                    ("rateRatio", format(ratio)),
                ]
                report.add(row)
            }
        }
    }

    /// Runs the store call from `connections` tasks for `seconds`, each on its own account.
    private static func measureOurs(
        _ store: PostgresTokenStore, kind: String, connections: Int, seconds: Int, issued: Date
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
        func percentile(_ p: Double) -> Double { sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }
        return (sorted.count, percentile(0.5), percentile(0.9), percentile(0.99), Double(sorted.count) / elapsed)
    }

    /// Runs pgbench off the cooperative pool and reads its rate and average latency.
    private static func runPgbench(_ pgbench: String, url: String, script: String, clients: Int, seconds: Int) async -> (tps: Double, latency: Double)? {
        let command = [pgbench, "-n", "-f", script, "-D", "v=1", "-c", String(clients), "-j", String(clients), "-T", String(seconds), url]
        let (status, output) = await withCheckedContinuation { (continuation: CheckedContinuation<(Int32, String), Never>) in
            DispatchQueue.global().async { continuation.resume(returning: PostgresTestServer.runBlocking(command)) }
        }
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
