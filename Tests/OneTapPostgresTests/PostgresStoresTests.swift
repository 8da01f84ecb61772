import Foundation
import OneTap
@testable import OneTapPostgres
import Testing

@Suite struct PostgresStoresTests {
    /// Only leases expired both before the instant and on the database's clock go.
    @Test func removeExpiredRowsRemovesOnlyLeasesWhoseTimePassed() async throws {
        try await TestDatabase.withStores { stores in
            let leases = "\"\(stores.configuration.schema)\".refresh_leases"
            for (account, offset) in [("gone-1", "-2 hours"), ("gone-2", "-1 minute"), ("live", "+1 hour"), ("later", "+2 days")] {
                try await stores.pool.execute(
                    "INSERT INTO \(leases) (account, holder, expires_at) VALUES ($1, 'crashed', now() + $2::interval)", [.text(account), .text(offset)])
            }
            let report = try await stores.removeExpiredRows(before: Date().addingTimeInterval(86_400))
            #expect(report == PostgresCleanupReport(refreshLeases: 2))
            #expect(report.description == "removed 2 expired refresh leases")
            let left = try await stores.pool.execute("SELECT account FROM \(leases) ORDER BY account")
            #expect(left.rows.compactMap { $0.first?.text } == ["later", "live"])
            let early = try await stores.removeExpiredRows(before: Date(timeIntervalSince1970: 0))
            #expect(early.refreshLeases == 0 && early.description == "removed 0 expired refresh leases")
        }
    }

    @Test func descriptionsNameTheServerWithoutThePassword() async throws {
        let configuration = try PostgresConfiguration(url: "postgres://api:hunter2@db.example/tokens", schema: "tenant_a")
        let stores = PostgresStores(configuration: configuration)
        let store = stores.tokenStore(leaseDuration: .seconds(45), lockTimeout: .seconds(10))
        for text in [stores.description, store.description, stores.pool.description] {
            #expect(text.contains("host=db.example") && text.contains("password=<redacted>") && !text.contains("hunter2"), "\(text)")
        }
        #expect(store.description.hasPrefix("PostgresTokenStore(schema tenant_a, lease 45.0 s, lock timeout 10.0 s, PostgresPool("))
        #expect(store.schema == "tenant_a")
        #expect(stores.tokenStore(leaseDuration: .milliseconds(1)).leaseDuration == .milliseconds(100))
        await stores.close()
    }
}
