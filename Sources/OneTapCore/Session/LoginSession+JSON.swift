#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// A session's JSON: `onetap-session/2`, written and read by the one JSON writer and reader. Version 1
// (instants as seconds since 1970, a Double, under the names without `Ms`) is read as it always was,
// from `json()`'s text and from the `Codable` form `JSONEncoder` wrote in earlier versions (keys in any order,
// `/` escaped), so a session a store kept stays readable.

extension LoginSession: JSONRecord {
    /// The session as one line of compact JSON (`onetap-session/2`): what a store keeps. It holds no
    /// token (exchanged tokens are SHA-256 digests); every instant is whole milliseconds since 1970.
    ///
    /// ```swift
    /// let text = try session.json()          // {"format":"onetap-session/2","id":"…","version":2,…}
    /// let again = try LoginSession(json: text)
    /// assert(again == session)
    /// ```
    /// - Returns: The JSON text.
    /// - Throws: `EncodingError.invalidValue` for an instant that is infinite or NaN (or a number in a
    ///   pending action's payload that is), which JSON cannot hold.
    /// - Complexity: O(*n*) in the length of the JSON.
    public func json() throws(EncodingError) -> String { try encodedJSON(capacity: 256 + 160 * trace.count) }

    /// Reads a session from its JSON: what ``json()`` wrote, or what an earlier version wrote
    /// (`onetap-session/1`, by `json()` or by `JSONEncoder`).
    /// - Parameter json: The JSON text.
    /// - Throws: `DecodingError` whose coding path names the member at fault: a missing member
    ///   (`keyNotFound`), a member of the wrong type (`typeMismatch`), or one that makes no session, a
    ///   key written twice, or text that is not JSON (`dataCorrupted`).
    /// - Complexity: O(*n*) in the length of the JSON.
    public init(json: String) throws(DecodingError) { try self.init(decoding: json.utf8) }

    /// Reads a session from its JSON, as UTF-8 bytes (`[UInt8]`, `Data`, a column's bytes).
    /// - Parameter json: The bytes.
    /// - Throws: `DecodingError`, as ``init(json:)-(String)``.
    /// - Complexity: O(*n*) in the number of bytes.
    public init(json: some Collection<UInt8>) throws(DecodingError) { try self.init(decoding: json) }

    package func write(to writer: inout JSONWriter) throws(JSONWriteError) {
        try writer.object { (writer) throws(JSONWriteError) in
            writer.member("format", Self.format)
            writer.member("id", id.text)
            writer.member("version", version)
            try writer.member("plan", plan)
            writer.key("stage")
            switch stage {
            case .flow(let flow, let attempt):
                writer.string(StageKind.flow.rawValue)
                writer.member("flow", flow.rawValue)
                writer.member("attempt", attempt)
            case .exchange(let flow, let attempt, let token, let receivedAt):
                writer.string(StageKind.exchange.rawValue)
                writer.member("flow", flow.rawValue)
                writer.member("attempt", attempt)
                writer.member("token", token.hex)
                try writer.instant("receivedAtMs", receivedAt)
            case .ended(let ending, let flow):
                writer.string(StageKind.ended.rawValue)
                writer.member("ending", ending.rawValue)
                writer.member("flow", flow?.rawValue)
            }
            try writer.member("trace", elements: trace)
            try writer.member("alerts", elements: alerts)
            try writer.instant("createdAtMs", createdAt)
            try writer.instant("expiresAtMs", expiresAt)
            writer.member("exchangedTokens", strings: exchangedTokens.lazy.map(\.hex))
            try writer.member("unknownExchanges", elements: unknownExchanges)
            try writer.member("verified", verified)
            try writer.member("pending", pending)
            writer.member("platform", platform?.rawValue)
        }
    }

