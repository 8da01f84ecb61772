#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// A session's JSON, written and read directly: the document `LoginSession.encode(to:)` describes, with
// the rules `init(from:)` checks (each kept once, beside the `Codable` code, and called from both), at a
// fraction of `JSONEncoder`'s and `JSONDecoder`'s cost. `LoginSessionJSONTests` holds the two forms to
// each other over every kind of session, in both directions.

extension LoginSession {
    /// The session as one line of compact JSON: the document ``encode(to:)`` describes (`JSONDecoder`
    /// reads it as this session), written directly instead of through `JSONEncoder`. What a store
    /// keeps; it holds no token (exchanged tokens are SHA-256 digests).
    ///
    /// ```swift
    /// let text = try session.json()          // {"format":"onetap-session/1","id":"…","version":2,…}
    /// let again = try LoginSession(json: text)
    /// assert(again == session)
    /// ```
    /// - Returns: The JSON text.
    /// - Throws: `EncodingError.invalidValue` for an instant (or a number in a pending action's payload)
    ///   that is infinite or NaN, which JSON cannot hold, as `JSONEncoder` throws.
    /// - Complexity: O(*n*) in the length of the JSON.
    public func json() throws(EncodingError) -> String {
        var writer = JSONWriter(capacity: 256 + 160 * trace.count)
        do {
            try write(to: &writer)
        } catch {
            throw error.encodingError
        }
        return writer.text
    }

    /// Reads a session from its JSON: what ``json()`` or `JSONEncoder` wrote.
    /// - Parameter json: The JSON text.
    /// - Throws: `DecodingError` whose coding path names the member at fault: a missing member
    ///   (`keyNotFound`), a member of the wrong type (`typeMismatch`), or one that makes no session, a
    ///   key written twice, or text that is not JSON (`dataCorrupted`).
    /// - Complexity: O(*n*) in the length of the JSON.
    public init(json: String) throws(DecodingError) {
        self = try Self.read(json.utf8)
    }

    /// Reads a session from its JSON, as UTF-8 bytes (`[UInt8]`, `Data`, a column's bytes).
    /// - Parameter json: The bytes.
    /// - Throws: `DecodingError`, as ``init(json:)-(String)``.
    /// - Complexity: O(*n*) in the number of bytes.
    public init(json: some Collection<UInt8>) throws(DecodingError) {
        self = try Self.read(json)
    }

    private static func read(_ json: some Collection<UInt8>) throws(DecodingError) -> LoginSession {
        do {
            return try JSONReader.read(json) { (reader) throws(JSONReadError) in try LoginSession(reading: &reader) }
        } catch {
            throw error.decodingError
        }
    }

