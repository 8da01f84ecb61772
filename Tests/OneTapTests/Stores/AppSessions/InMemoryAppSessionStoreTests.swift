import Foundation
import OneTapTesting
import Testing
@testable import OneTap

@Suite struct InMemoryAppSessionStoreTests {
    @Test func conformsToTheStoreContract() async throws {
        try await AppSessionStoreConformance.check { InMemoryAppSessionStore() }
    }
}
