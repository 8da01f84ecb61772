import OneTapCore
import OneTapSupport

/// A what-if replay of a routing policy over recorded logins: for each carrier, what the new policy
/// would have tried first, and the one-tap share, SMS share, SMS and one-tap cost and time to login it
/// would have had, beside what the recorded logins had. **An estimate**, with 95 % intervals from the
/// sample sizes.
///
/// The model. Logins whose situation the new policy plans the same flows for keep their recorded
/// outcome. For the others, each flow of the new plan is taken from the recorded logins of the same
/// carrier in the same situation that reached that flow (``LoginObservations/Stage``): the share that
/// succeeded there, backed out, failed, went silent, moved to the next flow, or switched to SMS, and how
/// long each took. The new plan's flows are chained in order: success at its *k*-th flow is reached
/// through the *k* − 1 before it, each flow's time adding up (flows taken as independent). A flow the
/// new plan can reach but no recorded login of that carrier and situation ever reached is **unknown**,
/// and so is the carrier's estimate: it is not guessed.
///
/// Intervals (95 %): a recorded share has its Wilson score interval; an estimated share the Wilson
/// interval at its effective sample size p(1 − p) / Var, the variance by the delta method from the
/// per-flow sample sizes (multinomial) plus the binomial variance of the logins kept as recorded;
/// mean times are ± 1.96 standard errors (delta method for an estimate); costs scale their share's
/// interval. The covariance between a plan kept as recorded and the flows estimated from the same logins
/// is left out. SMS cost counts one message per login that reached the SMS flow; one-tap cost one per
/// one-tap success.
public struct RoutingReplay: Hashable, Sendable {
    /// How many logins a plan's first flow had.
    public struct FirstFlow: Hashable, Sendable {
        /// The flow.
        public let flow: LoginFlow
        /// How many logins.
        public let logins: Int
    }

    /// The outcome of one policy for one carrier's recorded logins.
    public struct Scenario: Hashable, Sendable {
        /// One-tap successes over logins.
        public let oneTapShare: Estimate
        /// SMS successes over logins.
        public let smsShare: Estimate
        /// Logins that reached the SMS flow, over logins.
        public let smsReach: Estimate
        /// SMS messages: one per login that reached the SMS flow.
        public let smsMessages: Estimate
        /// The messages' cost at the SMS price, if one was given.
        public let smsCost: Estimate?
        /// One-tap successes: what the carriers bill.
        public let oneTapSuccesses: Estimate
        /// Their cost at the one-tap price, if one was given.
        public let oneTapCost: Estimate?
        /// The mean time from the start to a success (one-tap or SMS), in milliseconds; nil with no success.
        public let meanTimeToLogin: Estimate?
        /// What the plans tried first, most logins first.
        public let firstFlows: [FirstFlow]
    }

    /// One carrier's replay (or all carriers', with ``carrier`` nil).
    public struct CarrierReplay: Hashable, Sendable {
        /// The carrier, or nil for all carriers together.
        public let carrier: Carrier?
        /// How many recorded logins.
        public let logins: Int
        /// How many of them the new policy plans other flows for.
        public let changed: Int
        /// What the recorded logins had.
        public let current: Scenario
        /// What the new policy would have had; nil when ``unknown`` says why it cannot be estimated.
        public let proposed: Scenario?
        /// Why the new policy's outcome is unknown: a flow it reaches was never observed.
        public let unknown: String?
    }

    /// The carriers, most logins first.
    public let carriers: [CarrierReplay]
    /// All carriers together.
    public let total: CarrierReplay
    /// The price of one SMS message, if given.
    public let smsPrice: Double?
    /// The price of one one-tap success, if given.
    public let oneTapPrice: Double?

