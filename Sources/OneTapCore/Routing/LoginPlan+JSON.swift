// A plan's JSON, inside a session's: `{"carrier":…,"evidence":…,"flows":[…],"reason":…,"condition":…}`.

extension LoginPlan: JSONRecord {
    package func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.key("carrier")
            writer.string(carrier.rawValue)
            writer.key("evidence")
            writer.string(evidence.rawValue)
            writer.key("flows")
            writer.array { writer in
                for flow in flows { writer.string(flow.rawValue) }
            }
            writer.key("reason")
            writer.string(reason.rawValue)
            writer.key("condition")
            writer.string(condition.description)
        }
    }

    package init(reading reader: inout JSONReader) throws(JSONReadError) {
        var carrier: Carrier?, evidence: EvidenceSource?, flows: FlowSequence?, reason: RoutingReason?, condition: RoutingPolicy.Condition?
        var members = try reader.beginObject()
        while let key = try reader.nextKey(in: &members) {
            switch key {
            case "carrier":
                try reader.unseen(carrier != nil, key)
                carrier = try reader.raw(Carrier.self)
            case "evidence":
                try reader.unseen(evidence != nil, key)
                evidence = try reader.raw(EvidenceSource.self)
            case "flows":
                try reader.unseen(flows != nil, key)
                let list = try reader.elements { (reader) throws(JSONReadError) in try reader.raw(LoginFlow.self) }
                if let problem = FlowSequence.validate(list) { throw reader.corrupt(problem) }
                flows = FlowSequence(unchecked: list)
            case "reason":
                try reader.unseen(reason != nil, key)
                reason = try reader.raw(RoutingReason.self)
            case "condition":
                try reader.unseen(condition != nil, key)
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
