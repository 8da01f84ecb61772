import Foundation
import OneTap
import OneTapPostgres
import OneTapPostgresTestSupport

/// What sealing costs (issue 21): a PostgreSQL token store's compare-and-swap write and its read with a
/// ``PostgresTokenKeyring`` (AES-256-GCM through libcrypto, each token sealed with a fresh nonce) beside the
/// same store without one, in the same run, on the same server and schema, one connection.
///
/// The server is `ONETAP_POSTGRES_URL`, or a private one started for these rows; without either the rows
/// are skipped with the reason.
enum SealedTokenBenchmarks {
    static let writeName = "postgres.token-write sealed"
    static let readName = "postgres.token-read sealed"

    static func run(_ options: BenchmarkOptions, _ report: inout Report, repetitions: Int) async {
        guard options.wants(writeName) || options.wants(readName) else { return }
        await BenchmarkPostgres.run(
            "postgres.token sealed", schemaPrefix: "bench_sealed_", poolSize: 1, serverOptions: PostgresTestServer.Options(maxConnections: 20), &report
        ) { stores, _, _, report in
            try await measure(stores, options, &report, repetitions: repetitions)
        }
    }

    private static func measure(_ stores: PostgresStores, _ options: BenchmarkOptions, _ report: inout Report, repetitions: Int) async throws {
        let key = (0..<32).map { _ in UInt8.random(in: 0...255) }
        let sealed = stores.tokenStore(keyring: try PostgresTokenKeyring(currentKeyID: "bench", keys: ["bench": key]))
        let plain = stores.tokenStore()
        let issued = Date()
        let batch = 50
        let runs = max(5, repetitions / 4)
        var versions: [AccountID: TokenVersion] = [:]
        let accounts: [(any TokenStore, AccountID)] = [(sealed, "sealed"), (plain, "plain")]
        for (store, account) in accounts {
            versions[account] = try await store.save(PostgresBenchmarks.token(account, issued), replacing: nil, dueAt: issued)
        }
        var failures = 0
        /// Writes `batch` tokens to one account, each replacing the last.
        func writes(_ store: any TokenStore, _ account: AccountID) async {
            for _ in 0..<batch {
                do {
                    versions[account] = try await store.save(PostgresBenchmarks.token(account, issued), replacing: versions[account], dueAt: issued)
                } catch {
                    failures += 1
                }
            }
        }
        func reads(_ store: any TokenStore, _ account: AccountID) async {
            for _ in 0..<batch {
                do { blackHole(try await store.load(account)) } catch { failures += 1 }
            }
        }
        /// One row: `body` on the sealed store beside the same on the plain one.
        func add(_ name: String, reference: String, cost: String, _ body: (any TokenStore, AccountID) async -> Void) async {
            guard options.wants(name) else { return }
            let ours = await measureAsync(batch: batch, repetitions: runs) { await body(sealed, "sealed") }
            let unsealed = await measureAsync(batch: batch, repetitions: runs) { await body(plain, "plain") }
            var row = Suites.row(name, batch, ours, reference, unsealed, target: nil, met: nil)
            row.extra = [(cost, format(ours.median - unsealed.median)), ("failures", String(failures))]
            report.add(row)
        }
        await add(writeName, reference: "the same write unsealed", cost: "sealingCostNs", writes)
        await add(readName, reference: "the same read unsealed", cost: "openingCostNs", reads)
    }
}
