import Foundation
import OneTapTesting
import Testing
@testable import OneTap

@Suite struct ChannelHealthTests {
    let clock = FakeClock()

    func health() -> ChannelHealth {
        ChannelHealth(window: 4, minimumAttempts: 4, failureThreshold: 0.5, coolDown: .seconds(60))
    }

    @Test func opensAtTheThresholdProbesAfterTheCoolDownAndCloses() {
        let health = health()
        for action in [OutcomeAction.fallback, .success, .fallback] {
            #expect(health.admit(.mobile, for: .mobile, at: clock.now()) == .allowed)
            health.record(.mobile, for: .mobile, action: action, at: clock.now())
        }
        #expect(health.state(of: .mobile, for: .mobile, at: clock.now()) == .closed)   // 3 attempts: below the minimum
        health.record(.mobile, for: .mobile, action: .fallback, at: clock.now())   // a timeout falls back: it counts as a failure
        #expect(health.state(of: .mobile, for: .mobile, at: clock.now()) == .open(until: clock.now().addingTimeInterval(60)))
        #expect(health.admit(.mobile, for: .mobile, at: clock.now()) == .rejected)
        #expect(health.admit(.tianyi, for: .mobile, at: clock.now()) == .allowed)      // other channels unaffected
        #expect(health.admit(.mobile, for: .telecom, at: clock.now()) == .allowed)
        clock.advance(by: .seconds(59))
        #expect(health.admit(.mobile, for: .mobile, at: clock.now()) == .rejected)
        clock.advance(by: .seconds(1))
        #expect(health.state(of: .mobile, for: .mobile, at: clock.now()) == .halfOpen)
        #expect(health.admit(.mobile, for: .mobile, at: clock.now()) == .probe)
        #expect(health.admit(.mobile, for: .mobile, at: clock.now()) == .rejected)     // one probe at a time
        health.record(.mobile, for: .mobile, action: .success, at: clock.now())
        #expect(health.state(of: .mobile, for: .mobile, at: clock.now()) == .closed)
        #expect(health.admit(.mobile, for: .mobile, at: clock.now()) == .allowed)
    }

    @Test func failedProbeReopens() {
        let health = health()
        for _ in 0..<4 { health.record(.tianyi, for: .telecom, action: .fallback, at: clock.now()) }
        clock.advance(by: .seconds(60))
        #expect(health.admit(.tianyi, for: .telecom, at: clock.now()) == .probe)
        health.record(.tianyi, for: .telecom, action: .misconfigured, at: clock.now())
        #expect(health.state(of: .tianyi, for: .telecom, at: clock.now()) == .open(until: clock.now().addingTimeInterval(60)))
    }

    @Test func aLostProbeIsReplacedAfterACoolDown() {
        let health = health()
        for _ in 0..<4 { health.record(.mobile, for: .mobile, action: .fallback, at: clock.now()) }
        clock.advance(by: .seconds(60))
        #expect(health.admit(.mobile, for: .mobile, at: clock.now()) == .probe)
        clock.advance(by: .seconds(60))
        #expect(health.admit(.mobile, for: .mobile, at: clock.now()) == .probe)
    }

    @Test func aProbeTheUserCancelledFreesTheProbeSlot() {
        let health = health()
        for _ in 0..<4 { health.record(.mobile, for: .mobile, action: .fallback, at: clock.now()) }
        clock.advance(by: .seconds(60))
        #expect(health.admit(.mobile, for: .mobile, at: clock.now()) == .probe)
        health.record(.mobile, for: .mobile, action: .cancelled, at: clock.now())
        #expect(health.admit(.mobile, for: .mobile, at: clock.now()) == .probe)   // the next attempt may probe at once
    }

    @Test func cancellationsAndSwitchesDoNotCount() {
        let health = health()
        for _ in 0..<10 {
            health.record(.mobile, for: .mobile, action: .cancelled, at: clock.now())
            health.record(.mobile, for: .mobile, action: .switch, at: clock.now())
        }
        for _ in 0..<2 { health.record(.mobile, for: .mobile, action: .fallback, at: clock.now()) }
        #expect(health.state(of: .mobile, for: .mobile, at: clock.now()) == .closed)
    }

    @Test func slidingWindowForgetsOldFailures() {
        let health = ChannelHealth(window: 4, minimumAttempts: 4, failureThreshold: 0.75)
        for action in [OutcomeAction.fallback, .fallback, .success, .success, .success, .fallback, .fallback] {
            health.record(.mobile, for: .mobile, action: action, at: clock.now())
        }
        #expect(health.state(of: .mobile, for: .mobile, at: clock.now()) == .closed)   // window: success, success, fallback, fallback
    }

    @Test func coordinatorSkipsAnOpenChannelThenProbes() async throws {
        let health = health()
        let sms = MockSMSProvider()
        let mobile = MockOneTapProvider(.mobile, codes: [102102, 102102, 102102, 102102, 103000])
        let coordinator = LoginCoordinator(providers: LoginProviders(mobile: mobile, sms: sms), health: health, clock: clock, events: DiscardingEventSink())
        let snapshot = DeviceSnapshot(plmn: try PLMN("46000"))
        for _ in 0..<4 { _ = try await coordinator.login(snapshot) }
        let skipped = try await coordinator.login(snapshot)
        #expect(skipped.trace.map { "\($0.flow):\($0.result.code)" } == ["mobile:circuit-open", "sms:0"])
        #expect(mobile.calls == 4)
        clock.advance(by: .seconds(60))
        let probe = try await coordinator.login(snapshot)
        #expect(probe.trace.map { "\($0.flow):\($0.result.code)" } == ["mobile:103000"])
        #expect(health.state(of: .mobile, for: .mobile, at: clock.now()) == .closed)
    }

    /// A progress code (200087: the page is shown) says nothing about the channel.
    @Test func progressIsNotCounted() {
        let health = health()
        for _ in 0..<10 { health.record(.mobile, for: .mobile, action: .progress, at: clock.now()) }
        for _ in 0..<2 { health.record(.mobile, for: .mobile, action: .fallback, at: clock.now()) }
        #expect(health.state(of: .mobile, for: .mobile, at: clock.now()) == .closed)
    }

    @Test func sharedAcrossConcurrentRequests() async {
        let health = ChannelHealth(window: 100, minimumAttempts: 100, failureThreshold: 0.5)
        let admitted = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<1000 {
                group.addTask {
                    let admission = health.admit(.mobile, for: .mobile, at: clock.now())
                    health.record(.mobile, for: .mobile, action: .success, at: clock.now())
                    return admission == .allowed
                }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(admitted == 1000)
        #expect(health.state(of: .mobile, for: .mobile, at: clock.now()) == .closed)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<1000 { group.addTask { health.record(.tianyi, for: .unicom, action: .fallback, at: clock.now()) } }
        }
        #expect(health.state(of: .tianyi, for: .unicom, at: clock.now()) == .open(until: clock.now().addingTimeInterval(60)))
    }
}