    func write(to writer: inout JSONWriter) throws(JSONWriteError) {
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
                writer.key("receivedAt")
                try writer.double(receivedAt.timeIntervalSince1970)
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
            writer.key("createdAt")
            try writer.double(createdAt.timeIntervalSince1970)
            writer.key("expiresAt")
            try writer.double(expiresAt.timeIntervalSince1970)
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
        }
    }

    init(reading reader: inout JSONReader) throws(JSONReadError) {
        var format: String?, id: LoginSessionID?, version: Int?, plan: LoginPlan?, kind: String?
        // Nullable while the stage is unknown: `null` is no value, as `decodeIfPresent` reads it.
        var flow: LoginFlow??, attempt: Int??, token: SHA256Digest??, receivedAt: Double??, ending: Decision.Ending??
        var trace: [LoginStep]?, alerts: [LoginAlert]?, createdAt: Double?, expiresAt: Double?
        var exchangedTokens: [SHA256Digest]?, unknownExchanges: [UnknownExchange]?
        var verified: VerifiedLogin??, pending: PendingAction??, platform: Platform??
        var members = try reader.beginObject()
        while let key = try reader.nextKey(in: &members) {
            switch key {
            case "format":
                try reader.unseen(format, key)
                // Compared as bytes: the expected format costs no string of its own.
                if let utf8 = try reader.plainString() {
                    format = JSONKey.same(utf8, UnsafeBufferPointer(start: Self.formatUTF8.utf8Start, count: Self.formatUTF8.utf8CodeUnitCount))
                        ? Self.format : String(decoding: utf8, as: UTF8.self)
                } else {
                    format = try reader.string()
                }
            case "id":
                try reader.unseen(id, key)
                id = try reader.parsed { (text) throws(ParseError) in try LoginSessionID(text) }
            case "version":
                try reader.unseen(version, key)
                version = try reader.int()
            case "plan":
                try reader.unseen(plan, key)
                plan = try LoginPlan(reading: &reader)
            case "stage":
                try reader.unseen(kind, key)
                kind = try reader.string()
            case "flow":
                try reader.unseen(flow, key)
                flow = .some(try reader.null() ? nil : try reader.raw(LoginFlow.self))
            case "attempt":
                try reader.unseen(attempt, key)
                attempt = .some(try reader.null() ? nil : try reader.int())
            case "token":
                try reader.unseen(token, key)
                token = .some(try reader.null() ? nil : try reader.digest())
            case "receivedAt":
                try reader.unseen(receivedAt, key)
                receivedAt = .some(try reader.null() ? nil : try reader.double())
            case "ending":
                try reader.unseen(ending, key)
                ending = .some(try reader.null() ? nil : try reader.raw(Decision.Ending.self))
            case "trace":
                try reader.unseen(trace, key)
                trace = try reader.elements { (reader) throws(JSONReadError) in try LoginStep(reading: &reader) }
            case "alerts":
                try reader.unseen(alerts, key)
                alerts = try reader.elements { (reader) throws(JSONReadError) in try LoginAlert(reading: &reader) }
            case "createdAt":
                try reader.unseen(createdAt, key)
                createdAt = try reader.double()
            case "expiresAt":
                try reader.unseen(expiresAt, key)
                expiresAt = try reader.double()
            case "exchangedTokens":
                try reader.unseen(exchangedTokens, key)
                exchangedTokens = try reader.elements { (reader) throws(JSONReadError) in try reader.digest() }
            case "unknownExchanges":
                try reader.unseen(unknownExchanges, key)
                unknownExchanges = try reader.elements { (reader) throws(JSONReadError) in try UnknownExchange(reading: &reader) }
            case "verified":
                try reader.unseen(verified, key)
                verified = .some(try reader.null() ? nil : try VerifiedLogin(reading: &reader))
            case "pending":
                try reader.unseen(pending, key)
                pending = .some(try reader.null() ? nil : try PendingAction(reading: &reader))
            case "platform":
                try reader.unseen(platform, key)
                platform = .some(try reader.null() ? nil : try reader.parsed { (text) throws(ParseError) in try Platform(text) })
            default: break
            }
        }
        // The checks in `init(from:)`'s order, so that of several faults found after the members are read,
        // both readers name the same (a member that is malformed in itself is refused where it stands).
        guard let format else { throw reader.missing("format") }
        if let problem = Self.formatProblem(format) { throw reader.corrupt(problem, at: "format") }
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
            guard let receivedAt = receivedAt ?? nil else { throw reader.missing("receivedAt") }
            stage = .exchange(flow, attempt: attempt, token: token, receivedAt: Date(timeIntervalSince1970: receivedAt))
        case .ended:
            guard let ending = ending ?? nil else { throw reader.missing("ending") }
            stage = .ended(ending, flow: flow ?? nil)
        }
        guard let trace else { throw reader.missing("trace") }
        guard let alerts else { throw reader.missing("alerts") }
        guard let createdAt else { throw reader.missing("createdAt") }
        guard let expiresAt else { throw reader.missing("expiresAt") }
        guard let exchangedTokens else { throw reader.missing("exchangedTokens") }
        guard let unknownExchanges else { throw reader.missing("unknownExchanges") }
        self.init(id: id, plan: plan, stage: stage, createdAt: Date(timeIntervalSince1970: createdAt), expiresAt: Date(timeIntervalSince1970: expiresAt), platform: platform ?? nil)
        self.version = version
        self.trace = trace
        self.alerts = alerts
        self.exchangedTokens = exchangedTokens
        self.unknownExchanges = unknownExchanges
        self.verified = verified ?? nil
        self.pending = pending ?? nil
    }
}