    package init(reading reader: inout JSONReader) throws(JSONReadError) {
        var format: String?, id: LoginSessionID?, version: Int?, plan: LoginPlan?, kind: String?
        // Nullable while the stage is unknown: `null` is no value, as `decodeIfPresent` reads it.
        var flow: LoginFlow??, attempt: Int??, token: SHA256Digest??, ending: Decision.Ending??
        var trace: [LoginStep]?, alerts: [LoginAlert]?
        var exchangedTokens: [SHA256Digest]?, unknownExchanges: [UnknownExchange]?
        var verified: VerifiedLogin??, pending: PendingAction??, platform: Platform??
        // Every instant, as seconds (version 1) or milliseconds (version 2); which one the format says.
        var instants = StoredInstants(legacy: .unix)
        var receivedAt: Date??, createdAt: Date?, expiresAt: Date?
        try reader.members { (key, reader) throws(JSONReadError) in
            switch key {
            case "format":
                if format != nil { throw reader.duplicate(key) }
                // Compared as bytes: the expected format costs no string of its own.
                if let utf8 = try reader.plainString() {
                    format = Self.formatV2UTF8.same(utf8) ? Self.format : Self.formatV1UTF8.same(utf8) ? Self.formatV1 : String(decoding: utf8, as: UTF8.self)
                } else {
                    format = try reader.string()
                }
            case "id": try reader.parsed(&id, key)
            case "version": try reader.member(&version, key)
            case "plan": try reader.record(&plan, key)
            case "stage": try reader.member(&kind, key)
            case "flow": try reader.raw(&flow, key)
            case "attempt": try reader.member(&attempt, key)
            case "token": try reader.member(&token, key)
            case "receivedAtMs", "receivedAt": try instants.read(&receivedAt, key, "receivedAtMs", &reader)
            case "ending": try reader.raw(&ending, key)
            case "trace": try reader.record(&trace, key)
            case "alerts": try reader.record(&alerts, key)
            case "createdAtMs", "createdAt": try instants.read(&createdAt, key, "createdAtMs", &reader)
            case "expiresAtMs", "expiresAt": try instants.read(&expiresAt, key, "expiresAtMs", &reader)
            case "exchangedTokens": try reader.member(&exchangedTokens, key)
            case "unknownExchanges":
                try reader.elements(&unknownExchanges, key) { (reader) throws(JSONReadError) in try UnknownExchange(reading: &reader, &instants) }
            case "verified": try reader.record(&verified, key)
            case "pending":
                if pending != nil { throw reader.duplicate(key) }
                pending = .some(try reader.null() ? nil : try PendingAction(reading: &reader, &instants))
            case "platform": try reader.parsed(&platform, key)
            default: break
            }
        }
        // The checks in a fixed order, so that of several faults found after the members are read, the
        // same is named every time (a member that is malformed in itself is refused where it stands).
        guard let format else { throw reader.missing("format") }
        if let problem = Self.formatProblem(format) { throw reader.corrupt(problem, at: "format") }
        let milliseconds = format == Self.format
        if milliseconds ? instants.seconds : instants.milliseconds {
            let problem = milliseconds
                ? "\(Self.format) holds its instants as whole milliseconds (createdAtMs, …), not as seconds (createdAt, …)"
                : "\(Self.formatV1) holds its instants as seconds (createdAt, …), not as milliseconds (createdAtMs, …)"
            throw reader.corrupt(problem, at: "format")
        }
        guard let id else { throw reader.missing("id") }
        guard let version else { throw reader.missing("version") }
        if let problem = Self.versionProblem(version) { throw reader.corrupt(problem, at: "version") }
        guard let plan else { throw reader.missing("plan") }
        guard let kind else { throw reader.missing("stage") }
        guard let stageKind = StageKind(rawValue: kind) else { throw reader.corrupt(StageKind.unknown(kind), at: "stage") }
        func checkedAttempt() throws(JSONReadError) -> Int {
            guard let value = attempt ?? nil else { throw reader.missing("attempt") }
            if let problem = Self.attemptProblem(value) { throw reader.corrupt(problem, at: "attempt") }
            return value
        }
        let stage: Stage
        switch stageKind {
        case .flow:
            guard let flow = flow ?? nil else { throw reader.missing("flow") }
            stage = .flow(flow, attempt: try checkedAttempt())
        case .exchange:
            guard let flow = flow ?? nil else { throw reader.missing("flow") }
            let attempt = try checkedAttempt()
            guard let token = token ?? nil else { throw reader.missing("token") }
            guard let receivedAt = receivedAt ?? nil else { throw reader.missing(milliseconds ? "receivedAtMs" : "receivedAt") }
            stage = .exchange(flow, attempt: attempt, token: token, receivedAt: receivedAt)
        case .ended:
            guard let ending = ending ?? nil else { throw reader.missing("ending") }
            stage = .ended(ending, flow: flow ?? nil)
        }
        guard let trace else { throw reader.missing("trace") }
        guard let alerts else { throw reader.missing("alerts") }
        guard let createdAt else { throw reader.missing(milliseconds ? "createdAtMs" : "createdAt") }
        guard let expiresAt else { throw reader.missing(milliseconds ? "expiresAtMs" : "expiresAt") }
        guard let exchangedTokens else { throw reader.missing("exchangedTokens") }
        guard let unknownExchanges else { throw reader.missing("unknownExchanges") }
        self.init(id: id, plan: plan, stage: stage, createdAt: createdAt, expiresAt: expiresAt, platform: platform ?? nil)
        self.version = version
        self.trace = trace
        self.alerts = alerts
        self.exchangedTokens = exchangedTokens
        self.unknownExchanges = unknownExchanges
        self.verified = verified ?? nil
        self.pending = pending ?? nil
    }

    /// ``format``'s bytes.
    private static let formatV2UTF8: StaticString = "onetap-session/2"
    /// ``formatV1``'s bytes.
    private static let formatV1UTF8: StaticString = "onetap-session/1"
}

extension LoginSession.UnknownExchange: JSONWritable {
    package func write(to writer: inout JSONWriter) throws(JSONWriteError) {
        try writer.object { (writer) throws(JSONWriteError) in
            writer.member("flow", flow.rawValue)
            writer.member("token", token.hex)
            try writer.instant("atMs", at)
        }
    }

    init(reading reader: inout JSONReader, _ instants: inout StoredInstants) throws(JSONReadError) {
        var flow: LoginFlow?, token: SHA256Digest?, at: Date?
        try reader.members { (key, reader) throws(JSONReadError) in
            switch key {
            case "flow": try reader.raw(&flow, key)
            case "token": try reader.member(&token, key)
            case "atMs", "at": try instants.read(&at, key, "atMs", &reader)
            default: break
            }
        }
        guard let flow else { throw reader.missing("flow") }
        guard let token else { throw reader.missing("token") }
        guard let at else { throw reader.missing(instants.seconds ? "at" : "atMs") }
        self.init(flow: flow, token: token, at: at)
    }
}

extension StaticString {
    /// Whether the bytes are this text's.
    /// - Parameter utf8: The bytes.
    /// - Returns: True when they are the same.
    @inline(__always)
    func same(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        JSONKey.same(utf8, UnsafeBufferPointer(start: utf8Start, count: utf8CodeUnitCount))
    }
}