    /// Replays a policy over observations.
    /// - Parameters:
    ///   - observations: What the recorded logins say (``LoginStats/observations``).
    ///   - policy: The new routing policy.
    ///   - smsPrice: The price of one SMS message, for the SMS cost.
    ///   - oneTapPrice: The price of one one-tap success, for the one-tap cost.
    /// - Complexity: O(plans × flows × stages); no I/O.
    public init(_ observations: LoginObservations, policy: RoutingPolicy, smsPrice: Double? = nil, oneTapPrice: Double? = nil) {
        self.smsPrice = smsPrice
        self.oneTapPrice = oneTapPrice
        let model = Model(observations)
        var replays: [(CarrierReplay, Totals, Totals?)] = []
        for carrier in Carrier.allCases {
            let plans = observations.plans.filter { $0.carrier == carrier && $0.logins > 0 }
            guard !plans.isEmpty else { continue }
            replays.append(Self.replay(carrier, plans, policy: policy, model: model, smsPrice: smsPrice, oneTapPrice: oneTapPrice))
        }
        replays.sort { $0.0.logins != $1.0.logins ? $0.0.logins > $1.0.logins : false }
        carriers = replays.map(\.0)
        // All carriers: the counts add up; the carriers' estimates are independent (their flows are apart).
        let current = replays.reduce(Totals()) { $0 + $1.1 }
        let unknown = replays.first { $0.0.unknown != nil }.map { "unknown for \($0.0.carrier?.rawValue ?? "a carrier"): \($0.0.unknown!)" }
        let proposed: Totals? = unknown == nil ? replays.reduce(Totals()) { $0 + ($1.2 ?? $1.1) } : nil
        let firsts = { (pick: (CarrierReplay) -> [FirstFlow]) -> [FirstFlow] in
            Self.firstFlows(replays.flatMap { pick($0.0).map { ($0.flow, $0.logins) } })
        }
        total = CarrierReplay(
            carrier: nil, logins: current.logins, changed: replays.reduce(0) { $0 + $1.0.changed },
            current: current.scenario(firstFlows: firsts { $0.current.firstFlows }, smsPrice: smsPrice, oneTapPrice: oneTapPrice, observed: true),
            proposed: proposed?.scenario(firstFlows: firsts { $0.proposed?.firstFlows ?? [] }, smsPrice: smsPrice, oneTapPrice: oneTapPrice, observed: false),
            unknown: unknown)
    }

    // MARK: One carrier

    private static func replay(
        _ carrier: Carrier, _ plans: [LoginObservations.Plan], policy: RoutingPolicy, model: Model, smsPrice: Double?, oneTapPrice: Double?
    ) -> (CarrierReplay, Totals, Totals?) {
        var current = Totals()
        var kept = Totals()
        var moved: [(plan: LoginObservations.Plan, flows: FlowSequence)] = []
        var currentFirst: [(LoginFlow, Int)] = []
        var proposedFirst: [(LoginFlow, Int)] = []
        for plan in plans {
            let observed = Totals(plan)
            current = current + observed
            let flows = policy.rule(for: plan.condition).flows
            currentFirst.append((plan.flows[0], plan.logins))
            proposedFirst.append((flows[0], plan.logins))
            if flows == plan.flows { kept = kept + observed } else { moved.append((plan, flows)) }
        }
        let changed = moved.reduce(0) { $0 + $1.plan.logins }
        let currentScenario = current.scenario(firstFlows: firstFlows(currentFirst), smsPrice: smsPrice, oneTapPrice: oneTapPrice, observed: true)
        if moved.isEmpty {
            let replay = CarrierReplay(carrier: carrier, logins: current.logins, changed: 0, current: currentScenario, proposed: currentScenario, unknown: nil)
            return (replay, current, current)
        }
        // The moved logins, chained through the new flows.
        if let missing = moved.lazy.compactMap({ model.unobserved(carrier, $0.plan.condition, $0.flows) }).first {
            let replay = CarrierReplay(carrier: carrier, logins: current.logins, changed: changed, current: currentScenario, proposed: nil, unknown: missing)
            return (replay, current, nil)
        }
        let estimated = model.estimate(carrier, moved.map { ($0.plan.condition, $0.flows, Double($0.plan.logins)) }, kept: kept)
        let proposed = kept.keptPart(plus: estimated)
        let replay = CarrierReplay(
            carrier: carrier, logins: current.logins, changed: changed, current: currentScenario,
            proposed: proposed.scenario(firstFlows: firstFlows(proposedFirst), smsPrice: smsPrice, oneTapPrice: oneTapPrice, observed: false), unknown: nil)
        return (replay, current, proposed)
    }

