// A plan's JSON, inside a session's: `{"carrier":…,"evidence":…,"flows":[…],"reason":…,"condition":…}`.

extension LoginPlan: JSONRecord {
    package func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.member("carrier", carrier.rawValue)
            writer.member("evidence", evidence.rawValue)
            writer.member("flows", strings: flows.lazy.map(\.rawValue))
            writer.member("reason", reason.rawValue)
            writer.member("condition", condition.description)
        }
    }

    package init(reading reader: inout JSONReader) throws(JSONReadError) {
        var carrier: Carrier?, evidence: EvidenceSource?, flows: FlowSequence?, reason: RoutingReason?, condition: RoutingPolicy.Condition?
        try reader.members { (key, reader) throws(JSONReadError) in
            switch key {
            case "carrier": try reader.raw(&carrier, key)
            case "evidence": try reader.raw(&evidence, key)
            case "flows":
                if flows != nil { throw reader.duplicate(key) }
                let list = try reader.elements { (reader) throws(JSONReadError) in try reader.raw(LoginFlow.self) }
                if let problem = FlowSequence.validate(list) { throw reader.corrupt(problem) }
                flows = FlowSequence(unchecked: list)
            case "reason": try reader.raw(&reason, key)
            case "condition":
                if condition != nil { throw reader.duplicate(key) }
                let text = try reader.string()
                condition = RoutingPolicy.Condition.named(text)
                if condition == nil { throw reader.corrupt(RoutingPolicy.Condition.unknown(text)) }
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
