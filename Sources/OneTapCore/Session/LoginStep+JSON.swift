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
                try reader.unseen(flow, key)
                flow = try reader.raw(LoginFlow.self)
            case "attempt":
                try reader.unseen(attempt, key)
                attempt = try reader.int()
            case "code":
                try reader.unseen(code, key)
                code = try reader.string()
            case "detail":
                try reader.unseen(detail, key)
                detail = .some(try reader.null() ? nil : try reader.string())
            case "action":
                try reader.unseen(action, key)
                action = try reader.raw(OutcomeAction.self)
            case "meaning":
                try reader.unseen(meaning, key)
                meaning = try reader.string()
            case "next":
                try reader.unseen(next, key)
                let text = try reader.string()
                next = Decision.Step(text)
                if next == nil { throw reader.corrupt(Decision.Step.unknown(text)) }
            default: break
            }
        }
        let flowRead = try reader.required(flow, "flow")
        let attemptRead = try reader.required(attempt, "attempt")
        let codeRead = try reader.required(code, "code")
        guard let result = Result(code: codeRead, detail: detail ?? nil) else { throw reader.corrupt(Result.unknown(codeRead), at: "code") }
        self.init(
            flow: flowRead, attempt: attemptRead, result: result, action: try reader.required(action, "action"), meaning: try reader.required(meaning, "meaning"),
            next: try reader.required(next, "next"))
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
                try reader.unseen(flow, key)
                flow = try reader.raw(LoginFlow.self)
            case "code":
                try reader.unseen(code, key)
                code = try reader.string()
            case "meaning":
                try reader.unseen(meaning, key)
                meaning = try reader.string()
            default: break
            }
        }
        self.init(flow: try reader.required(flow, "flow"), code: try reader.required(code, "code"), meaning: try reader.required(meaning, "meaning"))
    }
}