    private static func firstFlows(_ pairs: [(LoginFlow, Int)]) -> [FirstFlow] {
        var counts: [LoginFlow: Int] = [:]
        for (flow, logins) in pairs { counts[flow, default: 0] += logins }
        return LoginFlow.allCases.compactMap { flow in counts[flow].map { FirstFlow(flow: flow, logins: $0) } }
            .sorted { $0.logins != $1.logins ? $0.logins > $1.logins : $0.flow.rawValue < $1.flow.rawValue }
    }

    // MARK: Counts and their variances

    /// Expected counts over a carrier's logins and their variances (in counts²).
    struct Totals: Hashable, Sendable {
        var logins = 0
        var oneTap = 0.0, oneTapVariance = 0.0
        var sms = 0.0, smsVariance = 0.0
        var reach = 0.0, reachVariance = 0.0
        /// Successes and the sum of their times, and the variance of the mean time.
        var successes = 0.0
        var timeSum = 0.0
        var timeVariance = 0.0
        /// Whether every count is observed (so an interval is Wilson's on the counts themselves).
        var observed = true

        init() {}

        /// A plan as recorded: binomial variances of its shares, the sample variance of its mean time.
        init(_ plan: LoginObservations.Plan) {
            logins = plan.logins
            let n = Double(plan.logins)
            func binomial(_ count: Int) -> Double { n > 0 ? Double(count) * (1 - Double(count) / n) : 0 }
            oneTap = Double(plan.oneTap)
            oneTapVariance = binomial(plan.oneTap)
            sms = Double(plan.sms)
            smsVariance = binomial(plan.sms)
            reach = Double(plan.reachedSMS)
            reachVariance = binomial(plan.reachedSMS)
            successes = Double(plan.successTimes.count)
            timeSum = plan.successTimes.sum
            timeVariance = plan.successTimes.count > 0 ? plan.successTimes.variance / Double(plan.successTimes.count) : 0
            squares = plan.successTimes.sumOfSquares
        }

        /// The sum of squared success times (to pool the sample variance of plans added together).
        var squares = 0.0

        static func + (left: Totals, right: Totals) -> Totals {
            var sum = Totals()
            sum.logins = left.logins + right.logins
            sum.oneTap = left.oneTap + right.oneTap
            sum.oneTapVariance = left.oneTapVariance + right.oneTapVariance
            sum.sms = left.sms + right.sms
            sum.smsVariance = left.smsVariance + right.smsVariance
            sum.reach = left.reach + right.reach
            sum.reachVariance = left.reachVariance + right.reachVariance
            sum.successes = left.successes + right.successes
            sum.timeSum = left.timeSum + right.timeSum
            sum.squares = left.squares + right.squares
            sum.observed = left.observed && right.observed
            // The mean time of the two together: observed, the pooled sample variance; else weighted.
            if sum.observed {
                let count = sum.successes
                sum.timeVariance = count > 1 ? max(0, (sum.squares - sum.timeSum * sum.timeSum / count) / (count - 1)) / count : 0
            } else if sum.successes > 0 {
                let l = left.successes / sum.successes, r = right.successes / sum.successes
                sum.timeVariance = l * l * left.timeVariance + r * r * right.timeVariance
            }
            return sum
        }

        /// The logins kept as recorded, together with the estimate for the others.
        func keptPart(plus estimate: Totals) -> Totals {
            var sum = self + estimate
            sum.observed = false
            let count = sum.successes
            if count > 0 {
                let keptWeight = successes / count
                sum.timeVariance = keptWeight * keptWeight * timeVariance + estimate.timeVariance
            }
            return sum
        }

        func scenario(firstFlows: [FirstFlow], smsPrice: Double?, oneTapPrice: Double?, observed: Bool) -> Scenario {
            let n = Double(logins)
            func share(_ count: Double, _ variance: Double) -> Estimate {
                guard n > 0 else { return Estimate(value: 0, low: 0, high: 0, method: .exact) }
                if observed && self.observed { return .wilson(Int(count.rounded()), of: logins) }
                return .share(count / n, variance: variance / (n * n), fallback: n)
            }
            let oneTapShare = share(oneTap, oneTapVariance)
            let reachShare = share(reach, reachVariance)
            let messages = reachShare.scaled(by: n)
            let successesEstimate = oneTapShare.scaled(by: n)
            let time: Estimate? = successes > 0 ? .normal(timeSum / successes, variance: timeVariance) : nil
            return Scenario(
                oneTapShare: oneTapShare, smsShare: share(sms, smsVariance), smsReach: reachShare, smsMessages: messages,
                smsCost: smsPrice.map { messages.scaled(by: $0) }, oneTapSuccesses: successesEstimate, oneTapCost: oneTapPrice.map { successesEstimate.scaled(by: $0) },
                meanTimeToLogin: time, firstFlows: firstFlows)
        }
    }

