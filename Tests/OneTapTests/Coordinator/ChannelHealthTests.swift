import Foundation
import OneTapTesting
import Testing
@testable import OneTap

@Suite struct ChannelHealthTests {
    let clock = FakeClock()

    func health() -> ChannelHealth {
        ChannelHealth(window: 4, minimumAttempts: 4, failureThreshold: 0.5, coolDown: .seconds(60))
    }

    /// A device attacker's read: the breaker runs on the wall clock, so a circuit opened while a device's clock
    /// was a day ahead stayed open, and a probe started then stayed held, for a day after the clock was set
    /// right. No circuit stays open longer than its cool-down and a probe time-out (20 s, the slack a slow request's
    /// instant needs), nor a probe held longer than two time-outs, from the first time the breaker is asked after the
    /// clock went back.
    @Test func aClockSetBackNeverKeepsACircuitOpenPastItsCoolDown() {
        let health = health()
        let ahead = clock.now().addingTimeInterval(86_400)
        for _ in 0..<4 { health.record(.mobile, for: .mobile, action: .fallback, at: ahead) }
        #expect(health.state(of: .mobile, for: .mobile, at: ahead) == .open(until: ahead.addingTimeInterval(60)))
        clock.advance(by: .seconds(120))   // the clock set right: a day back
        #expect(health.state(of: .mobile, for: .mobile, at: clock.now()) == .open(until: clock.now().addingTimeInterval(80)))
        clock.advance(by: .seconds(80))
        #expect(health.state(of: .mobile, for: .mobile, at: clock.now()) == .halfOpen)
        // A probe started while the clock was ahead holds its slot for the probe time-out (20 s) at most.
        #expect(health.admit(.mobile, for: .mobile, at: clock.now().addingTimeInterval(3_600)) == .probe)
        #expect(health.admit(.mobile, for: .mobile, at: clock.now()) == .rejected, "the probe is held")
        clock.advance(by: .seconds(39))
        #expect(health.admit(.mobile, for: .mobile, at: clock.now()) == .rejected, "held for two time-outs at most")
        clock.advance(by: .seconds(2))
        #expect(health.admit(.mobile, for: .mobile, at: clock.now()) == .probe)
    }

    /// A device attacker's read: with a failure threshold of 0 (or NaN, which clamped to 0), ten successes met the
    /// opening rule (`0/10 >= 0`) and opened the circuit with no failure at all. The rule wants one failure at least;
    /// NaN counts as the default 0.5.
    @Test func noCircuitOpensWithoutAFailureWhateverTheThreshold() {
        for threshold in [0.0, -1, .nan] {
            let health = ChannelHealth(window: 4, minimumAttempts: 2, failureThreshold: threshold, coolDown: .seconds(60))
            for _ in 0..<4 { health.record(.mobile, for: .mobile, action: .success, at: clock.now()) }
            #expect(health.state(of: .mobile, for: .mobile, at: clock.now()) == .closed, "threshold \(threshold)")
        }
        let zero = ChannelHealth(window: 4, minimumAttempts: 2, failureThreshold: 0, coolDown: .seconds(60))
        for _ in 0..<3 { zero.record(.mobile, for: .mobile, action: .success, at: clock.now()) }
        zero.record(.mobile, for: .mobile, action: .fallback, at: clock.now())
        #expect(zero.state(of: .mobile, for: .mobile, at: clock.now()) == .open(until: clock.now().addingTimeInterval(60)), "0: the first failure opens")
        let nan = ChannelHealth(window: 4, minimumAttempts: 4, failureThreshold: .nan, coolDown: .seconds(60))
        for action in [OutcomeAction.success, .success, .success, .fallback] { nan.record(.mobile, for: .mobile, action: action, at: clock.now()) }
        #expect(nan.state(of: .mobile, for: .mobile, at: clock.now()) == .closed, "NaN is 0.5: one failure in four stays closed")
        nan.record(.mobile, for: .mobile, action: .fallback, at: clock.now())
        #expect(nan.state(of: .mobile, for: .mobile, at: clock.now()) != .closed, "two in four open it")
    }

