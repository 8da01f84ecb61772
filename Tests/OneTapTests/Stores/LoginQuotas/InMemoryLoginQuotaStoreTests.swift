import Foundation
import OneTapTesting
import Testing
@testable import OneTap

@Suite struct InMemoryLoginQuotaStoreTests {
    @Test func conforms() async throws {
        try await LoginQuotaStoreConformance.check(concurrency: 500) { InMemoryLoginQuotaStore() }
    }

    @Test func aStoreThatLosesUpdatesIsCaught() async throws {
        let error = await #expect(throws: ConformanceFailure.self) {
            try await LoginQuotaStoreConformance.check(concurrency: 50) { LosingLoginQuotaStore() }
        }
        #expect(error.map { "\($0)".contains("concurrent updates must all land") } == true, "\(String(describing: error))")
        #expect(error.map { "\($0)".contains("must admit exactly 5") } == true, "\(String(describing: error))")
    }

    /// Counters live as long as the policy's longest window looks back (an hour), then are swept.
    @Test func memoryStaysWithinThePoliciesLongestLook() async throws {
        let store = InMemoryLoginQuotaStore()
        let quotas = LoginQuotas(store: store)
        let t0 = Date(timeIntervalSince1970: 1_796_090_400)
        for index in 0..<200 {
            try await quotas.admit(.starts, session: .random(), appSession: try AppSessionID("QuotaMemoryTest" + String(1_000_000 + index)),
                                   address: try IPAddress("198.51.\(index / 200).\(index % 200)"), device: try DeviceID("device-\(index)"), clock: FakeClock(now: t0), events: DiscardingEventSink())
        }
        #expect(store.count == 1000, "an address (under ip, ip56 and ip48), a device and an app session counter per start")
        #expect(try await store.removeExpired(before: t0.addingTimeInterval(3600), limit: 10_000) == 0)
        #expect(try await store.removeExpired(before: t0.addingTimeInterval(3601), limit: 100) == 100)
        #expect(try await store.removeExpired(before: t0.addingTimeInterval(3601), limit: 10_000) == 900)
        #expect(store.count == 0)
    }
}

/// A store whose updates read, wait, then write: concurrent updates overwrite each other.
final class LosingLoginQuotaStore: LoginQuotaStore {
    private let base = InMemoryLoginQuotaStore()

    func update<Result: Sendable>(
        counters: [LoginQuotaPolicy.Counter], at now: Date, _ body: @Sendable (inout LoginQuotaState) -> Result
    ) async throws -> Result {
        var state = try await base.update(counters: counters, at: now) { $0 }
        await Task.yield()
        let result = body(&state)
        let written = state
        try await base.update(counters: counters, at: now) { $0 = written }
        return result
    }

    func removeExpired(before instant: Date, limit: Int) async throws -> Int {
        try await base.removeExpired(before: instant, limit: limit)
    }
}
