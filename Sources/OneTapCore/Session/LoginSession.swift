/// One login, across the app's requests: what was planned, where it stands, everything that happened.
///
/// A value: the server keeps it in a ``LoginSessionStore``-like store between requests (its JSON is
/// small and holds no token: exchanged tokens are kept only as SHA-256 digests) and hands it to
/// ``LoginSessionMachine/advance(_:_:version:at:)`` with each report. Its ``version`` starts at 1 and
/// grows by one with every accepted report, so a store can compare and swap on it.
public struct LoginSession: Hashable, Sendable, CustomStringConvertible {
    /// Where a login stands.
    package enum Stage: Hashable, Sendable, CustomStringConvertible {
        /// Waiting for this attempt of this flow to report (SMS included).
        case flow(LoginFlow, attempt: Int)
        /// The flow succeeded; the server is exchanging its token (received at `receivedAt`).
        case exchange(LoginFlow, attempt: Int, token: SHA256Digest, receivedAt: Date)
        /// Over.
        case ended(Decision.Ending, flow: LoginFlow?)

        /// `mobile attempt 1`, `exchange mobile`, `ended success via mobile`.
        package var description: String {
            switch self {
            case .flow(let flow, let attempt): "\(flow) attempt \(attempt)"
            case .exchange(let flow, _, _, _): "exchange \(flow)"
            case .ended(let ending, let flow): "ended \(ending)\(flow.map { " via \($0)" } ?? "")"
            }
        }
    }

    /// An exchange whose result is unknown (it timed out): it may have been billed and spent. Kept for
    /// reconciliation with the carrier's bill.
    package struct UnknownExchange: Hashable, Sendable {
        /// The flow.
        package let flow: LoginFlow
        /// The token's SHA-256.
        package let token: SHA256Digest
        /// When the exchange was given up on.
        package let at: Date

        init(flow: LoginFlow, token: SHA256Digest, at: Date) {
            self.flow = flow
            self.token = token
            self.at = LoginSession.stored(at)
        }
    }

    /// The id: 128 random bits.
    public let id: LoginSessionID
    /// 1 at the start, one more with every accepted report.
    public internal(set) var version: Int
    /// The plan the login follows.
    package let plan: LoginPlan
    /// Where it stands.
    package internal(set) var stage: Stage
    /// Every step so far, in order.
    package internal(set) var trace: [LoginStep]
    /// Operator alerts raised on the way.
    package internal(set) var alerts: [LoginAlert]
    /// When the login started.
    package let createdAt: Date
    /// When it stops taking reports.
    public let expiresAt: Date
    /// The SHA-256 of every token this login sent (or was about to send) to the exchange.
    package internal(set) var exchangedTokens: [SHA256Digest]
    /// Exchanges that timed out, for reconciliation.
    package internal(set) var unknownExchanges: [UnknownExchange]
    /// The verified login, once it succeeded.
    package internal(set) var verified: VerifiedLogin?
    /// The action a login gate interrupted: kept until the login ends, and after a success while it is live, for every
    /// telling of that success (see ``PendingAction``).
    package internal(set) var pending: PendingAction?

    /// The app's platform, when the device snapshot named one.
    package let platform: Platform?
    /// The app session that started the login on the auth server: every later request about the login
    /// must come from it (`LoginServer` checks). Nil for a login on the device (``LoginCoordinator``) or a
    /// simulation.
    package var appSession: AppSessionID?
    /// The login epoch of the credentials that started the login on the auth server (``AccessClaims/epoch``):
    /// the login's success is told again only to credentials of that epoch, so the account step, which moves
    /// the epoch on, is taken once. Nil when those credentials were of format 1 (judged by their issue time
    /// instead), for a login on the device, and in every session written before it existed.
    package var appSessionEpoch: Int64?
    /// Whether the login's start came with a solved captcha (the auth server's quotas checked it): such a login is
    /// exchanged past the exchange quotas that step up to a captcha (`Data/login-quotas.csv`, per address block and
    /// device), which a stranger sharing the address can fill. False for every other start, on the device, and in
    /// every session written before it existed.
    package var startCaptcha = false

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
    package var context: LoginContext {
        LoginContext(session: id, carrier: plan.carrier, evidence: plan.evidence, platform: platform, startedAt: createdAt)
    }

    /// An instant as the session's JSON reads it back (whole milliseconds since 1970): a session keeps its
    /// instants in this form, so a session read from a store equals the one written. An instant with no
    /// millisecond count (infinite, NaN) is kept as it is, and ``json()`` refuses it.
    static func stored(_ date: Date) -> Date { date.roundedToMilliseconds }

    /// How the login ended, or nil while it runs.
    package var ending: Decision.Ending? {
        if case .ended(let ending, _) = stage { return ending }
        return nil
    }

    /// Whether the login is over.
    package var isOver: Bool { ending != nil }

    /// The flow the login is at (the one that ended it, once over), or nil when it ended before any.
    package var flow: LoginFlow? {
        switch stage {
        case .flow(let flow, _), .exchange(let flow, _, _, _): flow
        case .ended(_, let flow): flow
        }
    }

    /// The attempt of ``flow`` now, or nil once over.
    package var attempt: Int? {
        switch stage {
        case .flow(_, let attempt), .exchange(_, let attempt, _, _): attempt
        case .ended: nil
        }
    }

    /// What the app should do now, for a client that lost its last answer: `run`, `sms`, `exchange`
    /// (the server is on it) or `done`.
    package var next: String {
        switch stage {
        case .flow(.sms, _): "sms"
        case .flow: "run"
        case .exchange: "exchange"
        case .ended: "done"
        }
    }

    /// `session Ab…: mobile attempt 1, version 1`.
    public var description: String { "session \(id): \(stage), version \(version)" }

    // MARK: Rules of the JSON form

    /// `onetap-session/2`: what ``json()`` writes (instants as whole milliseconds since 1970).
    static let format = "onetap-session/2"
    /// `onetap-session/1`: what versions before it wrote (instants as seconds since 1970, a `Double`);
    /// still read.
    static let formatV1 = "onetap-session/1"

    /// The `stage` member's values.
    enum StageKind: String {
        case flow, exchange, ended

        /// The message for a `stage` that is none of them.
        static func unknown(_ text: String) -> String { "unknown stage \(QuotedInput(text))" }
    }

    /// Why a `format` is none this version reads, or nil.
    static func formatProblem(_ format: String) -> String? {
        format == Self.format || format == Self.formatV1 ? nil : "format \(QuotedInput(format)) is not \(Self.format) (nor \(Self.formatV1))"
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