    /// A device attacker's read: the attempts this process saw never aged: on a device with a login now and then,
    /// timeouts of days ago (no signal, airplane mode) added up with today's, and one fresh failure opened the
    /// circuit. An attempt weighs for an hour (`attemptSpan`).
    @Test func attemptsOlderThanTheirSpanWeighNoMore() {
        let health = health()
        for _ in 0..<3 { health.record(.mobile, for: .mobile, action: .fallback, at: clock.now()) }
        clock.advance(by: .seconds(86_400))
        health.record(.mobile, for: .mobile, action: .fallback, at: clock.now())
        #expect(health.state(of: .mobile, for: .mobile, at: clock.now()) == .closed, "a day's old failures do not count")
        for _ in 0..<2 { health.record(.mobile, for: .mobile, action: .fallback, at: clock.now()) }
        clock.advance(by: .seconds(3_600))
        health.record(.mobile, for: .mobile, action: .fallback, at: clock.now())
        #expect(health.state(of: .mobile, for: .mobile, at: clock.now()) == .open(until: clock.now().addingTimeInterval(60)), "within the hour: four")
    }

    /// A review of the fix: with a span as short as a client's word (120 s), the default ten attempts had to fall within
    /// two minutes, so logins minutes apart that all timed out never opened the circuit, and each waited its full time
    /// limit. Under the defaults, ten failures five minutes apart open it.
    @Test func failuresMinutesApartOpenTheCircuitUnderTheDefaults() {
        let health = ChannelHealth()
        for index in 0..<10 {
            #expect(health.state(of: .mobile, for: .mobile, at: clock.now()) == .closed, "after \(index)")
            health.record(.mobile, for: .mobile, action: .fallback, at: clock.now())
            clock.advance(by: .seconds(300))
        }
        #expect(health.state(of: .mobile, for: .mobile, at: clock.now().addingTimeInterval(-300)) != .closed)
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

    static func client(_ index: Int, address: String) -> ChannelClient {
        ChannelClient(appSession: try! AppSessionID("HealthTestsSession" + String(1000 + index)), identity: nil, address: try! IPAddress(address))
    }

    /// A partial outage whose failures are clients' words (the carrier's failure codes, the SDK's) while real successes
    /// go on: the circuit opens when the failing clients are most of the attempts (30 failing clients against 10
    /// successes the server saw, each for a client of its own). Pinned so that a defence against strangers' words never
    /// silences an outage.
    @Test func aPartialOutageToldByClientsStillOpensTheCircuit() {
        let health = ChannelHealth()
        for index in 0..<40 {
            clock.advance(by: .seconds(1))
            if index % 4 == 3 {
                health.record(.mobile, for: .mobile, action: .success, seenFor: Self.client(index, address: "198.19.\(index).7"), at: clock.now())
            } else {
                health.record(.mobile, for: .mobile, action: .fallback, reportedBy: Self.client(index, address: "198.18.\(index).7"), at: clock.now())
            }
        }
        guard case .open = health.state(of: .mobile, for: .mobile, at: clock.now()) else {
            Issue.record("a partial outage of 75 % failing clients left the circuit \(health.state(of: .mobile, for: .mobile, at: clock.now()))")
            return
        }
    }

    /// An open circuit is not closed by the next success the server sees (an exchange admitted before it opened; a
    /// partial outage would flap open and shut at every success): it waits for its cool-down and a probe.
    @Test func anOpenCircuitWaitsForItsCoolDownWhateverSucceedsMeanwhile() {
        let health = health()
        for _ in 0..<4 { health.record(.mobile, for: .mobile, action: .failed, at: clock.now()) }
        let until = clock.now().addingTimeInterval(60)
        #expect(health.state(of: .mobile, for: .mobile, at: clock.now()) == .open(until: until))
        clock.advance(by: .seconds(3))
        health.record(.mobile, for: .mobile, action: .success, at: clock.now())
        #expect(health.state(of: .mobile, for: .mobile, at: clock.now()) == .open(until: until))
    }

    /// A new client probes, and the server sees its exchange succeed.
    /// - Returns: The circuit's state after it.
    func probeSucceeds(_ health: ChannelHealth) -> ChannelHealth.CircuitState {
        let prober = Self.client(99, address: "198.19.99.7")
        #expect(health.admit(.mobile, for: .mobile, reservedBy: prober, at: clock.now()) == .probe)
        health.record(.mobile, for: .mobile, action: .success, seenFor: prober, at: clock.now())
        return health.state(of: .mobile, for: .mobile, at: clock.now())
    }

    /// Failures the server saw for many clients open the circuit by its own window; they hold no client's place, so
    /// after the cool-down the first probe's success closes it (a client-told outage would keep it probing).
    @Test func anOutageTheServerSawClosesAtTheFirstProbeSuccess() {
        let health = ChannelHealth()
        for index in 0..<10 { health.record(.mobile, for: .mobile, action: .failed, seenFor: Self.client(index, address: "198.19.\(index).7"), at: clock.now()) }
        #expect(health.state(of: .mobile, for: .mobile, at: clock.now()) == .open(until: clock.now().addingTimeInterval(60)))
        clock.advance(by: .seconds(60))
        #expect(probeSucceeds(health) == .closed)
    }

    /// While half open, only a probe's own client is heard: twenty clients holding no probe saying the channel fails
    /// (sessions started before it opened, or strangers) change nothing, and a probe's success closes it.
    @Test func whileHalfOpenOnlyAProbesClientIsHeard() {
        let health = ChannelHealth()
        for _ in 0..<10 { health.record(.mobile, for: .mobile, action: .failed, at: clock.now()) }
        clock.advance(by: .seconds(60))
        for index in 0..<20 { health.record(.mobile, for: .mobile, action: .fallback, reportedBy: Self.client(index, address: "203.0.\(index).7"), at: clock.now()) }
        #expect(probeSucceeds(health) == .closed)
    }

    /// Clients' words must be at least the opening rule's minimum, whatever the successes: five users seen succeed and
    /// five strangers leave the circuit closed; ten strangers against five users open it.
    @Test func failingClientsMustReachTheMinimum() {
        let health = ChannelHealth()
        for index in 0..<5 { health.record(.mobile, for: .mobile, action: .success, seenFor: Self.client(index, address: "198.19.\(index).7"), at: clock.now()) }
        for index in 0..<9 {
            health.record(.mobile, for: .mobile, action: .fallback, reportedBy: Self.client(100 + index, address: "203.0.\(index).7"), at: clock.now())
            #expect(health.state(of: .mobile, for: .mobile, at: clock.now()) == .closed, "\(index + 1) strangers")
        }
        health.record(.mobile, for: .mobile, action: .fallback, reportedBy: Self.client(109, address: "203.0.9.7"), at: clock.now())
        #expect(health.state(of: .mobile, for: .mobile, at: clock.now()) == .open(until: clock.now().addingTimeInterval(60)))
    }

    /// What this process saw is weighed after every attempt, a success too, as before clients' words were weighed apart:
    /// six failures in ten open the circuit at the tenth attempt, a success.
    @Test func theWindowIsWeighedAfterEveryAttempt() {
        let health = ChannelHealth(window: 10, minimumAttempts: 10, failureThreshold: 0.5)
        for action in [OutcomeAction.failed, .failed, .success, .success, .failed, .failed, .failed, .failed, .success] {
            health.record(.mobile, for: .mobile, action: action, at: clock.now())
        }
        #expect(health.state(of: .mobile, for: .mobile, at: clock.now()) == .closed)
        health.record(.mobile, for: .mobile, action: .success, at: clock.now())
        #expect(health.state(of: .mobile, for: .mobile, at: clock.now()) == .open(until: clock.now().addingTimeInterval(60)))
    }

    /// Clients' words weigh for their span only, whatever is noted since: ten strangers' words at t=100 s against eleven
    /// users at t=0 s, and one more user at 125 s, are all gone by 300 s, when a time-out the server saw comes in.
    @Test func wordsPastTheirSpanWeighNothingWhenNothingWasNotedSince() {
        let health = ChannelHealth()
        for index in 0..<11 { health.record(.mobile, for: .mobile, action: .success, seenFor: Self.client(index, address: "198.19.\(index).7"), at: clock.now()) }
        clock.advance(by: .seconds(100))
        for index in 0..<10 { health.record(.mobile, for: .mobile, action: .fallback, reportedBy: Self.client(100 + index, address: "203.0.\(index).7"), at: clock.now()) }
        clock.advance(by: .seconds(25))
        health.record(.mobile, for: .mobile, action: .success, seenFor: Self.client(50, address: "198.19.50.7"), at: clock.now())
        clock.advance(by: .seconds(175))
        health.record(.mobile, for: .mobile, action: .failed, seenFor: Self.client(51, address: "198.19.51.7"), at: clock.now())
        #expect(health.state(of: .mobile, for: .mobile, at: clock.now()) == .closed)
    }

    /// A device id is the app's claim: a stranger copying a prober's is not that prober, and its word neither frees nor
    /// takes the prober's slot.
    @Test func aStrangerClaimingAProbersDeviceIDIsNotHeardForIt() {
        let (health, _) = halfOpenWithEveryProbeTaken { "198.51.100.\($0)" }
        clock.advance(by: .seconds(21))   // the three slots ran out
        let device = try! DeviceID("users-phone")
        let user = ChannelClient(appSession: try! AppSessionID("HealthTestsSession9101"), identity: nil, address: try! IPAddress("2001:db8:1::1"), device: device)
        let stranger = ChannelClient(appSession: try! AppSessionID("HealthTestsSession9102"), identity: nil, address: try! IPAddress("2001:db9:1::1"), device: device)
        #expect(health.admit(.mobile, for: .mobile, reservedBy: user, at: clock.now()) == .probe)
        health.record(.mobile, for: .mobile, action: .fallback, reportedBy: stranger, at: clock.now())
        for index in 4...5 { #expect(health.admit(.mobile, for: .mobile, reservedBy: Self.client(index, address: "192.0.2.\(index)"), at: clock.now()) == .probe) }
        #expect(health.admit(.mobile, for: .mobile, reservedBy: Self.client(6, address: "192.0.2.6"), at: clock.now()) == .rejected, "the user's probe holds the third slot")
    }

    /// One client's reports hold one place in the window: its newer report replaces its older one.
    @Test func oneClientCountsOnceInTheWindow() {
        let health = health()
        let client = Self.client(1, address: "203.0.113.7")
        for _ in 0..<10 { health.record(.mobile, for: .mobile, action: .fallback, reportedBy: client, at: clock.now()) }
        #expect(health.state(of: .mobile, for: .mobile, at: clock.now()) == .closed)
        // Another app session from the same address is the same client; so is the same session elsewhere.
        health.record(.mobile, for: .mobile, action: .fallback, reportedBy: Self.client(2, address: "203.0.113.7"), at: clock.now())
        health.record(.mobile, for: .mobile, action: .fallback, reportedBy: Self.client(1, address: "198.51.100.1"), at: clock.now())
        #expect(health.state(of: .mobile, for: .mobile, at: clock.now()) == .closed)
        // Three more distinct clients: four in the window, all failures.
        for index in 3...5 { health.record(.mobile, for: .mobile, action: .fallback, reportedBy: Self.client(index, address: "192.0.2.\(index)"), at: clock.now()) }
        #expect(health.state(of: .mobile, for: .mobile, at: clock.now()) == .open(until: clock.now().addingTimeInterval(60)))
    }

    /// Observed attempts are not capped: four failures the server saw for one client open the circuit. A client's
    /// word does not complete the server's own window: one word and three failures seen leave it closed.
    @Test func observedFailuresCountInFull() {
        let health = health()
        let client = Self.client(1, address: "203.0.113.7")
        health.record(.mobile, for: .mobile, action: .fallback, reportedBy: client, at: clock.now())
        for _ in 0..<3 { health.record(.mobile, for: .mobile, action: .failed, seenFor: client, at: clock.now()) }
        #expect(health.state(of: .mobile, for: .mobile, at: clock.now()) == .closed)
        health.record(.mobile, for: .mobile, action: .failed, seenFor: client, at: clock.now())
        #expect(health.state(of: .mobile, for: .mobile, at: clock.now()) == .open(until: clock.now().addingTimeInterval(60)))
    }

    /// A half-open circuit's probe failed by a client's word frees the slot, and that client takes no other until the
    /// circuit opens or closes (a cool-down was not enough: twelve addresses rotating held every slot); clients' words
    /// never re-open it, however many (a stranger's cost would be one address each); the server seeing a probe fail
    /// does, and then every client may probe again after the cool-down.
    @Test func aProbeFailedByAClientFreesTheSlotAndSpendsThatClient() {
        let health = halfOpened()
        for index in 1...6 {
            let client = Self.client(index, address: "192.0.2.\(index)")
            #expect(health.admit(.mobile, for: .mobile, reservedBy: client, at: clock.now()) == .probe)
            health.record(.mobile, for: .mobile, action: .fallback, reportedBy: client, at: clock.now())
            #expect(health.state(of: .mobile, for: .mobile, at: clock.now()) == .halfOpen)
            #expect(health.admit(.mobile, for: .mobile, reservedBy: client, at: clock.now()) == .rejected, "client \(index) spent")
        }
        clock.advance(by: .seconds(600))
        #expect(health.admit(.mobile, for: .mobile, reservedBy: Self.client(1, address: "192.0.2.1"), at: clock.now()) == .rejected, "ten minutes later")
        let prober = Self.client(7, address: "192.0.2.7")
        #expect(health.admit(.mobile, for: .mobile, reservedBy: prober, at: clock.now()) == .probe)
        health.record(.mobile, for: .mobile, action: .failed, seenFor: prober, at: clock.now())
        #expect(health.state(of: .mobile, for: .mobile, at: clock.now()) == .open(until: clock.now().addingTimeInterval(60)))
        clock.advance(by: .seconds(60))
        #expect(health.admit(.mobile, for: .mobile, reservedBy: Self.client(1, address: "192.0.2.1"), at: clock.now()) == .probe)
    }

    /// A circuit opened by four failures seen, its cool-down passed.
    func halfOpened() -> ChannelHealth {
        let health = health()
        for _ in 0..<4 { health.record(.mobile, for: .mobile, action: .failed, at: clock.now()) }
        clock.advance(by: .seconds(60))
        return health
    }

    /// A circuit opened by four failures seen, its cool-down passed, and three clients holding its three probes.
    /// - Parameter address: The address of client 1, 2 and 3.
    /// - Returns: The breaker and the three clients.
    func halfOpenWithEveryProbeTaken(_ address: (Int) -> String) -> (ChannelHealth, [ChannelClient]) {
        let health = halfOpened()
        let squatters = (1...3).map { Self.client($0, address: address($0)) }
        for squatter in squatters { #expect(health.admit(.mobile, for: .mobile, reservedBy: squatter, at: clock.now()) == .probe) }
        return (health, squatters)
    }

    /// An attacker's read: three clients that each start a probe and never report, starting again just before
    /// their slot frees, held every probe slot for ever, and every other user skipped the channel. A client's
    /// slot now frees a probe timeout after its first probe, however often it starts again, and a client whose
    /// probe ran out unreported takes no slot until the circuit opens or closes again (a cool-down was not enough:
    /// twelve addresses rotating held every slot).
    @Test func clientsThatNeverReportCannotHoldTheProbeSlots() {
        let (health, squatters) = halfOpenWithEveryProbeTaken { "2001:db8:\($0)::1" }
        let honest = Self.client(9, address: "2001:db9::1")
        #expect(health.admit(.mobile, for: .mobile, reservedBy: honest, at: clock.now()) == .rejected, "three probes under way")
        clock.advance(by: .seconds(19))
        for squatter in squatters { _ = health.admit(.mobile, for: .mobile, reservedBy: squatter, at: clock.now()) }  // started again
        clock.advance(by: .seconds(2))
        #expect(health.admit(.mobile, for: .mobile, reservedBy: honest, at: clock.now()) == .probe, "their slots ran out 20 s after their first probes")
        for squatter in squatters { #expect(health.admit(.mobile, for: .mobile, reservedBy: squatter, at: clock.now()) == .rejected) }
        // Spent until the circuit opens or closes: a cool-down later, still no slot.
        clock.advance(by: .seconds(59))
        #expect(health.admit(.mobile, for: .mobile, reservedBy: squatters[1], at: clock.now()) == .rejected)
        // The server sees the honest probe fail: the circuit opens again, and after its cool-down everyone may probe.
        health.record(.mobile, for: .mobile, action: .failed, at: clock.now())
        clock.advance(by: .seconds(60))
        #expect(health.admit(.mobile, for: .mobile, reservedBy: squatters[0], at: clock.now()) == .probe)
        health.record(.mobile, for: .mobile, action: .success, at: clock.now())
        #expect(health.state(of: .mobile, for: .mobile, at: clock.now()) == .closed)
    }

    /// An attacker's read: three clients that take every probe slot and cancel just before their slots run out, then
    /// start again, held the slots for ever (a cancelled probe left its client free to take a fresh one). A client whose
    /// probe it cancelled or switched away from takes no slot for a cool-down.
    @Test func clientsThatCancelTheirProbesCannotHoldTheSlots() {
        let (health, squatters) = halfOpenWithEveryProbeTaken { "198.51.100.\($0)" }
        clock.advance(by: .seconds(19))
        for (index, squatter) in squatters.enumerated() {
            health.record(.mobile, for: .mobile, action: index == 0 ? .switch : .cancelled, reportedBy: squatter, at: clock.now())
            #expect(health.admit(.mobile, for: .mobile, reservedBy: squatter, at: clock.now()) == .rejected)
        }
        for index in 4...6 {
            #expect(health.admit(.mobile, for: .mobile, reservedBy: Self.client(index, address: "192.0.2.\(index)"), at: clock.now()) == .probe)
        }
    }

    /// A third attacker's read: a probe taken from one address and given up (a failure word, or a cancel) from another
    /// with the same session spent only the second address, so the first took a fresh slot at once with a fresh guest
    /// session, for ever. Giving a probe up spends everyone it was taken by; starting again from another address
    /// never passes the probe to that address.
    @Test(arguments: [OutcomeAction.fallback, .cancelled])
    func aProbeGivenUpFromAnotherAddressSpendsTheAddressThatTookIt(_ action: OutcomeAction) {
        let health = halfOpened()
        let session = try! AppSessionID("HealthTestsSession9201")
        let taker = ChannelClient(appSession: session, identity: nil, address: try! IPAddress("203.0.113.10"))
        let reporter = ChannelClient(appSession: session, identity: nil, address: try! IPAddress("198.51.100.20"))
        #expect(health.admit(.mobile, for: .mobile, reservedBy: taker, at: clock.now()) == .probe)
        #expect(health.admit(.mobile, for: .mobile, reservedBy: reporter, at: clock.now()) == .probe, "its own probe, started again")
        health.record(.mobile, for: .mobile, action: action, reportedBy: reporter, at: clock.now())
        let fresh = ChannelClient(appSession: try! AppSessionID("HealthTestsSession9202"), identity: nil, address: try! IPAddress("203.0.113.10"))
        #expect(health.admit(.mobile, for: .mobile, reservedBy: fresh, at: clock.now()) == .rejected)
    }

    /// A probe started again from another address and left to run out spends the address that took it.
    @Test func aProbeStartedAgainElsewhereStaysItsTakers() {
        let health = halfOpened()
        let session = try! AppSessionID("HealthTestsSession9301")
        #expect(health.admit(.mobile, for: .mobile, reservedBy: ChannelClient(appSession: session, identity: nil, address: try! IPAddress("203.0.113.30")), at: clock.now()) == .probe)
        #expect(health.admit(.mobile, for: .mobile, reservedBy: ChannelClient(appSession: session, identity: nil, address: try! IPAddress("198.51.100.30")), at: clock.now()) == .probe)
        clock.advance(by: .seconds(21))   // ran out unreported
        let fresh = ChannelClient(appSession: try! AppSessionID("HealthTestsSession9302"), identity: nil, address: try! IPAddress("203.0.113.30"))
        #expect(health.admit(.mobile, for: .mobile, reservedBy: fresh, at: clock.now()) == .rejected)
    }

    /// The same read: the spent list kept the newest 256 clients, so 306 address blocks taking turns found their first
    /// free again before they ran out. It holds 4,096 clients' keys: the first of 300 is still spent.
    @Test func threeHundredSpentClientsAreAllRemembered() {
        let health = halfOpened()
        let clients = (0..<300).map { Self.client(1_000 + $0, address: "10.\($0 / 256).\($0 % 256).1") }
        for client in clients {
            #expect(health.admit(.mobile, for: .mobile, reservedBy: client, at: clock.now()) == .probe)
            health.record(.mobile, for: .mobile, action: .cancelled, reportedBy: client, at: clock.now())
        }
        #expect(health.admit(.mobile, for: .mobile, reservedBy: clients[0], at: clock.now()) == .rejected)
    }

    /// An attacker's read: a device id is the app's claim. A stranger who claims the owner's device id, starts a
    /// probe and abandons it must not spend the owner, whose app session, identity and address are its own.
    @Test func aStrangerClaimingADeviceIDDoesNotSpendItsOwner() {
        let health = halfOpened()
        let device = try! DeviceID("owners-phone")
        let stranger = ChannelClient(appSession: try! AppSessionID("HealthTestsSession9001"), identity: nil, address: try! IPAddress("2001:db8:1::1"), device: device)
        let owner = ChannelClient(appSession: try! AppSessionID("HealthTestsSession9002"), identity: nil, address: try! IPAddress("2001:db9:1::1"), device: device)
        #expect(health.admit(.mobile, for: .mobile, reservedBy: stranger, at: clock.now()) == .probe)
        clock.advance(by: .seconds(21))   // the stranger's probe ran out unreported
        #expect(health.admit(.mobile, for: .mobile, reservedBy: owner, at: clock.now()) == .probe)
        #expect(health.admit(.mobile, for: .mobile, reservedBy: stranger, at: clock.now()) == .rejected)
    }

    /// Clients in one IPv6 /48 (a site's block: 256 /56s) are one client, as the login quotas count them: twenty
    /// guests from twenty /56s of one /48 reporting failures hold one place in the window and cannot open the
    /// circuit for everyone.
    @Test func clientsOfOneSlash48CountOnce() {
        let health = health()
        for index in 1...20 {
            health.record(.mobile, for: .mobile, action: .fallback, reportedBy: Self.client(index, address: "2001:db8:0:\(String(index * 256, radix: 16))::1"), at: clock.now())
        }
        #expect(health.state(of: .mobile, for: .mobile, at: clock.now()) == .closed)
        #expect(Self.client(1, address: "2001:db8:0:100::1").overlapsBeyondTheDevice(Self.client(2, address: "2001:db8:0:ff00::1")))
        #expect(!Self.client(1, address: "2001:db8:0:100::1").overlapsBeyondTheDevice(Self.client(2, address: "2001:db8:1:100::1")))
    }

    /// What a server's transition says goes by source: the server's own observation in full, the
    /// client's word once per client.
    @Test func applyWeighsEachReportBySource() {
        let health = health()
        let channel = OneTapCore.Channel(carrier: .mobile, flow: .mobile)
        let client = Self.client(1, address: "203.0.113.7")
        for _ in 0..<4 { health.apply([.ended(channel, .fallback, .client)], reportedBy: client, at: clock.now()) }
        #expect(health.state(of: .mobile, for: .mobile, at: clock.now()) == .closed)
        for _ in 0..<3 { health.apply([.ended(channel, .failed, .server)], reportedBy: client, at: clock.now()) }
        #expect(health.state(of: .mobile, for: .mobile, at: clock.now()) == .closed, "three seen and one word: the word completes nothing")
        health.apply([.ended(channel, .failed, .server)], reportedBy: client, at: clock.now())
        #expect(health.state(of: .mobile, for: .mobile, at: clock.now()) == .open(until: clock.now().addingTimeInterval(60)))
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
