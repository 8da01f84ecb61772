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

    /// 2,000 sends, each from its own address, device and session, a quarter second apart: each leaves
    /// its seven counters (number, number's lane, number and session, address, /56, /48, device) and its code, plus the
    /// one global counter; all are kept for the policy's longest look (session-guesses: a day's window
    /// and a 900 s longest wait, 87,300 s) and then removed.
    @Test func memoryStaysWithinThePoliciesLongestLook() async throws {
        let store = InMemorySMSStore()
        let t0 = Date(timeIntervalSince1970: 1_796_090_400)
        let clock = FakeClock(now: t0)
        let service = SMSCodeService(key: .random(), sender: ScriptedSMSSender(), store: store, events: DiscardingEventSink(), clock: clock)
        for index in 0..<2_000 {
            clock.setWallTime(t0.addingTimeInterval(Double(index) / 4))
            let context = SMSContext(
                ip: try IPAddress("10.0.\(index / 250).\(index % 250)"), device: try DeviceID("device-\(index)"), session: LoginSessionID.random())
            let result = try await service.send(to: try PhoneNumber(value: 13_800_000_000 + UInt64(index)), context: context)
            #expect(result.name == "sent", "\(index): \(result)")
        }
        #expect(store.count == 2_000 * 8 + 1, "seven counters and one code per send, one global counter")
        #expect(try await store.removeExpired(before: t0.addingTimeInterval(87_300), limit: 100_000) == 0)
        #expect(try await store.removeExpired(before: t0.addingTimeInterval(87_300.001), limit: 100_000) == 8, "the first send's")
        #expect(try await store.removeExpired(before: t0.addingTimeInterval(500 + 87_300), limit: 100_000) == 2_000 * 8 + 1 - 8)
        #expect(store.count == 0)
    }
}

/// A store whose updates read, wait, then write: concurrent updates overwrite each other. The first update waits after
/// its read until a second one has read too (up to 0.2 s, for the checks that make one update at a time), so two
/// updates surely overlap, whatever the scheduler does.
final class LosingStore: SMSStore {
    private let base = InMemorySMSStore()
    private let reads = LockedValue(0)

    func update<Result: Sendable>(
        counters: [SMSPolicy.Counter], code number: SMSCodeKey?, at now: Date, _ body: @Sendable (inout SMSState) -> Result
    ) async throws -> Result {
        var state = try await base.update(counters: counters, code: number, at: now) { $0 }
        let read = reads.withLock { reads in
            reads += 1
            return reads
        }
        if read == 1 {
            for _ in 0..<20 where reads.withLock({ $0 }) < 2 { try await Task.sleep(for: .milliseconds(10)) }
        }
        let result = body(&state)
        let written = state
        try await base.update(counters: counters, code: number, at: now) { $0 = written }
        return result
    }

    func removeExpired(before instant: Date, limit: Int) async throws -> Int {
        try await base.removeExpired(before: instant, limit: limit)
    }
}
