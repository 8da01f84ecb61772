import Foundation
import OneTapTesting
import Testing
@testable import OneTap

/// The one fault-injection mechanism under every `Faulty…Store`, and the one conformance harness under
/// every suite.
@Suite struct FaultsTests {
    let now = FakeClock.epoch

    func token(_ value: String) -> AccessToken {
        AccessToken(value: Secret(value), refreshToken: nil, flow: .tianyi, account: "u1", issuedAt: now, expiresAt: now.addingTimeInterval(3600))
    }

    @Test func aFaultStrikesItsOperationsTheGivenNumberOfTimes() async throws {
        let store = FaultyTokenStore(InMemoryTokenStore())
        store.faults.inject(.refuse(.timeout, "slow disk"), into: [.load, .remove], times: 2)
        _ = try await store.save(token("A"), replacing: nil, dueAt: now)
        await #expect {
            _ = try await store.load("u1")
        } throws: { error in
            (error as? StoreError) == StoreError(.timeout, subject: .account("u1"), message: "slow disk")
        }
        await #expect(throws: StoreError.self) { try await store.remove("u1", replacing: nil) }
        #expect(try await store.load("u1")?.token.value.reveal() == "A", "two calls struck; the third goes through")
        #expect(store.faults.calls(.load) == 1 && store.faults.calls(.save) == 1 && store.faults.calls() == 2)
    }

    @Test func aFaultAfterSomeCallsStrikesUntilHealed() async throws {
        let store = FaultyLoginSessionStore(InMemoryLoginSessionStore())
        store.faults.inject(.refuse(), after: 2, times: nil)
        let machine = LoginSessionMachine()
        let session = machine.start(DeviceSnapshot(sim: .absent), at: now, id: .random()).session
        try await store.create(session)
        #expect(try await store.load(session.id) == session)
        for _ in 0..<3 {
            await #expect {
                _ = try await store.load(session.id)
            } throws: { error in
                (error as? StoreError)?.description == "io for session \(session.id): the store is down (injected)"
            }
        }
        store.faults.heal()
        #expect(try await store.load(session.id) == session)
    }

    @Test func faultsStrikeInTheOrderTheyWereInjected() async throws {
        let store = FaultyTokenStore(InMemoryTokenStore())
        store.conflict()
        store.fail(.save)
        await #expect { _ = try await store.save(token("A"), replacing: nil, dueAt: now) } throws: { ($0 as? StoreError)?.kind == .conflict }
        await #expect { _ = try await store.save(token("A"), replacing: nil, dueAt: now) } throws: { ($0 as? StoreError)?.kind == .io }
        #expect(try await store.save(token("A"), replacing: nil, dueAt: now) > TokenVersion(0))
    }

    @Test func aLandedWriteIsStoredButReportedAsFailed() async throws {
        let store = FaultyTokenStore(InMemoryTokenStore())
        store.faults.inject(.land(), into: [.save])
        await #expect(throws: StoreError.self) { _ = try await store.save(token("landed"), replacing: nil, dueAt: now) }
        #expect(try await store.load("u1")?.token.value.reveal() == "landed")
    }

    @Test func aLostUpdateIsWorkedOutButNotWritten() async throws {
        let store = FaultySMSStore(InMemorySMSStore())
        let number = try PhoneNumber("13800138000")
        let counter = SMSPolicy.Counter(counts: .sends, key: .number, value: number.digits)
        let worked = LockedValue(0)
        store.faults.inject(.lose(), into: [.update])
        await #expect(throws: StoreError.self) {
            try await store.update(counters: [counter], code: number, at: now) { state in
                worked.withLock { $0 += 1 }
                state.events[counter] = [now]
                state.keepUntil = now.addingTimeInterval(60)
            }
        }
        #expect(worked.withLock { $0 } == 1, "the change was worked out")
        #expect(try await store.update(counters: [counter], code: number, at: now) { $0.events[counter] } == [], "and not written")
    }

    @Test func aDelayWaitsOnTheClockThenGoesThrough() async throws {
        let clock = FakeClock()
        let ledger = FaultyExchangeLedger(InMemoryExchangeLedger(), clock: clock)
        ledger.faults.inject(.delay(.seconds(5)), into: [.claim])
        let claim = Task { try await ledger.claim(SHA256.hash(Array("t".utf8)), at: now) }
        await clock.waitForSleepers(1)
        #expect(ledger.faults.calls(.claim) == 0, "still waiting")
        clock.advance(by: .seconds(5))
        #expect(try await claim.value == nil)
        #expect(ledger.faults.calls(.claim) == 1)
    }

    @Test func aCheckThatThrowsIsABrokenPropertyNamedByItsSuite() async throws {
        let failure = await #expect(throws: ConformanceFailure.self) {
            try await StoreConformance.check {
                let store = FaultyTokenStore(InMemoryTokenStore())
                store.faults.inject(.refuse(.io, "the disk is gone"), into: [.accounts], times: nil)
                return store
            }
        }
        #expect(failure?.suite == "TokenStoreConformance")
        #expect(failure?.problems == ["due index: the store threw where it must not: io: the disk is gone"], "\(String(describing: failure))")
        #expect(failure.map { "\($0)".hasPrefix("TokenStoreConformance: the store breaks 1 property:\n") } == true)
    }
}
