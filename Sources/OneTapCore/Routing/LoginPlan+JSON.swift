// A plan's JSON, inside a session's: `{"carrier":…,"evidence":…,"flows":[…],"reason":…,"condition":…}`.

extension LoginPlan: JSONRecord {
    package func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.member("carrier", carrier.rawValue)
            writer.member("evidence", evidence.rawValue)
            writer.member("flows", strings: flows.lazy.map { $0.rawValue })
            writer.member("reason", reason.rawValue)
            writer.member("condition", condition.description)
        }
    }

    package init(reading reader: inout JSONReader) throws(JSONReadError) {
        var carrier: Carrier?, evidence: EvidenceSource?, flows: FlowSequence?, reason: RoutingReason?, condition: RoutingPolicy.Condition?
        var members = try reader.beginObject()
        while let key = try reader.nextKey(in: &members) {
            switch key {
            case "carrier": try reader.raw(&carrier, key)
            case "evidence": try reader.raw(&evidence, key)
            case "flows":
                try reader.member(&flows, key) { (reader) throws(JSONReadError) in
                    let list = try reader.elements { (reader) throws(JSONReadError) in try reader.raw(LoginFlow.self) }
                    if let problem = FlowSequence.validate(list) { throw reader.corrupt(problem) }
                    return FlowSequence(unchecked: list)
                }
            case "reason": try reader.raw(&reason, key)
            case "condition":
                try reader.member(&condition, key) { (reader) throws(JSONReadError) in
                    let text = try reader.string()
                    guard let condition = RoutingPolicy.Condition.named(text) else { throw reader.corrupt(RoutingPolicy.Condition.unknown(text)) }
                    return condition
                }
            default: break
            }
        }
        // Guards, not a generic helper: this is every session's hot path.
        guard let carrier else { throw reader.missing("carrier") }
        guard let evidence else { throw reader.missing("evidence") }
        guard let flows else { throw reader.missing("flows") }
        guard let reason else { throw reader.missing("reason") }
        guard let condition else { throw reader.missing("condition") }
        self.init(carrier: carrier, evidence: evidence, flows: flows, reason: reason, condition: condition)
    }
}
