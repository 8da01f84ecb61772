import Foundation
import OneTapPostgres
import OneTapPostgresTestSupport

/// A PostgreSQL server and a schema of their own for benchmark rows: the server is `ONETAP_POSTGRES_URL`,
/// or a private one started for the rows (as the tests do); the stores open on a fresh schema, which is
/// dropped, and the stores closed, once the rows are measured. Without a server, or when the stores do
/// not open, the rows are skipped with the reason; a failure while measuring is printed.
enum BenchmarkPostgres {
    /// Measures rows on stores over a fresh schema.
    /// - Parameters:
    ///   - label: What the printed lines start with (`postgres`, `postgres.token sealed`).
    ///   - schemaPrefix: The fresh schema's name before its random suffix.
    ///   - poolSize: The stores' connections.
    ///   - serverOptions: How a private server is started.
    ///   - report: The report the rows go to.
    ///   - measure: Measures the rows, given the stores, the server's URL and the private server, if one
    ///     was started.
    static func run(
        _ label: String, schemaPrefix: String, poolSize: Int, serverOptions: PostgresTestServer.Options, _ report: inout Report,
        _ measure: (PostgresStores, String, PostgresTestServer?, inout Report) async throws -> Void
    ) async {
        var server: PostgresTestServer? = nil
        let url: String
        if let external = ProcessInfo.processInfo.environment["ONETAP_POSTGRES_URL"], !external.isEmpty {
            url = external
        } else {
            do {
                server = try await PostgresTestServer.start(serverOptions)
                url = server!.url()
            } catch {
                print("\(label): skipped: no PostgreSQL server (\(error)); set ONETAP_POSTGRES_URL or install postgresql-15")
                return
            }
        }
        defer { server?.remove() }
        let schema = schemaPrefix + String(UInt32.random(in: 0...UInt32.max), radix: 16)
        let stores: PostgresStores
        do {
            stores = try await PostgresStores.open(try PostgresConfiguration(url: url, schema: schema, poolSize: poolSize))
        } catch {
            print("\(label): skipped: \(error)")
            return
        }
        do {
            try await measure(stores, url, server, &report)
        } catch {
            report.fail(label, error)
        }
        do {
            try await stores.pool.execute("DROP SCHEMA \"\(schema)\" CASCADE")
        } catch {
            print("\(label): could not drop schema \(schema): \(error)")
        }
        await stores.close()
    }
}
