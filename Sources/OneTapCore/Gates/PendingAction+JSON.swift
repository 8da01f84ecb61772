#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// A pending action's JSON, inside a session's: `{"key":…,"action":…,"payload":…,"createdAtMs":…,
// "expiresAtMs":…}` (`payload` only when there is one). A session of `onetap-session/1` holds
// `createdAt` and `expiresAt` as seconds since 1970 instead.

extension PendingAction: JSONWritable {
    package func write(to writer: inout JSONWriter) throws(JSONWriteError) {
        try writer.object { (writer) throws(JSONWriteError) in
            writer.member("key", key)
            writer.member("action", action)
            try writer.member("payload", payload)
            try writer.instant("createdAtMs", createdAt)
            try writer.instant("expiresAtMs", expiresAt)
        }
    }

    /// Reads an action, its instants in the form the session around it holds.
    init(reading reader: inout JSONReader, _ instants: inout StoredInstants) throws(JSONReadError) {
        var key: String?, action: String?, payload: JSONValue??, createdAt: Date?, expiresAt: Date?
        try reader.members { (name, reader) throws(JSONReadError) in
            switch name {
            case "key": try reader.member(&key, name)
            case "action":
                try reader.member(&action, name)
                if let problem = action.flatMap(LoginGate.problem) { throw reader.corrupt(problem) }
            case "payload":
                try reader.record(&payload, name)
                if let problem = Self.payloadProblem(payload ?? nil) { throw reader.corrupt(problem) }
            case "createdAtMs", "createdAt": try instants.read(&createdAt, name, "createdAtMs", &reader)
            case "expiresAtMs", "expiresAt": try instants.read(&expiresAt, name, "expiresAtMs", &reader)
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
