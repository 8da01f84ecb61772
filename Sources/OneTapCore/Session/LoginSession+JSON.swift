// A session's JSON: `onetap-session/2`, written and read by the one JSON writer and reader. Version 1
// (instants as seconds since 1970, a Double, under the names without `Ms`) is read as it always was,
// from `json()`'s text and from the `Codable` form `JSONEncoder` wrote in earlier versions (keys in any order,
// `/` escaped), so a session a store kept stays readable. `appSession` (the app session that started a
// login on the server) and `appSessionEpoch` (the login epoch of the credentials that started it, an integer;
// added later) are optional members of version 2, written only when set, as is `startCaptcha` (true when the login's
// start came with a solved captcha; added later still); earlier OneTap versions skip them, as they skip every member
// they do not know.

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
    public func json() throws(EncodingError) -> String {
        do {
            return try jsonText(capacity: 256 + 160 * trace.count)
        } catch {
            throw error.encodingError
        }
    }

    /// Reads a session from its JSON: what ``json()`` wrote, or what an earlier version wrote
    /// (`onetap-session/1`, by `json()` or by `JSONEncoder`).
    /// - Parameter json: The JSON text.
    /// - Throws: `DecodingError` whose coding path names the member at fault: a missing member
    ///   (`keyNotFound`), a member of the wrong type (`typeMismatch`), or one that makes no session, a
    ///   key written twice, or text that is not JSON (`dataCorrupted`).
    /// - Complexity: O(*n*) in the length of the JSON.
    public init(json: String) throws(DecodingError) {
        self = try Self.decoded(json.utf8)
    }

    /// Reads a session from its JSON, as UTF-8 bytes (a column's bytes, a fuzz target's input): the package's own
    /// readers; a user reads the text, as every other record's (``init(json:)``).
    /// - Parameter json: The bytes.
    /// - Throws: `DecodingError`, as ``init(json:)``.
    /// - Complexity: O(*n*) in the number of bytes.
    package init(json: some Collection<UInt8>) throws(DecodingError) {
        self = try Self.decoded(json)
    }

    private static func decoded(_ json: some Collection<UInt8>) throws(DecodingError) -> LoginSession {
        do {
            // `JSONRecord.reading(_:)` spelled out: a package protocol's generic member runs unspecialised
            // from another module, and the session is the record read on every request (3.2 µs, not 4.6).
            return try JSONReader.read(json, skippingByteOrderMark: skipsByteOrderMark) { (reader) throws(JSONReadError) in
                try LoginSession(reading: &reader)
            }
        } catch {
            throw error.decodingError
        }
    }

    package func write(to writer: inout JSONWriter) throws(JSONWriteError) {
        try writer.object { (writer) throws(JSONWriteError) in
            writer.key("format")
            writer.string(Self.format)
            writer.key("id")
            writer.string(id.text)
            writer.key("version")
            writer.int(version)
            writer.key("plan")
            plan.write(to: &writer)
            writer.key("stage")
            switch stage {
            case .flow(let flow, let attempt):
                writer.string(StageKind.flow.rawValue)
                writer.key("flow")
                writer.string(flow.rawValue)
                writer.key("attempt")
                writer.int(attempt)
            case .exchange(let flow, let attempt, let token, let receivedAt):
                writer.string(StageKind.exchange.rawValue)
                writer.key("flow")
                writer.string(flow.rawValue)
                writer.key("attempt")
                writer.int(attempt)
                writer.key("token")
                writer.string(token.hex)
                writer.key("receivedAtMs")
                try writer.instant(receivedAt)
            case .ended(let ending, let flow):
                writer.string(StageKind.ended.rawValue)
                writer.key("ending")
                writer.string(ending.rawValue)
                if let flow {
                    writer.key("flow")
                    writer.string(flow.rawValue)
                }
            }
            writer.key("trace")
            writer.array { writer in
                for step in trace { step.write(to: &writer) }
            }
            writer.key("alerts")
            writer.array { writer in
                for alert in alerts { alert.write(to: &writer) }
            }
            writer.key("createdAtMs")
            try writer.instant(createdAt)
            writer.key("expiresAtMs")
            try writer.instant(expiresAt)
            writer.key("exchangedTokens")
            writer.array { writer in
                for token in exchangedTokens { writer.string(token.hex) }
            }
            writer.key("unknownExchanges")
            try writer.array { (writer) throws(JSONWriteError) in
                for unknown in unknownExchanges { try unknown.write(to: &writer) }
            }
            if let verified {
                writer.key("verified")
                verified.write(to: &writer)
            }
            if let pending {
                writer.key("pending")
                try pending.write(to: &writer)
            }
            if let platform {
                writer.key("platform")
                writer.string(platform.rawValue)
            }
            if let appSession {
                writer.key("appSession")
                writer.string(appSession.text)
            }
            if let appSessionEpoch {
                writer.key("appSessionEpoch")
                writer.int(appSessionEpoch)
            }
            if startCaptcha {
                writer.key("startCaptcha")
                writer.bool(true)
            }
        }
    }

    package init(reading reader: inout JSONReader) throws(JSONReadError) {
        var format: String?, id: LoginSessionID?, version: Int?, plan: LoginPlan?, kind: String?
        // Nullable while the stage is unknown: `null` is no value, as `decodeIfPresent` reads it.
        var flow: LoginFlow??, attempt: Int??, token: SHA256Digest??, ending: Decision.Ending??
        var trace: [LoginStep]?, alerts: [LoginAlert]?
        var exchangedTokens: [SHA256Digest]?, unknownExchanges: [UnknownExchange]?
        var verified: VerifiedLogin??, pending: PendingAction??, platform: Platform??, appSession: AppSessionID??
        var appSessionEpoch: Int??
        var startCaptcha: Bool??
        // Every instant, as seconds (version 1) or milliseconds (version 2); which one the format says.
        var instants = StoredInstants(legacy: .unix)
        var receivedAt: Date??, createdAt: Date?, expiresAt: Date?
        var members = try reader.beginObject()
        while let key = try reader.nextKey(in: &members) {
            switch key {
            case "format":
                try reader.unseen(format != nil, key)
                // Compared as bytes: the expected format costs no string of its own.
                if let utf8 = try reader.plainString() {
                    format = Self.formatV2UTF8.same(utf8) ? Self.format : Self.formatV1UTF8.same(utf8) ? Self.formatV1 : String(decoding: utf8, as: UTF8.self)
                } else {
                    format = try reader.string()
                }
            case "id":
                try reader.unseen(id != nil, key)
                id = try reader.parsed { (text) throws(ParseError) in try LoginSessionID(text) }
            case "version":
                try reader.unseen(version != nil, key)
                version = try reader.int()
            case "plan":
                try reader.unseen(plan != nil, key)
                plan = try LoginPlan(reading: &reader)
            case "stage":
                try reader.unseen(kind != nil, key)
                kind = try reader.string()
            case "flow":
                try reader.unseen(flow != nil, key)
                flow = .some(try reader.null() ? nil : try reader.raw(LoginFlow.self))
            case "attempt":
                try reader.unseen(attempt != nil, key)
                attempt = .some(try reader.null() ? nil : try reader.int())
            case "token":
                try reader.unseen(token != nil, key)
                token = .some(try reader.null() ? nil : try reader.digest())
            case "receivedAtMs", "receivedAt":
                try reader.unseen(receivedAt != nil, key)
                let inMilliseconds = "receivedAtMs" ~= key
                receivedAt = .some(try reader.null() ? nil : try instants.read(milliseconds: inMilliseconds, &reader))
            case "ending":
                try reader.unseen(ending != nil, key)
                ending = .some(try reader.null() ? nil : try reader.raw(Decision.Ending.self))
            case "trace":
                try reader.unseen(trace != nil, key)
                trace = try reader.elements { (reader) throws(JSONReadError) in try LoginStep(reading: &reader) }
            case "alerts":
                try reader.unseen(alerts != nil, key)
                alerts = try reader.elements { (reader) throws(JSONReadError) in try LoginAlert(reading: &reader) }
            case "createdAtMs", "createdAt":
                try reader.unseen(createdAt != nil, key)
                createdAt = try instants.read(milliseconds: "createdAtMs" ~= key, &reader)
            case "expiresAtMs", "expiresAt":
                try reader.unseen(expiresAt != nil, key)
                expiresAt = try instants.read(milliseconds: "expiresAtMs" ~= key, &reader)
            case "exchangedTokens":
                try reader.unseen(exchangedTokens != nil, key)
                exchangedTokens = try reader.elements { (reader) throws(JSONReadError) in try reader.digest() }
            case "unknownExchanges":
                try reader.unseen(unknownExchanges != nil, key)
                unknownExchanges = try reader.elements { (reader) throws(JSONReadError) in try UnknownExchange(reading: &reader, &instants) }
            case "verified":
                try reader.unseen(verified != nil, key)
                verified = .some(try reader.null() ? nil : try VerifiedLogin(reading: &reader))
            case "pending":
                try reader.unseen(pending != nil, key)
                pending = .some(try reader.null() ? nil : try PendingAction(reading: &reader, &instants))
            case "platform":
                try reader.unseen(platform != nil, key)
                platform = .some(try reader.null() ? nil : try reader.parsed { (text) throws(ParseError) in try Platform(text) })
            case "appSession":
                try reader.unseen(appSession != nil, key)
                appSession = .some(try reader.null() ? nil : try reader.parsed { (text) throws(ParseError) in try AppSessionID(text) })
            case "appSessionEpoch":
                try reader.member(&appSessionEpoch, key)
                if let epoch = appSessionEpoch ?? nil, !(0...999_999_999_999).contains(epoch) {
                    throw reader.corrupt("a login epoch is whole seconds since 1970, 0 to 999999999999", at: "appSessionEpoch")
                }
            case "startCaptcha":
                try reader.member(&startCaptcha, key)
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
        self.appSession = appSession ?? nil
        self.appSessionEpoch = (appSessionEpoch ?? nil).map(Int64.init)
        self.startCaptcha = (startCaptcha ?? nil) ?? false
    }

    /// ``format``'s bytes.
    private static let formatV2UTF8: StaticString = "onetap-session/2"
    /// ``formatV1``'s bytes.
    private static let formatV1UTF8: StaticString = "onetap-session/1"
}

extension LoginSession.UnknownExchange {
    func write(to writer: inout JSONWriter) throws(JSONWriteError) {
        try writer.object { (writer) throws(JSONWriteError) in
            writer.member("flow", flow.rawValue)
            writer.member("token", token.hex)
            try writer.instant("atMs", at)
        }
    }

    init(reading reader: inout JSONReader, _ instants: inout StoredInstants) throws(JSONReadError) {
        var flow: LoginFlow?, token: SHA256Digest?, at: Date?
        var members = try reader.beginObject()
        while let key = try reader.nextKey(in: &members) {
            switch key {
            case "flow":
                try reader.unseen(flow != nil, key)
                flow = try reader.raw(LoginFlow.self)
            case "token":
                try reader.unseen(token != nil, key)
                token = try reader.digest()
            case "atMs", "at":
                try reader.unseen(at != nil, key)
                at = try instants.read(milliseconds: "atMs" ~= key, &reader)
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
