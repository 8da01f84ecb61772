#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One login, across the app's requests: what was planned, where it stands, everything that happened.
///
/// A value: the server keeps it in a ``LoginSessionStore``-like store between requests (its JSON is
/// small and holds no token: exchanged tokens are kept only as SHA-256 digests) and hands it to
/// ``LoginSessionMachine/advance(_:_:version:at:)`` with each report. Its ``version`` starts at 1 and
/// grows by one with every accepted report, so a store can compare and swap on it.
public struct LoginSession: Hashable, Sendable, Codable, CustomStringConvertible {
    /// Where a login stands.
    public enum Stage: Hashable, Sendable, CustomStringConvertible {
        /// Waiting for this attempt of this flow to report (SMS included).
        case flow(LoginFlow, attempt: Int)
        /// The flow succeeded; the server is exchanging its token (received at `receivedAt`).
        case exchange(LoginFlow, attempt: Int, token: SHA256Digest, receivedAt: Date)
        /// Over.
        case ended(Decision.Ending, flow: LoginFlow?)

        /// `mobile attempt 1`, `exchange mobile`, `ended success via mobile`.
        public var description: String {
            switch self {
            case .flow(let flow, let attempt): "\(flow) attempt \(attempt)"
            case .exchange(let flow, _, _, _): "exchange \(flow)"
            case .ended(let ending, let flow): "ended \(ending)\(flow.map { " via \($0)" } ?? "")"
            }
        }
    }

    /// An exchange whose result is unknown (it timed out): it may have been billed and spent. Kept for
    /// reconciliation with the carrier's bill.
    public struct UnknownExchange: Hashable, Sendable, Codable {
        /// The flow.
        public let flow: LoginFlow
        /// The token's SHA-256.
        public let token: SHA256Digest
        /// When the exchange was given up on.
        public let at: Date

        init(flow: LoginFlow, token: SHA256Digest, at: Date) {
            self.flow = flow
            self.token = token
            self.at = LoginSession.stored(at)
        }

        private enum CodingKeys: String, CodingKey { case flow, token, at }

        /// Encodes `flow`, `token` (hex) and `at` (seconds since 1970).
        /// - Parameter encoder: The encoder.
        /// - Throws: What the encoder throws.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(flow, forKey: .flow)
            try container.encode(token, forKey: .token)
            try container.encode(at.timeIntervalSince1970, forKey: .at)
        }

