/// The engine's answer to "how should this device log in?": the carrier it resolved, the flows to try in
/// order (always ending with SMS), and why.
public struct LoginPlan: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The carrier the evidence named (``Carrier/unknown`` when nothing did).
    public let carrier: Carrier
    /// Which evidence named the carrier.
    public let evidence: EvidenceSource
    /// The flows to try, in order; the last is `sms`.
    public let flows: FlowSequence
    /// Why these flows.
    public let reason: RoutingReason
    /// The policy condition that chose the flows.
    public let condition: RoutingPolicy.Condition

    /// Creates a plan.
    /// - Parameters:
    ///   - carrier: The resolved carrier.
    ///   - evidence: What named it.
    ///   - flows: The flows in order, ending with `sms`.
    ///   - reason: Why these flows.
    ///   - condition: The policy condition that chose them.
    public init(carrier: Carrier, evidence: EvidenceSource, flows: FlowSequence, reason: RoutingReason, condition: RoutingPolicy.Condition) {
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

    private enum CodingKeys: String, CodingKey { case carrier, evidence, flows, reason, condition }

    /// Encodes `carrier`, `evidence`, `flows` (array of ids), `reason` and `condition`.
    /// - Parameter encoder: The encoder.
    /// - Throws: What the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(carrier, forKey: .carrier)
        try container.encode(evidence, forKey: .evidence)
        try container.encode(flows, forKey: .flows)
        try container.encode(reason, forKey: .reason)
        try container.encode(condition.description, forKey: .condition)
    }

    /// Decodes what ``encode(to:)`` writes.
    /// - Parameter decoder: The decoder.
    /// - Throws: `DecodingError` for unknown ids.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        carrier = try container.decode(Carrier.self, forKey: .carrier)
        evidence = try container.decode(EvidenceSource.self, forKey: .evidence)
        flows = try container.decode(FlowSequence.self, forKey: .flows)
        reason = try container.decode(RoutingReason.self, forKey: .reason)
        let text = try container.decode(String.self, forKey: .condition)
        guard let condition = RoutingPolicy.Condition.named(text) else {
            throw DecodingError.dataCorruptedError(forKey: .condition, in: container, debugDescription: RoutingPolicy.Condition.unknown(text))
        }
        self.condition = condition
    }
}