extension LoginPlan {
    func write(to writer: inout JSONWriter) {
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

    init(reading reader: inout JSONReader) throws(JSONReadError) {
        var carrier: Carrier?, evidence: EvidenceSource?, flows: FlowSequence?, reason: RoutingReason?, condition: RoutingPolicy.Condition?
        var members = try reader.beginObject()
        while let key = try reader.nextKey(in: &members) {
            switch key {
            case "carrier":
                try reader.unseen(carrier, key)
                carrier = try reader.raw(Carrier.self)
            case "evidence":
                try reader.unseen(evidence, key)
                evidence = try reader.raw(EvidenceSource.self)
            case "flows":
                try reader.unseen(flows, key)
                let list = try reader.elements { (reader) throws(JSONReadError) in try reader.raw(LoginFlow.self) }
                if let problem = FlowSequence.validate(list) { throw reader.corrupt(problem) }
                flows = FlowSequence(unchecked: list)
            case "reason":
                try reader.unseen(reason, key)
                reason = try reader.raw(RoutingReason.self)
            case "condition":
                try reader.unseen(condition, key)
                let text = try reader.string()
                condition = RoutingPolicy.Condition.named(text)
                if condition == nil { throw reader.corrupt(RoutingPolicy.Condition.unknown(text)) }
            default: break
            }
        }
        guard let carrier else { throw reader.missing("carrier") }
        guard let evidence else { throw reader.missing("evidence") }
        guard let flows else { throw reader.missing("flows") }
        guard let reason else { throw reader.missing("reason") }
        guard let condition else { throw reader.missing("condition") }
        self.init(carrier: carrier, evidence: evidence, flows: flows, reason: reason, condition: condition)
    }
}

extension LoginStep {
    func write(to writer: inout JSONWriter) {
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

    init(reading reader: inout JSONReader) throws(JSONReadError) {
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
        guard let flow else { throw reader.missing("flow") }
        guard let attempt else { throw reader.missing("attempt") }
        guard let code else { throw reader.missing("code") }
        guard let result = Result(code: code, detail: detail ?? nil) else { throw reader.corrupt(Result.unknown(code), at: "code") }
        guard let action else { throw reader.missing("action") }
        guard let meaning else { throw reader.missing("meaning") }
        guard let next else { throw reader.missing("next") }
        self.init(flow: flow, attempt: attempt, result: result, action: action, meaning: meaning, next: next)
    }
}

extension LoginAlert {
    func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.key("flow")
            writer.string(flow.rawValue)
            writer.key("code")
            writer.string(code)
            writer.key("meaning")
            writer.string(meaning)
        }
    }

    init(reading reader: inout JSONReader) throws(JSONReadError) {
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
        guard let flow else { throw reader.missing("flow") }
        guard let code else { throw reader.missing("code") }
        guard let meaning else { throw reader.missing("meaning") }
        self.init(flow: flow, code: code, meaning: meaning)
    }
}

extension LoginSession.UnknownExchange {
    func write(to writer: inout JSONWriter) throws(JSONWriteError) {
        try writer.object { (writer) throws(JSONWriteError) in
            writer.key("flow")
            writer.string(flow.rawValue)
            writer.key("token")
            writer.string(token.hex)
            writer.key("at")
            try writer.double(at.timeIntervalSince1970)
        }
    }

    init(reading reader: inout JSONReader) throws(JSONReadError) {
        var flow: LoginFlow?, token: SHA256Digest?, at: Double?
        var members = try reader.beginObject()
        while let key = try reader.nextKey(in: &members) {
            switch key {
            case "flow":
                try reader.unseen(flow, key)
                flow = try reader.raw(LoginFlow.self)
            case "token":
                try reader.unseen(token, key)
                token = try reader.digest()
            case "at":
                try reader.unseen(at, key)
                at = try reader.double()
            default: break
            }
        }
        guard let flow else { throw reader.missing("flow") }
        guard let token else { throw reader.missing("token") }
        guard let at else { throw reader.missing("at") }
        self.init(flow: flow, token: token, at: Date(timeIntervalSince1970: at))
    }
}