        /// Decodes what ``encode(to:)`` writes.
        /// - Parameter decoder: The decoder.
        /// - Throws: `DecodingError` for missing or mistyped fields.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            flow = try container.decode(LoginFlow.self, forKey: .flow)
            token = try container.decode(SHA256Digest.self, forKey: .token)
            at = Date(timeIntervalSince1970: try container.decode(Double.self, forKey: .at))
        }
    }

    /// The id: 128 random bits.
    public let id: LoginSessionID
    /// 1 at the start, one more with every accepted report.
    public internal(set) var version: Int
    /// The plan the login follows.
    public let plan: LoginPlan
    /// Where it stands.
    public internal(set) var stage: Stage
    /// Every step so far, in order.
    public internal(set) var trace: [LoginStep]
    /// Operator alerts raised on the way.
    public internal(set) var alerts: [LoginAlert]
    /// When the login started.
    public let createdAt: Date
    /// When it stops taking reports.
    public let expiresAt: Date
    /// The SHA-256 of every token this login sent (or was about to send) to the exchange.
    public internal(set) var exchangedTokens: [SHA256Digest]
    /// Exchanges that timed out, for reconciliation.
    public internal(set) var unknownExchanges: [UnknownExchange]
    /// The verified login, once it succeeded.
    public internal(set) var verified: VerifiedLogin?
    /// The action a login gate interrupted, kept until the login ends (see ``PendingAction``).
    public internal(set) var pending: PendingAction?

    /// The app's platform, when the device snapshot named one.
    public let platform: Platform?

    package init(id: LoginSessionID, plan: LoginPlan, stage: Stage, createdAt: Date, expiresAt: Date, platform: Platform? = nil) {
        self.id = id
        self.version = 1
        self.plan = plan
        self.stage = stage
        self.trace = []
        self.alerts = []
        self.createdAt = Self.stored(createdAt)
        self.expiresAt = Self.stored(expiresAt)
        self.exchangedTokens = []
        self.unknownExchanges = []
        self.verified = nil
        self.pending = nil
        self.platform = platform
    }

    /// What every event of this login carries: the session, the plan's carrier and evidence, the
    /// platform, the start.
    public var context: LoginContext {
        LoginContext(session: id, carrier: plan.carrier, evidence: plan.evidence, platform: platform, startedAt: createdAt)
    }

    /// An instant as the session's JSON reads it back (seconds since 1970, a `Double`, which cannot hold
    /// every `Date` exactly): a session keeps its instants in this form, so a session read from a store
    /// equals the one written.
    static func stored(_ date: Date) -> Date { Date(timeIntervalSince1970: date.timeIntervalSince1970) }

    /// How the login ended, or nil while it runs.
    public var ending: Decision.Ending? {
        if case .ended(let ending, _) = stage { return ending }
        return nil
    }

    /// Whether the login is over.
    public var isOver: Bool { ending != nil }

    /// The flow the login is at (the one that ended it, once over), or nil when it ended before any.
    public var flow: LoginFlow? {
        switch stage {
        case .flow(let flow, _), .exchange(let flow, _, _, _): flow
        case .ended(_, let flow): flow
        }
    }

    /// The attempt of ``flow`` now, or nil once over.
    public var attempt: Int? {
        switch stage {
        case .flow(_, let attempt), .exchange(_, let attempt, _, _): attempt
        case .ended: nil
        }
    }

    /// What the app should do now, for a client that lost its last answer: `run`, `sms`, `exchange`
    /// (the server is on it) or `done`.
    public var next: String {
        switch stage {
        case .flow(.sms, _): "sms"
        case .flow: "run"
        case .exchange: "exchange"
        case .ended: "done"
        }
    }

    /// `session Ab…: mobile attempt 1, version 1`.
    public var description: String { "session \(id): \(stage), version \(version)" }

    // MARK: JSON

    private enum CodingKeys: String, CodingKey {
        case format, id, version, plan, stage, flow, attempt, token, receivedAt, ending, trace, alerts, createdAt, expiresAt
        case exchangedTokens, unknownExchanges, verified, pending, platform
    }

    /// `onetap-session/1`.
    static let format = "onetap-session/1"
    /// ``format``'s bytes.
    static let formatUTF8: StaticString = "onetap-session/1"

    /// Encodes the session as one JSON object (no token; digests only).
    /// - Parameter encoder: The encoder.
    /// - Throws: What the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Self.format, forKey: .format)
        try container.encode(id, forKey: .id)
        try container.encode(version, forKey: .version)
        try container.encode(plan, forKey: .plan)
        switch stage {
        case .flow(let flow, let attempt):
            try container.encode(StageKind.flow.rawValue, forKey: .stage)
            try container.encode(flow, forKey: .flow)
            try container.encode(attempt, forKey: .attempt)
        case .exchange(let flow, let attempt, let token, let receivedAt):
            try container.encode(StageKind.exchange.rawValue, forKey: .stage)
            try container.encode(flow, forKey: .flow)
            try container.encode(attempt, forKey: .attempt)
            try container.encode(token, forKey: .token)
            try container.encode(receivedAt.timeIntervalSince1970, forKey: .receivedAt)
        case .ended(let ending, let flow):
            try container.encode(StageKind.ended.rawValue, forKey: .stage)
            try container.encode(ending, forKey: .ending)
            try container.encodeIfPresent(flow, forKey: .flow)
        }
        try container.encode(trace, forKey: .trace)
        try container.encode(alerts, forKey: .alerts)
        try container.encode(createdAt.timeIntervalSince1970, forKey: .createdAt)
        try container.encode(expiresAt.timeIntervalSince1970, forKey: .expiresAt)
        try container.encode(exchangedTokens, forKey: .exchangedTokens)
        try container.encode(unknownExchanges, forKey: .unknownExchanges)
        try container.encodeIfPresent(verified, forKey: .verified)
        try container.encodeIfPresent(pending, forKey: .pending)

        try container.encodeIfPresent(platform, forKey: .platform)
    }

    /// Decodes what ``encode(to:)`` writes, checking that it makes a session (the rules ``init(json:)-(String)``
    /// checks too).
    /// - Parameter decoder: The decoder.
    /// - Throws: `DecodingError` naming the key at fault.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func check(_ problem: String?, _ key: CodingKeys) throws {
            if let problem { throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: problem) }
        }
        try check(Self.formatProblem(try container.decode(String.self, forKey: .format)), .format)
        id = try container.decode(LoginSessionID.self, forKey: .id)
        version = try container.decode(Int.self, forKey: .version)
        try check(Self.versionProblem(version), .version)
        plan = try container.decode(LoginPlan.self, forKey: .plan)
        let text = try container.decode(String.self, forKey: .stage)
        guard let kind = StageKind(rawValue: text) else {
            throw DecodingError.dataCorruptedError(forKey: .stage, in: container, debugDescription: StageKind.unknown(text))
        }
        func attempt() throws -> Int {
            let value = try container.decode(Int.self, forKey: .attempt)
            try check(Self.attemptProblem(value), .attempt)
            return value
        }
        switch kind {
        case .flow:
            stage = .flow(try container.decode(LoginFlow.self, forKey: .flow), attempt: try attempt())
        case .exchange:
            stage = .exchange(
                try container.decode(LoginFlow.self, forKey: .flow), attempt: try attempt(), token: try container.decode(SHA256Digest.self, forKey: .token),
                receivedAt: Date(timeIntervalSince1970: try container.decode(Double.self, forKey: .receivedAt)))
        case .ended:
            stage = .ended(try container.decode(Decision.Ending.self, forKey: .ending), flow: try container.decodeIfPresent(LoginFlow.self, forKey: .flow))
        }
        trace = try container.decode([LoginStep].self, forKey: .trace)
        alerts = try container.decode([LoginAlert].self, forKey: .alerts)
        createdAt = Date(timeIntervalSince1970: try container.decode(Double.self, forKey: .createdAt))
        expiresAt = Date(timeIntervalSince1970: try container.decode(Double.self, forKey: .expiresAt))
        exchangedTokens = try container.decode([SHA256Digest].self, forKey: .exchangedTokens)
        unknownExchanges = try container.decode([UnknownExchange].self, forKey: .unknownExchanges)
        verified = try container.decodeIfPresent(VerifiedLogin.self, forKey: .verified)
        pending = try container.decodeIfPresent(PendingAction.self, forKey: .pending)

        platform = try container.decodeIfPresent(Platform.self, forKey: .platform)
    }

    // MARK: Rules of the JSON form, for both readers

    /// The `stage` member's values.
    enum StageKind: String {
        case flow, exchange, ended

        /// The message for a `stage` that is none of them.
        static func unknown(_ text: String) -> String { "unknown stage \(QuotedInput(text))" }
    }

    /// Why a `format` is not this one, or nil.
    static func formatProblem(_ format: String) -> String? {
        format == Self.format ? nil : "format \(QuotedInput(format)) is not \(Self.format)"
    }

    /// Why a `version` cannot be a session's, or nil: it starts at 1, and stays below `Int.max` so that
    /// the next accepted report can count one more.
    static func versionProblem(_ version: Int) -> String? {
        version < 1 ? "a session's version starts at 1" : version == .max ? "a session's version must stay below \(Int.max)" : nil
    }

    /// Why an `attempt` cannot be a running session's, or nil: from 1, below `Int.max` (a retry counts one more).
    static func attemptProblem(_ attempt: Int) -> String? {
        attempt < 1 ? "attempts start at 1" : attempt == .max ? "an attempt must stay below \(Int.max)" : nil
    }
}