    // MARK: The model

    /// The per-flow shares and times of every observed stage, and the chain of a plan through them.
    struct Model {
        typealias Outcome = LoginObservations.Outcome

        struct Key: Hashable {
            let carrier: Carrier
            let condition: RoutingPolicy.Condition
            let flow: LoginFlow
        }

        /// A stage's parameters: the share leaving each way, the mean time of each way, and their
        /// sample sizes and variances.
        struct Parameters {
            var shares: [Double]
            var times: [Double]
            var total: Double
            var counts: [Double]
            var timeVariances: [Double]
        }

        var parameters: [Key: Parameters] = [:]

        init(_ observations: LoginObservations) {
            for stage in observations.stages where stage.total > 0 {
                let total = Double(stage.total)
                parameters[Key(carrier: stage.carrier, condition: stage.condition, flow: stage.flow)] = Parameters(
                    shares: stage.counts.map { Double($0) / total }, times: stage.times.map(\.mean), total: total, counts: stage.counts.map(Double.init),
                    timeVariances: stage.times.map(\.variance))
            }
        }

        /// Why a plan's chain cannot be estimated: the first flow it can reach that was never observed
        /// for the carrier in the situation; nil when every flow it can reach was.
        func unobserved(_ carrier: Carrier, _ condition: RoutingPolicy.Condition, _ flows: FlowSequence) -> String? {
            func never(_ flow: LoginFlow) -> String {
                "no recorded \(carrier) login in situation \(condition) ever reached the \(flow) flow"
            }
            var reach = 1.0
            var toSMS = false
            for flow in flows where flow != .sms && reach > 0 {
                guard let stage = parameters[Key(carrier: carrier, condition: condition, flow: flow)] else { return never(flow) }
                if stage.shares[Outcome.switched.rawValue] > 0 { toSMS = true }
                reach *= stage.shares[Outcome.next.rawValue]
            }
            if reach > 0 || toSMS, parameters[Key(carrier: carrier, condition: condition, flow: .sms)] == nil { return never(.sms) }
            return nil
        }

        /// What the chain of plans yields: expected counts of one-tap and SMS successes, of logins
        /// reaching SMS, successes and the sum of their times.
        struct Yield {
            var oneTap = 0.0, sms = 0.0, reach = 0.0, successes = 0.0, time = 0.0
        }

        func chain(_ carrier: Carrier, _ condition: RoutingPolicy.Condition, _ flows: FlowSequence, _ logins: Double, _ parameters: [Key: Parameters]) -> Yield {
            var yield = Yield()
            var reach = 1.0
            var elapsed = 0.0  // E[time so far · 1{reached}]
            var smsReach = 0.0, smsElapsed = 0.0
            for flow in flows where flow != .sms {
                guard let stage = parameters[Key(carrier: carrier, condition: condition, flow: flow)] else { continue }
                let shares = stage.shares, times = stage.times
                let success = shares[Outcome.success.rawValue], next = shares[Outcome.next.rawValue], switched = shares[Outcome.switched.rawValue]
                yield.oneTap += reach * success
                yield.time += success * (elapsed + reach * times[Outcome.success.rawValue])
                smsReach += reach * switched
                smsElapsed += switched * (elapsed + reach * times[Outcome.switched.rawValue])
                elapsed = next * (elapsed + reach * times[Outcome.next.rawValue])
                reach *= next
            }
            smsReach += reach
            smsElapsed += elapsed
            if let stage = parameters[Key(carrier: carrier, condition: condition, flow: .sms)] {
                let success = stage.shares[Outcome.success.rawValue]
                yield.sms = smsReach * success
                yield.time += success * (smsElapsed + smsReach * stage.times[Outcome.success.rawValue])
            }
            yield.reach = smsReach
            yield.successes = yield.oneTap + yield.sms
            yield.oneTap *= logins
            yield.sms *= logins
            yield.reach *= logins
            yield.successes *= logins
            yield.time *= logins
            return yield
        }

