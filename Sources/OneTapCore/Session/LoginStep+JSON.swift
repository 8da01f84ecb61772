// A step's and an alert's JSON, inside a session's: `{"flow":…,"attempt":…,"code":…,"detail":…,
// "action":…,"meaning":…,"next":…}` (`detail` only for a result that carries text) and
// `{"flow":…,"code":…,"meaning":…}`.

extension LoginStep: JSONRecord {
    package func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.member("flow", flow.rawValue)
            writer.member("attempt", attempt)
            writer.member("code", result.code)
            writer.member("detail", result.detail)
            writer.member("action", action.rawValue)
            writer.member("meaning", meaning)
            writer.member("next", next.description)
        }
    }

    package init(reading reader: inout JSONReader) throws(JSONReadError) {
        var flow: LoginFlow?, attempt: Int?, code: String?, detail: String??, action: OutcomeAction?, meaning: String?, next: Decision.Step?
        var members = try reader.beginObject()
        while let key = try reader.nextKey(in: &members) {
            switch key {
            case "flow": try reader.raw(&flow, key)
            case "attempt": try reader.member(&attempt, key)
            case "code": try reader.member(&code, key)
            case "detail": try reader.member(&detail, key)
            case "action": try reader.raw(&action, key)
            case "meaning": try reader.member(&meaning, key)
            case "next":
                try reader.member(&next, key) { (reader) throws(JSONReadError) in
                    let text = try reader.string()
                    guard let step = Decision.Step(text) else { throw reader.corrupt(Decision.Step.unknown(text)) }
                    return step
                }
            default: break
            }
        }
        // Guards, not a generic helper: this is every session's hot path.
        guard let flow else { throw reader.missing("flow") }
        guard let attempt else { throw reader.missing("attempt") }
        guard let code else { throw reader.missing("code") }
        guard let result = Answer(code: code, detail: detail ?? nil) else { throw reader.corrupt(Answer.unknown(code), at: "code") }
        guard let action else { throw reader.missing("action") }
        guard let meaning else { throw reader.missing("meaning") }
        guard let next else { throw reader.missing("next") }
        self.init(flow: flow, attempt: attempt, result: result, action: action, meaning: meaning, next: next)
    }
}

extension LoginAlert: JSONRecord {
    package func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.member("flow", flow.rawValue)
            writer.member("code", code)
            writer.member("meaning", meaning)
        }
    }

    package init(reading reader: inout JSONReader) throws(JSONReadError) {
        var flow: LoginFlow?, code: String?, meaning: String?
        var members = try reader.beginObject()
        while let key = try reader.nextKey(in: &members) {
            switch key {
            case "flow": try reader.raw(&flow, key)
            case "code": try reader.member(&code, key)
            case "meaning": try reader.member(&meaning, key)
            default: break
            }
        }
        guard let flow else { throw reader.missing("flow") }
        guard let code else { throw reader.missing("code") }
        guard let meaning else { throw reader.missing("meaning") }
        self.init(flow: flow, code: code, meaning: meaning)
    }
}