extension VerifiedLogin {
    func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.key("phoneNumber")
            writer.string(phoneNumber.digits)
            if let account {
                writer.key("account")
                writer.string(account.rawValue)
            }
        }
    }

    init(reading reader: inout JSONReader) throws(JSONReadError) {
        var phoneNumber: PhoneNumber?, account: AccountID??
        var members = try reader.beginObject()
        while let key = try reader.nextKey(in: &members) {
            switch key {
            case "phoneNumber":
                try reader.unseen(phoneNumber, key)
                phoneNumber = try reader.parsed { (text) throws(ParseError) in try PhoneNumber(text) }
            case "account":
                try reader.unseen(account, key)
                account = .some(try reader.null() ? nil : try reader.parsed { (text) throws(ParseError) in try AccountID(text) })
            default: break
            }
        }
        guard let phoneNumber else { throw reader.missing("phoneNumber") }
        self.init(phoneNumber: phoneNumber, account: account ?? nil)
    }
}

extension PendingAction {
    func write(to writer: inout JSONWriter) throws(JSONWriteError) {
        try writer.object { (writer) throws(JSONWriteError) in
            writer.key("key")
            writer.string(key)
            writer.key("action")
            writer.string(action)
            if let payload {
                writer.key("payload")
                try payload.write(to: &writer)
            }
            writer.key("createdAt")
            try writer.double(createdAt.timeIntervalSince1970)
            writer.key("expiresAt")
            try writer.double(expiresAt.timeIntervalSince1970)
        }
    }

    init(reading reader: inout JSONReader) throws(JSONReadError) {
        var key: String?, action: String?, payload: JSONValue??, createdAt: Double?, expiresAt: Double?
        var members = try reader.beginObject()
        while let name = try reader.nextKey(in: &members) {
            switch name {
            case "key":
                try reader.unseen(key, name)
                key = try reader.string()
            case "action":
                try reader.unseen(action, name)
                let text = try reader.string()
                if let problem = LoginGate.problem(text) { throw reader.corrupt(problem) }
                action = text
            case "payload":
                try reader.unseen(payload, name)
                let value = try reader.null() ? nil : try JSONValue(reading: &reader)
                if let problem = Self.payloadProblem(value) { throw reader.corrupt(problem) }
                payload = .some(value)
            case "createdAt":
                try reader.unseen(createdAt, name)
                createdAt = try reader.double()
            case "expiresAt":
                try reader.unseen(expiresAt, name)
                expiresAt = try reader.double()
            default: break
            }
        }
        guard let key else { throw reader.missing("key") }
        guard let action else { throw reader.missing("action") }
        guard let createdAt else { throw reader.missing("createdAt") }
        guard let expiresAt else { throw reader.missing("expiresAt") }
        self.init(key: key, action: action, payload: payload ?? nil, createdAt: Date(timeIntervalSince1970: createdAt), expiresAt: Date(timeIntervalSince1970: expiresAt))
    }
}

extension JSONReader {
    /// Refuses a key written twice: `slot` is where its first value went.
    @inline(__always)
    func unseen<Value>(_ slot: Value?, _ key: JSONKey) throws(JSONReadError) {
        if slot != nil { throw duplicate(key) }
    }

    /// A string naming a case of `type`, matched on its bytes.
    mutating func raw<Value: RawRepresentable<String> & CaseIterable>(_ type: Value.Type) throws(JSONReadError) -> Value {
        let text: String
        if let utf8 = try plainString() {
            for value in Value.allCases {
                var name = value.rawValue
                if name.utf8.count == utf8.count, name.withUTF8({ JSONKey.same($0, utf8) }) { return value }
            }
            text = String(decoding: utf8, as: UTF8.self)
        } else {
            text = try string()
            if let value = Value(rawValue: text) { return value }
        }
        throw corrupt("not a \(Value.self): \(QuotedInput(text))")
    }

    /// A string that `parse` reads; its ``ParseError`` becomes the message, as `Codable`'s readers word it.
    mutating func parsed<Value>(_ parse: (String) throws(ParseError) -> Value) throws(JSONReadError) -> Value {
        let text = try string()
        do {
            return try parse(text)
        } catch {
            throw corrupt(error.description)
        }
    }

    /// A SHA-256 digest: 64 hexadecimal digits.
    mutating func digest() throws(JSONReadError) -> SHA256Digest {
        let text = try string()
        guard let digest = SHA256Digest(hex: text) else { throw corrupt(SHA256Digest.problem) }
        return digest
    }

    /// A `dataCorrupted` error at one member of the object just read.
    func corrupt(_ reason: String, at key: String) -> JSONReadError { corrupt(reason).at(key) }
}
