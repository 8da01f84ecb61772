import Foundation
import OneTap
import OneTapTesting
import OneTapPostgres
import OneTapPostgresTestSupport

/// What sharing the login quotas across instances costs (issue 21): one admitted login start through
/// ``LoginQuotas`` (the built-in `Data/login-quotas.csv`: an address, a device and an app-session counter
/// read, decided and written in one transaction) over ``PostgresStores/loginQuotaStore(attempts:)``, beside
/// the same start over ``InMemoryLoginQuotaStore`` (one instance's memory), in the same run.
///
/// The server is `ONETAP_POSTGRES_URL`, or a private one started for this row; without either the row is
/// skipped with the reason.
enum LoginQuotaBenchmarks {
    static let name = "postgres.login-quota admit"

    static func run(_ options: BenchmarkOptions, _ report: inout Report, repetitions: Int) async {
        guard options.wants(name) else { return }
        await BenchmarkPostgres.run(
            name, schemaPrefix: "bench_quota_", poolSize: 1, serverOptions: PostgresTestServer.Options(maxConnections: 20), &report
        ) { stores, _, _, report in
            await measure(stores, &report, repetitions: repetitions)
        }
    }

    private static func measure(_ stores: PostgresStores, _ report: inout Report, repetitions: Int) async {
        let shared = LoginQuotas(store: stores.loginQuotaStore())
        let local = LoginQuotas(store: InMemoryLoginQuotaStore())
        let batch = 50
        let runs = max(5, repetitions / 4)
        let clock = FakeClock(now: Date(timeIntervalSince1970: 1_796_083_200))
        var next = 0
        var failures = 0
        var refused = 0
        /// `batch` starts, each from an address, device and app session of its own, so every one is
        /// admitted and written (the same inputs for both stores).
        func starts(_ quotas: LoginQuotas) async {
            for _ in 0..<batch {
                next += 1
                do {
                    let session = try AppSessionID("QuotaBench" + String(100_000_000_000 + next))
                    let address = try IPAddress("10.\(next >> 16 & 255).\(next >> 8 & 255).\(next & 255)")
                    try await quotas.admit(.starts, session: .random(), appSession: session, address: address, device: try DeviceID("bench-\(next)"), clock: clock, events: DiscardingEventSink())
                } catch let rejection as LoginRejection where rejection.kind == .overQuota {
                    refused += 1
                } catch {
                    failures += 1
                }
            }
        }
        let ours = await measureAsync(batch: batch, repetitions: runs) { await starts(shared) }
        next = 0
        let reference = await measureAsync(batch: batch, repetitions: runs) { await starts(local) }
        var row = Suites.row(name, batch, ours, "the same admit in memory (one instance)", reference, target: nil, met: nil)
        row.extra = [("sharingCostNs", format(ours.median - reference.median)), ("refused", String(refused)), ("failures", String(failures))]
        report.add(row)
    }
}
