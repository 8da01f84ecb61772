import Foundation
import OneTapTesting
import Testing
@testable import OneTap

@Suite struct InMemoryAppSessionStoreTests {
    @Test func conformsToTheStoreContract() async throws {
        try await StoreConformance.check { InMemoryAppSessionStore() }
    }

    /// A store whose losing concurrent replaces fail with `io` (a pool with no free connection, say) instead of
    /// `conflict` keeps one winner, but breaks what `AppSessions` reads (a conflict means "read the session again", an
    /// `io` "the store failed": an honest concurrent refresh fails): the suite must say so (an attacker's read: it
    /// counted any throw as a lost race).
    @Test func conformanceSuiteCatchesALosingReplaceThatIsNoConflict() async {
        struct LosersFailIO: AppSessionStore {
            let base = InMemoryAppSessionStore()
            func create(_ record: AppSessionRecord) async throws { try await base.create(record) }
            func load(_ id: AppSessionID) async throws -> AppSessionRecord? { try await base.load(id) }
            func replace(_ record: AppSessionRecord, expecting version: Int) async throws {
                do {
                    try await base.replace(record, expecting: version)
                } catch let error as StoreError where error.kind == .conflict {
                    throw StoreError(.io, message: "no connection was free")
                }
            }
            func sessions(of account: AccountID) async throws -> [AppSessionID] { try await base.sessions(of: account) }
            func pendingMerges(after cursor: AppSessionID?, limit: Int) async throws -> [AppSessionID] {
                try await base.pendingMerges(after: cursor, limit: limit)
            }
            func removeExpired(before instant: Date, limit: Int) async throws -> Int { try await base.removeExpired(before: instant, limit: limit) }
        }
        await #expect {
            try await StoreConformance.check { LosersFailIO() }
        } throws: { error in
            let problems = (error as? ConformanceFailure)?.problems ?? []
            return problems.contains { $0.hasPrefix("a concurrent replace that loses must throw conflict, threw io") }
        }
    }
}
