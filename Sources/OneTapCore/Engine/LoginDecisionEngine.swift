/// The heart of OneTap: decides which login flow to try first and what comes after it, and what a
/// flow's result code means for the login.
///
/// Everything here is pure: values in, values out, no I/O and no clock. An engine is an immutable
/// `Sendable` value; share one across every request of a server. The built-in tables come from
/// `Data/`; pass replacement ones to ``init(policy:tables:maxAttemptsPerFlow:)``, e.g.
/// `LoginDecisionEngine(policy: try RoutingPolicy(contentsOf: path), tables: try DecisionTables(directory: dir))`.
///
/// ```swift
/// let engine = LoginDecisionEngine()
/// let plan = engine.plan(for: DeviceSnapshot(sim: .present, plmn: try PLMN("46000")))
/// // plan.flows == [.mobile, .sms], plan.reason == .policy
/// let decision = engine.next(after: .mobile, code: 200020, in: plan)
/// // decision.step == .finish(.cancelled)
/// ```
public struct LoginDecisionEngine: Sendable {
    /// Which flows to try in each situation.
    package let policy: RoutingPolicy
    /// PLMN → carrier.
    package let plmnTable: PLMNTable
    /// Number segment → carrier.
    package let segmentTable: NumberSegmentTable
    /// IPv6 prefix → carrier.
    package let ipv6Table: IPv6PrefixTable
    /// (flow, code) → action.
    package let outcomeTable: OutcomeTable
    /// How many times one flow may run in one login: a `retry` code re-runs it until this many attempts
    /// were made, then counts as `fallback`. The default, 2, is one retry.
    package let maxAttemptsPerFlow: Int

    /// Creates an engine.
    /// - Parameters:
    ///   - policy: The routing policy; the built-in one by default.
    ///   - tables: The PLMN, number-segment, IPv6 and result-code tables; the built-in ones by default.
    ///   - maxAttemptsPerFlow: Attempts of one flow per login, at least 1; 2 by default (one retry).
    public init(policy: RoutingPolicy = .builtIn, tables: DecisionTables = DecisionTables(), maxAttemptsPerFlow: Int = 2) {
        self.policy = policy
        self.plmnTable = tables.plmn
        self.segmentTable = tables.segments
        self.ipv6Table = tables.ipv6
        self.outcomeTable = tables.outcomes
        self.maxAttemptsPerFlow = max(1, maxAttemptsPerFlow)
    }

    /// Weighs the carrier evidence of a snapshot (PLMN, then IPv6 over cellular, then phone number).
    /// - Parameter snapshot: What the device reported.
    /// - Returns: The carrier and the evidence that named it.
    /// - Complexity: O(1); no allocation.
    package func evidence(for snapshot: DeviceSnapshot) -> CarrierEvidence {
        CarrierEvidence(weighing: snapshot, plmnTable: plmnTable, ipv6Table: ipv6Table, segmentTable: segmentTable)
    }

    /// Decides which flows a device should try, in order.
    ///
    /// The device gates come first: no SIM, SIM not ready, no network, mobile data off, cellular access
    /// restricted each go straight to the policy's row for them (SMS by default). Unreported fields do
    /// not block: unreported mobile data counts as on, an unreported permission as allowed. Wi-Fi with
    /// mobile data on is fine for one-tap. Then a virtual operator's number, then the carrier's row.
    /// - Parameter snapshot: What the device reported.
    /// - Returns: The plan, with its carrier, evidence, flows and reason.
    /// - Complexity: O(1); no allocation.
    public func plan(for snapshot: DeviceSnapshot) -> LoginPlan {
        let evidence = self.evidence(for: snapshot)
        let condition: RoutingPolicy.Condition
        switch snapshot {
        case _ where snapshot.sim == .absent: condition = .simAbsent
        case _ where snapshot.sim == .notReady: condition = .simNotReady
        case _ where snapshot.network == DeviceSnapshot.Network.none: condition = .noNetwork
        case _ where snapshot.mobileData == false: condition = .mobileDataOff
        case _ where snapshot.cellularAccess == .restricted: condition = .cellularRestricted
        case _ where evidence.isVirtualOperator: condition = .virtualOperator
        default: condition = .carrier(evidence.carrier)
        }
        let (flows, reason) = policy.decision(for: condition)
        return LoginPlan(
            carrier: snapshot.sim == .absent ? .unknown : evidence.carrier,
            evidence: snapshot.sim == .absent ? .none : evidence.source,
            flows: flows, reason: reason, condition: condition)
    }

