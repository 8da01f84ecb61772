import Foundation
import OneTapTesting
import Testing
@testable import OneTap

@Suite struct InMemoryAppSessionStoreTests {
    @Test func conformsToTheStoreContract() async throws {
        try await StoreConformance.check { InMemoryAppSessionStore() }
    }
}
