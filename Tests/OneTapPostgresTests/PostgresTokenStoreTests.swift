import Foundation
import OneTap
import OneTapPostgres
import OneTapTesting
import Testing

@Suite struct PostgresTokenStoreTests {
    @Test func conformsToTheStoreContract() async throws {
        let url = try await TestDatabase.url()
        var opened: [PostgresStores] = []
        defer { _ = opened }
        do {
            try await TokenStoreConformance.check {
                let stores = try await PostgresStores.open(try TestDatabase.configuration(url))
                opened.append(stores)
                return stores.tokenStore()
            }
        } catch {
            for stores in opened { await TestDatabase.dispose(stores) }
            throw error
        }
        for stores in opened { await TestDatabase.dispose(stores) }
    }
}
