// A pending action's JSON, inside a session's: `{"key":…,"action":…,"payload":…,"createdAtMs":…,
// "expiresAtMs":…}` (`payload` only when there is one). A session of `onetap-session/1` holds
// `createdAt` and `expiresAt` as seconds since 1970 instead.

extension PendingAction {
    func write(to writer: inout JSONWriter) throws(JSONWriteError) {
        try writer.object { (writer) throws(JSONWriteError) in
            writer.member("key", key)
            writer.member("action", action)
            if let payload {
                writer.key("payload")
                try payload.write(to: &writer)
            }
            try writer.instant("createdAtMs", createdAt)
            try writer.instant("expiresAtMs", expiresAt)
        }
    }

    /// Reads an action, its instants in the form the session around it holds.
    init(reading reader: inout JSONReader, _ instants: inout StoredInstants) throws(JSONReadError) {
        var key: String?, action: String?, payload: JSONValue??, createdAt: Date?, expiresAt: Date?
        var members = try reader.beginObject()
        while let name = try reader.nextKey(in: &members) {
            switch name {
            case "key": try reader.member(&key, name)
            case "action":
                try reader.member(&action, name) { (reader) throws(JSONReadError) in
                    let text = try reader.string()
                    if let problem = LoginGate.problem(text) { throw reader.corrupt(problem) }
                    return text
                }
            case "payload":
                try reader.unseen(payload != nil, name)
                let value = try reader.null() ? nil : try JSONValue(reading: &reader)
                if let problem = Self.payloadProblem(value) { throw reader.corrupt(problem) }
                payload = .some(value)
            case "createdAtMs", "createdAt":
                try reader.member(&createdAt, name) { (reader) throws(JSONReadError) in try instants.read(milliseconds: "createdAtMs" ~= name, &reader) }
            case "expiresAtMs", "expiresAt":
                try reader.member(&expiresAt, name) { (reader) throws(JSONReadError) in try instants.read(milliseconds: "expiresAtMs" ~= name, &reader) }
            default: break
            }
        }
        guard let key else { throw reader.missing("key") }
        guard let action else { throw reader.missing("action") }
        guard let createdAt else { throw reader.missing(instants.seconds ? "createdAt" : "createdAtMs") }
        guard let expiresAt else { throw reader.missing(instants.seconds ? "expiresAt" : "expiresAtMs") }
        self.init(key: key, action: action, payload: payload ?? nil, createdAt: createdAt, expiresAt: expiresAt)
    }
}
