/// The engine's answer to "how should this device log in?": the carrier it resolved, the flows to try in
/// order (always ending with SMS), and why.
public struct LoginPlan: Hashable, Sendable, CustomStringConvertible {
    /// The carrier the evidence named (``Carrier/unknown`` when nothing did).
    public let carrier: Carrier
    /// Which evidence named the carrier.
    public let evidence: EvidenceSource
    /// The flows to try, in order; the last is `sms`.
    public let flows: FlowSequence
    /// Why these flows.
    public let reason: RoutingReason
    /// The policy condition that chose the flows.
    package let condition: RoutingPolicy.Condition

    /// Creates a plan.
    /// - Parameters:
    ///   - carrier: The resolved carrier.
    ///   - evidence: What named it.
    ///   - flows: The flows in order, ending with `sms`.
    ///   - reason: Why these flows.
    ///   - condition: The policy condition that chose them.
    package init(carrier: Carrier, evidence: EvidenceSource, flows: FlowSequence, reason: RoutingReason, condition: RoutingPolicy.Condition) {
        self.carrier = carrier
        self.evidence = evidence
        self.flows = flows
        self.reason = reason
        self.condition = condition
    }

    /// `mobile → sms (policy; carrier mobile from plmn)`.
    public var description: String {
        "\(flows) (\(reason); carrier \(carrier) from \(evidence))"
    }
}
