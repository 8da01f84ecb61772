import Foundation
import OneTapTesting
import Testing
@testable import OneTap

@Suite struct InMemorySMSStoreTests {
    @Test func conforms() async throws {
        try await SMSStoreConformance.check(concurrency: 500) { InMemorySMSStore() }
    }

    @Test func aStoreThatLosesUpdatesIsCaught() async throws {
        let error = await #expect(throws: ConformanceFailure.self) {
            try await SMSStoreConformance.check(concurrency: 50) { LosingStore() }
        }
        #expect(error.map { "\($0)".contains("concurrent updates must all land") } == true, "\(String(describing: error))")
    }

    @Test func memoryStaysWithinThePoliciesLongestLook() async throws {
        let store = InMemorySMSStore()
        let t0 = Date(timeIntervalSince1970: 1_796_090_400)
        let service = SMSCodeService(key: .random(), sender: ScriptedSMSSender(), store: store, events: DiscardingEventSink(), clock: FakeClock(now: t0))
        for index in 0..<2_000 {
            _ = try await service.send(to: try PhoneNumber(value: 13_800_000_000 + UInt64(index)), context: SMSContext())
        }
        #expect(store.count == 4_000, "one counter and one code per number")
        // The longest rule looks back 48 h (a day's window and a day's lock).
        #expect(try await store.removeExpired(before: t0.addingTimeInterval(172_800), limit: 10_000) == 0)
        #expect(try await store.removeExpired(before: t0.addingTimeInterval(172_801), limit: 1_000) == 1_000)
        #expect(try await store.removeExpired(before: t0.addingTimeInterval(172_801), limit: 10_000) == 3_000)
        #expect(store.count == 0)
    }
}

/// A store whose updates read, wait, then write: concurrent updates overwrite each other.
final class LosingStore: SMSStore {
    private let base = InMemorySMSStore()

    func update<Result: Sendable>(
        counters: [SMSPolicy.Counter], code number: PhoneNumber, at now: Date, _ body: @Sendable (inout SMSState) -> Result
    ) async throws -> Result {
        var state = try await base.update(counters: counters, code: number, at: now) { $0 }
        await Task.yield()
        let result = body(&state)
        let written = state
        try await base.update(counters: counters, code: number, at: now) { $0 = written }
        return result
    }

    func removeExpired(before instant: Date, limit: Int) async throws -> Int {
        try await base.removeExpired(before: instant, limit: limit)
    }
}