    /// What a result code means.
    /// - Parameters:
    ///   - flow: The flow that returned it.
    ///   - code: The code.
    /// - Returns: The outcome (action, meaning, source).
    package func outcome(for flow: LoginFlow, code: ResultCode) -> Outcome {
        outcomeTable.outcome(for: flow, code: code)
    }

    /// Decides what happens after a flow returned a code.
    ///
    /// `success`, `cancelled` and `failed` end the login. `retry` runs the same flow again until
    /// ``maxAttemptsPerFlow`` attempts were made, then counts as `fallback`. `fallback` and
    /// `misconfigured` move to the plan's next flow (``Decision/alert`` is set for `misconfigured`);
    /// `switch` goes to SMS. With no flow left the login fails. `progress` keeps waiting for the same
    /// attempt.
    /// - Parameters:
    ///   - flow: The flow that returned the code.
    ///   - code: The code.
    ///   - plan: The plan being run.
    ///   - attempt: Which attempt of `flow` this was, from 1.
    /// - Returns: The decision, with the outcome that led to it.
    public func next(after flow: LoginFlow, code: ResultCode, in plan: LoginPlan, attempt: Int = 1) -> Decision {
        let outcome = outcomeTable.outcome(for: flow, code: code)
        return decide(outcome, after: flow, in: plan.flows, attempt: attempt)
    }

    /// The decision for an outcome, when the caller already classified the code.
    package func decide(_ outcome: Outcome, after flow: LoginFlow, in flows: FlowSequence, attempt: Int) -> Decision {
        let (step, note) = step(for: outcome.action, after: flow, in: flows, attempt: attempt)
        return Decision(step: step, outcome: outcome, note: note)
    }

    /// What an action leads to after a flow: the rules of ``next(after:code:in:attempt:)`` without a code,
    /// for results that have none (a timeout, a provider fault, a skipped flow).
    /// - Parameters:
    ///   - action: The action.
    ///   - flow: The flow that produced it.
    ///   - flows: The plan's flows.
    ///   - attempt: Which attempt of `flow` it was, from 1.
    /// - Returns: The next step and why.
    package func step(for action: OutcomeAction, after flow: LoginFlow, in flows: FlowSequence, attempt: Int) -> (Decision.Step, Decision.Note) {
        func moveOn(_ note: Decision.Note) -> (Decision.Step, Decision.Note) {
            let position = flows.firstIndex(of: flow)
            let nextFlow: LoginFlow? =
                if let position { position + 1 < flows.count ? flows[position + 1] : nil }
                else { flow == .sms ? nil : flows.last }
            guard let nextFlow else { return (.finish(.failed), .planExhausted) }
            return (.attempt(nextFlow), note)
        }
        switch action {
        case .success:
            return (.finish(.success), .asClassified)
        case .cancelled:
            return (.finish(.cancelled), .asClassified)
        case .failed:
            return (.finish(.failed), .asClassified)
        case .retry:
            return attempt < maxAttemptsPerFlow ? (.retry(flow), .asClassified) : moveOn(.retriesExhausted)
        case .fallback, .misconfigured:
            return moveOn(.asClassified)
        case .switch:
            return flow == .sms ? (.finish(.failed), .planExhausted) : (.attempt(.sms), .asClassified)
        case .progress:
            return (.wait(flow), .asClassified)
        }
    }
}
