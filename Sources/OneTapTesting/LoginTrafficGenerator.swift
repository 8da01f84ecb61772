#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import OneTap
import OneTapSupport

/// Realistic login traffic, the same for the same seed: logins arriving at random, each run through
/// the real ``LoginSessionMachine`` (exchanges on) with answers drawn per carrier and flow, and every
/// event they emit, in time order. What the committed sample `Tests/Samples/login-events.ndjson`, the
/// `onetap stats` and `onetap replay` tests and the stats benchmark are made of.
///
/// The mix: Android 62 %, iOS 33 %, HarmonyOS 5 %; China Mobile 56 %, Telecom 20 %, Unicom 18 %, no
/// PLMN 2 % (carrier unknown), Broadnet 1 %, a foreign SIM 0.5 %; 3 % with mobile data off, 1 % without
/// a SIM, 1 % with cellular data restricted. Unicom SIMs run an A/B experiment: 15 % are planned by
/// ``experimentPolicy`` (`unicom sms`) instead of the built-in `tianyi sms`, so the data observes the
/// Unicom flow on Unicom SIMs. One-tap answers take about 2 s (log-normal), SMS logins about 28 s,
/// timeouts 8 s; a few logins misconfigure (an alert), and a few are left unfinished.
package struct LoginTrafficGenerator: Sendable {
    /// The seed.
    package let seed: UInt64
    /// When the first login may arrive.
    package let start: Date
    /// The mean time between two logins' arrivals, in seconds.
    package let meanSecondsBetweenLogins: Double
    /// The share of Unicom SIMs (in their carrier's own situation) planned by ``experimentPolicy``.
    package let unicomExperimentShare: Double

    /// The policy the experiment's Unicom SIMs are planned by: the built-in one, with `carrier:unicom`
    /// routed `unicom sms`.
    package static let experimentPolicy: RoutingPolicy = {
        do {
            return try RoutingPolicy(csv: experimentPolicyText, file: "experiment-policy.csv")
        } catch {
            fatalError("the experiment policy is invalid: \(error)")
        }
    }()

    /// The experiment policy's CSV text.
    package static var experimentPolicyText: String {
        let builtIn = EmbeddedTable.named(RoutingPolicy.fileName)!.text
        return builtIn.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasPrefix("carrier:unicom,") ? "carrier:unicom,unicom sms,policy,the A/B experiment: Unicom SIMs try China Unicom's own one-tap first" : String(line)
        }.joined(separator: "\n")
    }

    /// Creates a generator.
    /// - Parameters:
    ///   - seed: The seed; the same seed makes the same traffic.
    ///   - start: When the first login may arrive; 2026-12-01T08:00:00Z by default.
    ///   - meanSecondsBetweenLogins: The mean gap between arrivals (exponential); 2 s by default.
    ///   - unicomExperimentShare: The share of Unicom SIMs planned by the experiment policy; 15 % by
    ///     default (1 plans them all so, 0 none).
    package init(
        seed: UInt64 = 15, start: Date = Date(timeIntervalSince1970: 1_796_112_000), meanSecondsBetweenLogins: Double = 2, unicomExperimentShare: Double = 0.15
    ) {
        self.seed = seed
        self.start = start
        self.meanSecondsBetweenLogins = max(0.001, meanSecondsBetweenLogins)
        self.unicomExperimentShare = min(1, max(0, unicomExperimentShare))
    }

    /// Every event of `count` logins, in time order (events at the same instant in the order emitted).
    /// - Parameter count: How many logins.
    /// - Returns: The events.
    /// - Complexity: O(*n* log *n*) in the events.
    package func events(logins count: Int) -> [OneTapEvent] {
        var random = SplitMix64(seed: seed)
        let builtIn = LoginSessionMachine()
        let experiment = LoginSessionMachine(engine: LoginDecisionEngine(policy: Self.experimentPolicy))
        var all: [(at: Date, order: Int, event: OneTapEvent)] = []
        var arrival = start
        for login in 0..<max(0, count) {
            arrival = arrival.addingTimeInterval(milliseconds(random.exponential(mean: meanSecondsBetweenLogins)))
            let snapshot = Self.snapshot(&random)
            let id = LoginSessionID.random(using: &random)
            let plan = builtIn.engine.plan(for: snapshot)
            let machine = plan.carrier == .unicom && plan.condition == .carrier(.unicom) && random.chance(probability: unicomExperimentShare) ? experiment : builtIn
            var now = arrival
            var driver = LoginDriver(machine, starting: snapshot, at: now, id: id)
            func record(_ transition: LoginTransition, at now: Date) {
                for event in transition.events { all.append((now, all.count, OneTapEvent(at: now, .login(event, transition.context)))) }
            }
            record(driver.transition, at: now)
            let number = PhoneNumber(unchecked: 13_800_000_000 + random.next() % 100_000_000)
            var steps = 0
            // A few logins are left open: the app went away without a word.
            let abandonAt = random.chance(probability: 0.006) ? Int(random.next() % 3) : Int.max
            driver.run { request -> (report: LoginReport, at: Date)? in
                guard steps < 12, steps < abandonAt else { return nil }
                steps += 1
                let (report, seconds) = Self.answer(request, carrier: plan.carrier, machine: machine, number: number, login: login, step: steps, &random)
                now = now.addingTimeInterval(milliseconds(seconds))
                return (report, now)
            } applied: { transition, at in
                record(transition, at: at)
            }
        }
        all.sort { $0.at != $1.at ? $0.at < $1.at : $0.order < $1.order }
        return all.map(\.event)
    }

    /// The events of `count` logins as NDJSON, one event per line (each ending with a line break).
    /// - Parameter count: How many logins.
    /// - Returns: The text.
    package func ndjson(logins count: Int) -> String {
        events(logins: count).map(StandardErrorEventSink.line).joined()
    }

    /// Seconds rounded to whole milliseconds (what the events can tell apart).
    private func milliseconds(_ seconds: Double) -> Double { (seconds * 1000).rounded() / 1000 }

    // MARK: Devices

    private static func snapshot(_ random: inout SplitMix64) -> DeviceSnapshot {
        let platform: Platform = random.pick(weighted: [(0.62, .android), (0.33, .ios), (0.05, .harmonyOS)])
        var snapshot = DeviceSnapshot(sim: .present, mobileData: true, network: random.pick(weighted: [(0.55, .both), (0.25, .wifi), (0.2, .cellular)]), platform: platform)
        let plmn: String? = random.pick(weighted: [(0.56, "46000"), (0.2, "46011"), (0.18, "46001"), (0.01, "46015"), (0.005, "45400"), (0.045, nil as String?)])
        snapshot.plmn = plmn.flatMap { try? PLMN($0) }
        if snapshot.plmn == nil {
            // No PLMN reported (an iOS 16+ placeholder): a phone hint, or nothing at all.
            if random.chance(probability: 0.5) { snapshot.phoneHint = PhoneNumber(unchecked: 13_900_000_000 + random.next() % 100_000_000) }
        }
        switch random.uniform() {
        case ..<0.03: snapshot.mobileData = false
        case ..<0.04: snapshot = DeviceSnapshot(sim: .absent, network: .wifi, platform: platform)
        case ..<0.05 where platform == .ios: snapshot.cellularAccess = .restricted
        default: break
        }
        return snapshot
    }

    // MARK: Answers

    /// What one attempt of a one-tap flow answered, and how long it took.
    private enum Answer {
        case success
        case code(ResultCode)
        case timeout
        case fault
        case switched

        var isTimeout: Bool {
            if case .timeout = self { return true }
            return false
        }
    }

    /// The behaviour of a one-tap flow for a carrier: (probability, answer, median seconds).
    private static func behaviour(_ flow: LoginFlow, _ carrier: Carrier) -> [(Double, Answer, Double)] {
        switch (flow, carrier) {
        case (.mobile, .mobile):
            [(0.84, .success, 2.2), (0.05, .code("200020"), 4), (0.02, .code("200060"), 3), (0.025, .code("200023"), 3), (0.02, .code("102103"), 0.5),
             (0.015, .code("103111"), 0.9), (0.015, .timeout, 8), (0.005, .code("103101"), 0.4), (0.01, .fault, 0.3)]
        case (.mobile, _):
            [(0.55, .success, 2.6), (0.25, .code("103111"), 0.9), (0.1, .timeout, 8), (0.06, .code("200020"), 4), (0.04, .code("200060"), 3)]
        case (.tianyi, .telecom):
            [(0.78, .success, 2.4), (0.07, .code("-8200"), 4), (0.03, .code("80201"), 3), (0.03, .code("80000"), 3), (0.03, .code("-8001"), 0.8),
             (0.02, .code("-8994014"), 1), (0.025, .timeout, 8), (0.005, .code("-10002"), 0.4), (0.01, .fault, 0.3)]
        case (.tianyi, _):
            [(0.62, .success, 2.9), (0.07, .code("-8200"), 4), (0.03, .code("80201"), 3), (0.04, .code("80000"), 3), (0.08, .code("-8001"), 0.8),
             (0.06, .code("-8994014"), 1), (0.09, .timeout, 8), (0.01, .code("-10002"), 0.4)]
        case (.unicom, _):
            [(0.8, .success, 2.1), (0.07, .code("101007"), 4), (0.02, .switched, 3), (0.03, .code("101005"), 3), (0.04, .code("102001"), 0.7),
             (0.01, .code("201001"), 0.5), (0.02, .timeout, 8), (0.01, .code("101003"), 0.4)]
        case (.sms, _):
            [(1, .fault, 1)]  // not reached: SMS has its own instruction
        }
    }

    private static func answer(
        _ request: LoginDriver.Request, carrier: Carrier, machine: LoginSessionMachine, number: PhoneNumber, login: Int, step: Int,
        _ random: inout SplitMix64
    ) -> (LoginReport, Double) {
        switch request {
        case .run(let flow, _):
            if flow == .mobile, random.chance(probability: 0.3), step == 1 {
                return (.result(.mobile, code: "200087"), random.logNormal(median: 0.6, sigma: 0.3))  // the page is shown
            }
            let (answer, median): (Answer, Double) = random.pick(weighted: behaviour(flow, carrier).map { ($0.0, ($0.1, $0.2)) })
            let seconds = answer.isTimeout ? 8 : random.logNormal(median: median, sigma: 0.45)
            switch answer {
            case .success:
                guard let code = machine.engine.outcomeTable.successCode(for: flow) else {
                    return (.fault(flow, "the result-code table lists no success code for \(flow)"), seconds)
                }
                let token = Secret("T-\(login)-\(step)")
                let credential = CarrierCredential(flow: flow, token: token, uniqueID: flow == .mobile ? "u-\(login)" : nil)
                return (.result(flow, code: code, credential: credential), seconds)
            case .code(let code): return (.result(flow, code: code), seconds)
            case .timeout: return (.timeout(flow), seconds)
            case .fault: return (.fault(flow, "the SDK returned no result"), seconds)
            case .switched: return (.switchToSMS(flow), seconds)
            }
        case .exchange(let credential, _):
            let seconds = random.logNormal(median: 0.25, sigma: 0.4)
            let flow = credential.flow
            let success: ExchangeAnswer = (machine.exchanges ?? .builtIn).successCode(for: flow).map { .answered($0, phoneNumber: number) }
                ?? .fault("the exchange-code table lists no success code for \(flow)")
            let answer: ExchangeAnswer = random.pick(weighted: [
                (0.985, success),
                (0.004, .timeout),
                (0.005, .answered(flow == .mobile ? "104201" : flow == .tianyi ? "51005" : "9", phoneNumber: nil)),
                (0.004, .answered(flow == .mobile ? "103511" : flow == .tianyi ? "51208" : "9", phoneNumber: nil)),
                (0.002, .fault("connection reset")),
            ])
            return (.exchange(ExchangeOutcome(answer, for: credential)), seconds)
        case .sms(let session):
            switch random.uniform() {
            case ..<0.82: return (.smsVerified(SMSVerdict(phoneNumber: number, session: session, verifiedAt: Date(timeIntervalSince1970: 0))), random.logNormal(median: 28, sigma: 0.4))
            case ..<0.96: return (.cancel(.sms), random.logNormal(median: 12, sigma: 0.6))
            case ..<0.98: return (.cancel(.sms, reason: .noPhoneNumber), random.logNormal(median: 6, sigma: 0.5))
            default: return (.timeout(.sms), 60)
            }
        }
    }
}
