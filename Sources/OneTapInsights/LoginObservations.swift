import OneTapCore
import OneTapSupport

/// What recorded logins say about each flow and each plan: the counts a what-if replay of a routing
/// policy is estimated from (``RoutingReplay``). Made by ``LoginStats/observations``.
///
/// A *stage* is one flow of one login, from its first attempt to the moment the login left it (retries
/// included), for logins of one carrier in one routing situation (``RoutingPolicy/Condition``: the same
/// carrier with mobile data off is another situation). A *plan* is the logins of one carrier and
/// situation that followed the same flows.
public struct LoginObservations: Hashable, Sendable {
    /// How a login left a flow.
    public enum Outcome: Int, Hashable, Sendable, CaseIterable, CustomStringConvertible {
        /// The login succeeded at this flow.
        case success
        /// The user backed out at this flow.
        case cancelled
        /// The login failed at this flow.
        case failed
        /// The stream ended, or the login went silent, while at this flow.
        case unfinished
        /// The login moved to the plan's next flow (a fallback).
        case next
        /// The login moved straight to SMS (the user switched, or the flow's action was `switch`).
        case switched

        /// The id, e.g. `"switched"`.
        public var description: String {
            switch self {
            case .success: "success"
            case .cancelled: "cancelled"
            case .failed: "failed"
            case .unfinished: "unfinished"
            case .next: "next"
            case .switched: "switched"
            }
        }
    }

    /// Durations in milliseconds: how many, their sum and sum of squares.
    public struct Times: Hashable, Sendable {
        /// How many durations.
        public var count = 0
        /// Their sum.
        public var sum = 0.0
        /// The sum of their squares.
        public var sumOfSquares = 0.0

        /// No durations.
        public init() {}

        /// Counts a duration.
        /// - Parameter milliseconds: The duration.
        public mutating func add(_ milliseconds: Double) {
            count += 1
            sum += milliseconds
            sumOfSquares += milliseconds * milliseconds
        }

        /// Adds other durations.
        /// - Parameter other: The others.
        public mutating func merge(_ other: Times) {
            count += other.count
            sum += other.sum
            sumOfSquares += other.sumOfSquares
        }

        /// The mean, or 0 with no durations.
        public var mean: Double { count > 0 ? sum / Double(count) : 0 }

        /// The sample variance (n − 1), or 0 with fewer than two durations.
        public var variance: Double {
            guard count > 1 else { return 0 }
            return max(0, (sumOfSquares - sum * sum / Double(count)) / Double(count - 1))
        }
    }

    /// One flow for one carrier in one situation.
    public struct Stage: Hashable, Sendable {
        /// The carrier.
        public let carrier: Carrier
        /// The situation.
        public let condition: RoutingPolicy.Condition
        /// The flow.
        public let flow: LoginFlow
        /// How many logins left the flow each way, by ``Outcome/rawValue``.
        public var counts: [Int]
        /// How long the flow took, by the way it was left.
        public var times: [Times]

        /// An empty stage.
        /// - Parameters:
        ///   - carrier: The carrier.
        ///   - condition: The situation.
        ///   - flow: The flow.
        public init(carrier: Carrier, condition: RoutingPolicy.Condition, flow: LoginFlow) {
            self.carrier = carrier
            self.condition = condition
            self.flow = flow
            counts = Array(repeating: 0, count: Outcome.allCases.count)
            times = Array(repeating: Times(), count: Outcome.allCases.count)
        }

        /// How many logins reached the flow.
        public var total: Int { counts.reduce(0, +) }

        /// How many left it one way.
        /// - Parameter outcome: The way.
        /// - Returns: The count.
        public func count(_ outcome: Outcome) -> Int { counts[outcome.rawValue] }
    }

    /// The logins of one carrier and situation that followed the same flows.
    public struct Plan: Hashable, Sendable {
        /// The carrier.
        public let carrier: Carrier
        /// The situation.
        public let condition: RoutingPolicy.Condition
        /// The flows the logins were planned.
        public let flows: FlowSequence
        /// How many logins.
        public var logins = 0
        /// How many succeeded by one-tap.
        public var oneTap = 0
        /// How many succeeded by SMS.
        public var sms = 0
        /// How many the user cancelled.
        public var cancelled = 0
        /// How many failed.
        public var failed = 0
        /// How many did not end in the stream.
        public var unfinished = 0
        /// How many reached the SMS flow (an SMS page, so a code sent).
        public var reachedSMS = 0
        /// The time from the start to the success, of the logins that succeeded.
        public var successTimes = Times()

        /// An empty plan.
        /// - Parameters:
        ///   - carrier: The carrier.
        ///   - condition: The situation.
        ///   - flows: The flows.
        public init(carrier: Carrier, condition: RoutingPolicy.Condition, flows: FlowSequence) {
            self.carrier = carrier
            self.condition = condition
            self.flows = flows
        }
    }

    /// Every stage observed, by carrier, situation and flow.
    public var stages: [Stage]
    /// Every plan observed.
    public var plans: [Plan]

    /// Creates observations.
    /// - Parameters:
    ///   - stages: The stages.
    ///   - plans: The plans.
    public init(stages: [Stage], plans: [Plan]) {
        self.stages = stages
        self.plans = plans
    }

    /// The stage of a flow for a carrier in a situation, if observed.
    /// - Parameters:
    ///   - carrier: The carrier.
    ///   - condition: The situation.
    ///   - flow: The flow.
    /// - Returns: The stage, or nil when no login reached the flow there.
    public func stage(_ carrier: Carrier, _ condition: RoutingPolicy.Condition, _ flow: LoginFlow) -> Stage? {
        stages.first { $0.carrier == carrier && $0.condition == condition && $0.flow == flow && $0.total > 0 }
    }
}