        func total(_ carrier: Carrier, _ plans: [(RoutingPolicy.Condition, FlowSequence, Double)], _ parameters: [Key: Parameters]) -> Yield {
            plans.reduce(into: Yield()) { sum, plan in
                let part = chain(carrier, plan.0, plan.1, plan.2, parameters)
                sum.oneTap += part.oneTap
                sum.sms += part.sms
                sum.reach += part.reach
                sum.successes += part.successes
                sum.time += part.time
            }
        }

        /// The moved plans' expected counts with their delta-method variances. The shares' derivatives
        /// are exact by central differences: a chain is linear in each of its stages' shares.
        func estimate(_ carrier: Carrier, _ plans: [(RoutingPolicy.Condition, FlowSequence, Double)], kept: Totals) -> Totals {
            let base = total(carrier, plans, parameters)
            var totals = Totals()
            totals.observed = false
            totals.logins = Int(plans.reduce(0) { $0 + $1.2 })
            totals.oneTap = base.oneTap
            totals.sms = base.sms
            totals.reach = base.reach
            totals.successes = base.successes
            totals.timeSum = base.time
            // The mean time of all successes (kept and moved) depends on the moved part through this ratio.
            let keptSuccesses = kept.successes, keptTime = kept.timeSum
            func meanTime(_ yield: Yield) -> Double {
                let count = keptSuccesses + yield.successes
                return count > 0 ? (keptTime + yield.time) / count : 0
            }
            var meanTimeVariance = 0.0
            let used = Set(plans.flatMap { plan in plan.1.map { Key(carrier: carrier, condition: plan.0, flow: $0) } })
            let step = 1e-4
            for key in used {
                guard let stage = parameters[key] else { continue }
                var gradients: [[Double]] = Array(repeating: Array(repeating: 0, count: Outcome.allCases.count), count: 4)  // one-tap, sms, reach, time
                for outcome in Outcome.allCases {
                    var up = parameters, down = parameters
                    up[key]!.shares[outcome.rawValue] += step
                    down[key]!.shares[outcome.rawValue] -= step
                    let high = total(carrier, plans, up), low = total(carrier, plans, down)
                    gradients[0][outcome.rawValue] = (high.oneTap - low.oneTap) / (2 * step)
                    gradients[1][outcome.rawValue] = (high.sms - low.sms) / (2 * step)
                    gradients[2][outcome.rawValue] = (high.reach - low.reach) / (2 * step)
                    gradients[3][outcome.rawValue] = (meanTime(high) - meanTime(low)) / (2 * step)
                    // The mean times: their own sampling variance, through the same ratio.
                    let timeStep = max(1, stage.times[outcome.rawValue] * 1e-3)
                    var later = parameters, earlier = parameters
                    later[key]!.times[outcome.rawValue] += timeStep
                    earlier[key]!.times[outcome.rawValue] -= timeStep
                    let slope = (meanTime(total(carrier, plans, later)) - meanTime(total(carrier, plans, earlier))) / (2 * timeStep)
                    let count = stage.counts[outcome.rawValue]
                    if count > 0 { meanTimeVariance += slope * slope * stage.timeVariances[outcome.rawValue] / count }
                }
                // Multinomial: Var(Σ g·p̂) = (Σ g² p − (Σ g p)²) / n.
                func variance(_ gradient: [Double]) -> Double {
                    var squares = 0.0, mean = 0.0
                    for outcome in Outcome.allCases {
                        let share = stage.shares[outcome.rawValue]
                        squares += gradient[outcome.rawValue] * gradient[outcome.rawValue] * share
                        mean += gradient[outcome.rawValue] * share
                    }
                    return max(0, squares - mean * mean) / stage.total
                }
                totals.oneTapVariance += variance(gradients[0])
                totals.smsVariance += variance(gradients[1])
                totals.reachVariance += variance(gradients[2])
                meanTimeVariance += variance(gradients[3])
            }
            totals.timeVariance = meanTimeVariance
            totals.squares = 0
            return totals
        }
    }
}
