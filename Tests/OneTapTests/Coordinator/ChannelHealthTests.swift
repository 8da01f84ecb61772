import Foundation
import OneTapTesting
import Testing
@testable import OneTap

@Suite struct ChannelHealthTests {
    let clock = FakeClock()

    func health() -> ChannelHealth {
        ChannelHealth(configuration: .init(window: 4, minimumAttempts: 4, failureThreshold: 0.5, coolDown: .seconds(60)), clock: clock)
    }

    @Test func opensAtTheThresholdProbesAfterTheCoolDownAndCloses() {
        let health = health()
        for action in [OutcomeAction.fallback, .success, .fallback] {
            #expect(health.admit(.mobile, for: .mobile) == .allowed)
            health.record(.mobile, for: .mobile, action: action)
        }
        #expect(health.state(of: .mobile, for: .mobile) == .closed)   // 3 attempts: below the minimum
        health.record(.mobile, for: .mobile, action: .timeoutLike)
        #expect(health.state(of: .mobile, for: .mobile) == .open(until: clock.now().addingTimeInterval(60)))
        #expect(health.admit(.mobile, for: .mobile) == .rejected)
        #expect(health.admit(.tianyi, for: .mobile) == .allowed)      // other channels unaffected
        #expect(health.admit(.mobile, for: .telecom) == .allowed)
        clock.advance(by: .seconds(59))
        #expect(health.admit(.mobile, for: .mobile) == .rejected)
        clock.advance(by: .seconds(1))
        #expect(health.state(of: .mobile, for: .mobile) == .halfOpen)
        #expect(health.admit(.mobile, for: .mobile) == .probe)
        #expect(health.admit(.mobile, for: .mobile) == .rejected)     // one probe at a time
        health.record(.mobile, for: .mobile, action: .success)
        #expect(health.state(of: .mobile, for: .mobile) == .closed)
        #expect(health.admit(.mobile, for: .mobile) == .allowed)
    }

    @Test func failedProbeReopens() {
        let health = health()
        for _ in 0..<4 { health.record(.tianyi, for: .telecom, action: .fallback) }
        clock.advance(by: .seconds(60))
        #expect(health.admit(.tianyi, for: .telecom) == .probe)
        health.record(.tianyi, for: .telecom, action: .misconfigured)
        #expect(health.state(of: .tianyi, for: .telecom) == .open(until: clock.now().addingTimeInterval(60)))
    }

    @Test func aLostProbeIsReplacedAfterACoolDown() {
        let health = health()
        for _ in 0..<4 { health.record(.mobile, for: .mobile, action: .fallback) }
        clock.advance(by: .seconds(60))
        #expect(health.admit(.mobile, for: .mobile) == .probe)
        clock.advance(by: .seconds(60))
        #expect(health.admit(.mobile, for: .mobile) == .probe)
    }

    @Test func aProbeTheUserCancelledFreesTheProbeSlot() {
        let health = health()
        for _ in 0..<4 { health.record(.mobile, for: .mobile, action: .fallback) }
        clock.advance(by: .seconds(60))
        #expect(health.admit(.mobile, for: .mobile) == .probe)
        health.record(.mobile, for: .mobile, action: .cancelled)
        #expect(health.admit(.mobile, for: .mobile) == .probe)   // the next attempt may probe at once
    }

    @Test func cancellationsAndSwitchesDoNotCount() {
        let health = health()
        for _ in 0..<10 {
            health.record(.mobile, for: .mobile, action: .cancelled)
            health.record(.mobile, for: .mobile, action: .switch)
        }
        for _ in 0..<2 { health.record(.mobile, for: .mobile, action: .fallback) }
        #expect(health.state(of: .mobile, for: .mobile) == .closed)
    }

    @Test func slidingWindowForgetsOldFailures() {
        let health = ChannelHealth(configuration: .init(window: 4, minimumAttempts: 4, failureThreshold: 0.75), clock: clock)
        for action in [OutcomeAction.fallback, .fallback, .success, .success, .success, .fallback, .fallback] {
            health.record(.mobile, for: .mobile, action: action)
        }
        #expect(health.state(of: .mobile, for: .mobile) == .closed)   // window: success, success, fallback, fallback
    }

    @Test func coordinatorSkipsAnOpenChannelThenProbes() async throws {
        let health = health()
        let sms = MockSMSProvider()
        let mobile = MockMobileProvider(codes: [102102, 102102, 102102, 102102, 103000])
        let coordinator = LoginCoordinator(providers: LoginProviders(mobile: mobile, sms: sms), health: health, clock: clock)
        let snapshot = DeviceSnapshot(plmn: try PLMN("46000"))
        for _ in 0..<4 { _ = try await coordinator.login(snapshot) }
        let skipped = try await coordinator.login(snapshot)
        #expect(skipped.trace.map { "\($0.flow):\($0.result.code)" } == ["mobile:circuit-open", "sms:0"])
        #expect(mobile.calls == 4)
        clock.advance(by: .seconds(60))
        let probe = try await coordinator.login(snapshot)
        #expect(probe.trace.map { "\($0.flow):\($0.result.code)" } == ["mobile:103000"])
        #expect(health.state(of: .mobile, for: .mobile) == .closed)
    }

    @Test func sharedAcrossConcurrentRequests() async {
        let health = ChannelHealth(configuration: .init(window: 100, minimumAttempts: 100, failureThreshold: 0.5), clock: clock)
        let admitted = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<1000 {
                group.addTask {
                    let admission = health.admit(.mobile, for: .mobile)
                    health.record(.mobile, for: .mobile, action: .success)
                    return admission == .allowed
                }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(admitted == 1000)
        #expect(health.state(of: .mobile, for: .mobile) == .closed)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<1000 { group.addTask { health.record(.tianyi, for: .unicom, action: .fallback) } }
        }
        #expect(health.state(of: .tianyi, for: .unicom) == .open(until: clock.now().addingTimeInterval(60)))
    }
}

extension OutcomeAction {
    /// A timeout is recorded as a fallback.
    static let timeoutLike = OutcomeAction.fallback
}
