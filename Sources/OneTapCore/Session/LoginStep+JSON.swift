// A step's and an alert's JSON, inside a session's: `{"flow":…,"attempt":…,"code":…,"detail":…,
// "action":…,"meaning":…,"next":…}` (`detail` only for a result that carries text) and
// `{"flow":…,"code":…,"meaning":…}`.

extension LoginStep: JSONRecord {
    package func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.key("flow")
            writer.string(flow.rawValue)
            writer.key("attempt")
            writer.int(attempt)
            writer.key("code")
            writer.string(result.code)
            if let detail = result.detail {
                writer.key("detail")
                writer.string(detail)
            }
            writer.key("action")
            writer.string(action.rawValue)
            writer.key("meaning")
            writer.string(meaning)
            writer.key("next")
            writer.string(next.description)
        }
    }

    package init(reading reader: inout JSONReader) throws(JSONReadError) {
        var flow: LoginFlow?, attempt: Int?, code: String?, detail: String??, action: OutcomeAction?, meaning: String?, next: Decision.Step?
        var members = try reader.beginObject()
        while let key = try reader.nextKey(in: &members) {
            switch key {
            case "flow":
                try reader.unseen(flow != nil, key)
                flow = try reader.raw(LoginFlow.self)
            case "attempt":
                try reader.unseen(attempt != nil, key)
                attempt = try reader.int()
            case "code":
                try reader.unseen(code != nil, key)
                code = try reader.string()
            case "detail":
                try reader.unseen(detail != nil, key)
                detail = .some(try reader.null() ? nil : try reader.string())
            case "action":
                try reader.unseen(action != nil, key)
                action = try reader.raw(OutcomeAction.self)
            case "meaning":
                try reader.unseen(meaning != nil, key)
                meaning = try reader.string()
            case "next":
                try reader.unseen(next != nil, key)
                let text = try reader.string()
                next = Decision.Step(text)
                if next == nil { throw reader.corrupt(Decision.Step.unknown(text)) }
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
            writer.key("flow")
            writer.string(flow.rawValue)
            writer.key("code")
            writer.string(code)
            writer.key("meaning")
            writer.string(meaning)
        }
    }

    package init(reading reader: inout JSONReader) throws(JSONReadError) {
        var flow: LoginFlow?, code: String?, meaning: String?
        var members = try reader.beginObject()
        while let key = try reader.nextKey(in: &members) {
            switch key {
            case "flow":
                try reader.unseen(flow != nil, key)
                flow = try reader.raw(LoginFlow.self)
            case "code":
                try reader.unseen(code != nil, key)
                code = try reader.string()
            case "meaning":
                try reader.unseen(meaning != nil, key)
                meaning = try reader.string()
            default: break
            }
        }
        guard let flow else { throw reader.missing("flow") }
        guard let code else { throw reader.missing("code") }
        guard let meaning else { throw reader.missing("meaning") }
        self.init(flow: flow, code: code, meaning: meaning)
    }
}
