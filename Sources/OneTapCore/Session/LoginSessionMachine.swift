/// Every rule of a login, once: where a login starts, and what each report leads to.
///
/// Pure: values in, values out (the caller draws the session's id and reads the breaker). The server calls
/// ``start(_:at:id:pending:channels:)`` when the app asks to log in and
/// ``advance(_:_:version:at:channels:)`` with every report, keeping the session in a store between requests;
/// the device-side `LoginCoordinator`, `onetap simulate`, the traffic generator and `onetap session`'s
/// transcripts drive the same machine through one driver (`LoginDriver`), so no rule exists twice. The
/// rules:
///
/// - The plan comes from the engine (``LoginDecisionEngine/plan(for:)``). A one-tap flow whose channel's
///   circuit is open (the ``ChannelAdmissions`` the caller read from its breaker) is skipped; a half-open
///   circuit's probe is let through. What the breaker should learn comes back as values
///   (``LoginTransition/channelReports``), applied by the caller once the transition is stored.
/// - A result code is classified by the engine's result-code table: `retry` runs the same flow once
///   more (``LoginDecisionEngine/maxAttemptsPerFlow``), then counts as `fallback`; `fallback` and
///   `misconfigured` (with an operator alert) go to the plan's next flow; `switch` goes to SMS;
///   `cancelled` and `failed` end the login; `progress` changes nothing.
/// - A timeout, a provider fault or a missing provider falls back.
/// - Success needs what the flow promises: a token, and for China Mobile a uniqueid. A success code
///   without them is a provider fault: fall back.
/// - On the server (``exchanges`` set) a one-tap success is not the end: the machine asks for the
///   token's exchange and classifies its answer by `Data/exchange-codes.csv`. An exchange that timed
///   out has an unknown result: the login goes to SMS and the token is recorded for reconciliation.
///   A token is sent to the exchange at most once per login (its SHA-256 is kept; a report repeating
///   it is rejected).
/// - SMS succeeds only with an ``SMSVerdict`` from the SMS code service, never on a code the client
///   sends.
/// - Reports are checked before anything changes: the session must be running and unexpired, the
///   report must be for the flow the session waits for, and a report carrying a version must carry the
///   session's.
public struct LoginSessionMachine: Sendable {
    /// Plans and classifies.
    package let engine: LoginDecisionEngine
    /// The server's exchange rules, or nil when a one-tap success ends the login at once (a device
    /// that exchanges nothing, a simulation). The one configuration of the exchange's tables: the
    /// machine classifies the exchange's answers by them, and `ExchangeGuard` is handed them when it
    /// exchanges for this machine.
    package let exchanges: ExchangeRules?
    /// How long a session takes reports: 10 minutes.
    package let sessionLifetime: Duration

    /// Creates a machine.
    /// - Parameters:
    ///   - engine: The engine; built-in tables by default.
    ///   - exchanges: The server's exchange rules (built in by default); nil when there is no exchange.
    ///   - sessionLifetime: How long a session takes reports; 10 minutes.
    public init(engine: LoginDecisionEngine = LoginDecisionEngine(), exchanges: ExchangeRules? = ExchangeRules(), sessionLifetime: Duration = .seconds(600)) {
        self.engine = engine
        self.exchanges = exchanges
        self.sessionLifetime = sessionLifetime
    }

    // MARK: Starting

    /// Starts a login for a device.
    /// - Parameters:
    ///   - snapshot: What the device reported (its platform goes into the login's events).
    ///   - now: The time (the injected clock's now).
    ///   - id: The session's id: 128 bits from the system's CSPRNG (`LoginSessionID.random()` in `OneTap`).
    ///   - pending: The action a login gate interrupted, handed back when the login succeeds and with every telling
    ///     of the success again while it is live (dropped on cancel, failure or after its 10 minutes); nil when the
    ///     login was asked for directly.
    ///   - channels: What the circuit breaker says of each channel now; every channel allowed by default.
    ///   - appSession: The app session that starts the login on the auth server; nil on the device.
    ///   - epoch: The login epoch of the credentials it starts under (``AccessClaims/epoch``); nil for those
    ///     of format 1 and on the device.
    ///   - startCaptcha: Whether the start came with a captcha the provider took (``LoginSession/startCaptcha``).
    /// - Returns: The new session (version 1), what to do first, the events and the channel reports.
    package func start(
        _ snapshot: DeviceSnapshot, at now: Date, id: LoginSessionID, pending: PendingAction? = nil, channels: ChannelAdmissions = .allAllowed,
        appSession: AppSessionID? = nil, epoch: Int64? = nil, startCaptcha: Bool = false
    ) -> LoginTransition {
        begin(
            plan: engine.plan(for: snapshot), at: now, id: id, platform: snapshot.platform, pending: pending, channels: channels, appSession: appSession,
            epoch: epoch, startCaptcha: startCaptcha)
    }

    /// Starts a login on a plan made beforehand.
    /// - Parameters:
    ///   - plan: The plan.
    ///   - now: The time.
    ///   - id: The session's id.
    ///   - platform: The app's platform, for the login's events; nil when unknown.
    ///   - channels: What the circuit breaker says of each channel now; every channel allowed by default.
    /// - Returns: The new session (version 1), what to do first, the events and the channel reports.
    package func start(
        plan: LoginPlan, at now: Date, id: LoginSessionID, platform: Platform? = nil, channels: ChannelAdmissions = .allAllowed
    ) -> LoginTransition {
        begin(plan: plan, at: now, id: id, platform: platform, pending: nil, channels: channels, appSession: nil, epoch: nil, startCaptcha: false)
    }

    private func begin(
        plan: LoginPlan, at now: Date, id: LoginSessionID, platform: Platform?, pending: PendingAction?, channels: ChannelAdmissions,
        appSession: AppSessionID?, epoch: Int64?, startCaptcha: Bool
    ) -> LoginTransition {
        // Made in place: a session built in a variable first was copied whole into the progress.
        var progress = Progress(
            session: LoginSession(
                id: id, plan: plan, stage: .flow(plan.flows[0], attempt: 1), createdAt: now, expiresAt: now.addingTimeInterval(sessionLifetime.seconds),
                platform: platform),
            events: [.planned(plan)], channels: channels, now: now)
        progress.session.pending = pending
        progress.session.appSession = appSession
        progress.session.appSessionEpoch = epoch
        progress.session.startCaptcha = startCaptcha
        enter(plan.flows[0], &progress)
        return progress.transition(instruction(progress.session))
    }

    // MARK: Advancing

    /// Applies a report to a session.
    /// - Parameters:
    ///   - session: The session as stored.
    ///   - report: What happened.
    ///   - version: The version the client acted on, if it sent one; it must be the session's.
    ///   - now: The time.
    ///   - channels: What the circuit breaker says of each channel now; every channel allowed by default.
    /// - Returns: The session after the report (its version one more, unless the report was only
    ///   progress), what to do next, the events and the channel reports.
    /// - Throws: ``LoginRejection`` when the report cannot be taken; nothing changed then.
    /// - Complexity: O(*n*) in the plan's flows; no I/O.
    package func advance(
        _ session: LoginSession, _ report: LoginReport, version: Int? = nil, at now: Date, channels: ChannelAdmissions = .allAllowed
    ) throws(LoginRejection) -> LoginTransition {
        try check(session, version: version, at: now, until: Self.deadline(of: session, taking: report))
        var progress = Progress(session: session, events: [], channels: channels, now: now)
        let instruction = try apply(report, to: &progress)
        // A pending action stays with a login that succeeded while it is live: handed back with the success, and with
        // every telling of it again (a retried report whose answer was lost, the account step told again), so a lost
        // answer never loses it; its key makes a continuation that is retried run once. Any other end drops it.
        var continued: PendingAction? = nil
        if progress.session.ending != nil {
            continued = Self.continued(progress.session, at: now)
            if continued == nil { progress.session.pending = nil }
        }
        return progress.transition(instruction, continued: continued)
    }

    /// Whether a session takes an SMS send or verify now (the SMS code service's steps that are no report),
    /// and, for a verify, the report its right code makes: checked before the code is verified, so a code is
    /// never spent on a report the session would refuse.
    /// - Parameters:
    ///   - session: The session as stored.
    ///   - version: For a verify, the version the app acted on (as ``advance(_:_:version:at:channels:)`` checks it); nil
    ///     for a send.
    ///   - now: The time.
    /// - Throws: ``LoginRejection``: `ended`, `expired`, `wrong-flow` when the session is not at its SMS step,
    ///   `stale-version` or `unknown-version`.
    package func checkSMSStep(_ session: LoginSession, version: Int? = nil, at now: Date) throws(LoginRejection) {
        switch session.stage {
        case .ended(let ending, _): throw LoginRejection(.ended, session: session.id, "the login has ended (\(ending))")
        case _ where now >= session.expiresAt:
            throw LoginRejection(.expired, session: session.id, "the login session expired at \(session.expiresAt.iso8601)")
        case .flow(.sms, _): try check(session, version: version, at: now)
        default: throw LoginRejection(.wrongFlow, session: session.id, "the session is at \(session.stage), not at SMS")
        }
    }

    /// A login's success told again, to finish what follows it (the account step) in a later request:
    /// the request that saw the success may have failed after it (a store was down), or a dormant number
    /// needed a second factor first. The session is unchanged and no event is emitted; the interrupted action
    /// is handed back again while it is live (the answer that carried it may have been lost; its key makes a
    /// continuation that is retried run once).
    ///
    /// Only credentials of the login epoch the login started in are told it: the account step moves the app
    /// session's epoch on, so its own credentials (and a refresh's after it) are refused, the account step is
    /// finished once, and an access token of the account cannot run it again for a fresh refresh token. A login
    /// started under credentials of format 1 (no epoch), or stored before logins kept the epoch, judges them by
    /// their issue time instead: at the login's start or before.
    /// - Parameters:
    ///   - session: The session as stored.
    ///   - credentials: The caller's verified claims.
    ///   - now: The time.
    /// - Returns: The `done(success)` transition with the flow and the verified login, and the interrupted action
    ///   while it is live.
    /// - Throws: ``LoginRejection``: `expired` once the session's lifetime passed, `ended` when it ended
    ///   otherwise or the credentials are of another epoch than the login's (or, judged by issue time, newer
    ///   than the login), `unexpected` while it still runs.
    package func success(of session: LoginSession, credentials: AccessClaims, at now: Date) throws(LoginRejection) -> LoginTransition {
        // Access tokens carry whole seconds (rounded down): credentials of format 1 issued in the second the login
        // started count as older. An account step cannot follow a start within that second (a carrier SDK's page
        // and the user's tap come between), while an app that opens its session and starts a login at once must
        // still be able to finish.
        if let started = session.appSessionEpoch {
            guard credentials.epoch == started else {
                throw LoginRejection(
                    .ended, session: session.id, "these credentials are not of the login epoch the login started in; its account step is done")
            }
        } else if credentials.issuedAt > session.createdAt {
            throw LoginRejection(.ended, session: session.id, "these credentials were issued after the login started; its account step is done")
        }
        guard now < Self.readableUntil(session) else {
            throw LoginRejection(.expired, session: session.id, "the login expired at \(session.expiresAt.iso8601); start a new one")
        }
        guard case .ended(let ending, let flow) = session.stage else {
            throw LoginRejection(.unexpected, session: session.id, "the login has not ended; it is at \(session.stage)")
        }
        guard ending == .success, let verified = session.verified else {
            throw LoginRejection(.ended, session: session.id, "the login ended without success (\(ending))")
        }
        return LoginTransition(session: session, instruction: .done(.success, flow: flow, verified: verified), events: [], continued: Self.continued(session, at: now))
    }

    /// The interrupted action a login that succeeded hands back now: its own while it is live.
    private static func continued(_ session: LoginSession, at now: Date) -> PendingAction? {
        guard session.ending == .success, let pending = session.pending, pending.isLive(at: now) else { return nil }
        return pending
    }

    /// The exchange to ask again for a session left at its exchange: the app sends the same success
    /// report again while the first request's exchange is under way (a mobile network's retry), or after
    /// that request exchanged the token and could not store the answer (the store failed). Asking the guard
    /// again calls no carrier: it waits for the exchange under way, or answers what its ledger kept of it
    /// for this session, so the retry gets the exchange's own answer instead of the login staying stuck
    /// until it expires.
    /// - Parameters:
    ///   - session: The session as stored.
    ///   - report: The report that came in.
    ///   - version: The version it was sent for: the one before the exchange or the exchange's own.
    ///   - now: The time: past the minute after the login's end in which its exchange's answer is taken
    ///     (``exchangeAnswerGrace``), nothing is asked again (the guard may resend an `unknown` exchange, once).
    /// - Returns: The credential and when its success report was first received, or nil when the report
    ///   is no repeat of the success the session is exchanging (its token, with a success code and a whole
    ///   credential), or comes too late.
    package func exchangeToRecover(
        _ session: LoginSession, _ report: LoginReport, version: Int?, at now: Date
    ) -> (credential: CarrierCredential, receivedAt: Date)? {
        // A repeat as a success report would start the exchange: a success code and a whole credential (a resend of an
        // unknown exchange goes to the carrier with the repeat's credential, and is billed).
        guard now < Self.graceEnds(session), case .exchange(let flow, _, let digest, let receivedAt) = session.stage,
            case .result(let reported, let code, let credential?) = report, reported == flow, credential.flow == flow,
            credential.tokenDigest == digest, engine.outcome(for: flow, code: code).action == .success, missing(in: credential, for: flow) == nil,
            version == nil || version == session.version - 1 || version == session.version
        else { return nil }
        return (credential, receivedAt)
    }

    /// Whether a report repeats the success report a login ended in success with: the app retried after
    /// the answer was lost. It is answered with the success told again (``success(of:credentials:at:)``,
    /// which checks the caller's credentials and the login's lifetime), not refused as `ended`.
    /// - Parameters:
    ///   - session: The session as stored.
    ///   - report: The report that came in.
    ///   - version: The version it was sent for: the one before the exchange or the exchange's own.
    /// - Returns: True when the report carries the token the login's success was exchanged from.
    package func repeatsSuccess(_ session: LoginSession, _ report: LoginReport, version: Int?) -> Bool {
        guard case .ended(.success, let flow?) = session.stage, case .result(let reported, _, let credential?) = report, reported == flow,
            credential.flow == flow, session.exchangedTokens.last == credential.tokenDigest, session.verified != nil,
            version == nil || version == session.version - 2 || version == session.version - 1
        else { return false }
        return true
    }

    /// The transition a login's stored session stands for when another request of the same login (the
    /// report, or the app's retry of it) stored the answer of the exchange this request waited on: `after`
    /// is the session at its exchange as this request read it, `stored` the session now.
    /// - Parameters:
    ///   - stored: The session as stored now.
    ///   - session: The session at its exchange, as the request read it.
    ///   - now: The time: a success hands back its interrupted action while it is live.
    /// - Returns: The stored session and its instruction (no events: the other request emitted them), with the
    ///   interrupted action of a success while it is live, or nil when `stored` is not that session one exchange
    ///   answer later.
    package func exchangeSettled(_ stored: LoginSession, after session: LoginSession, at now: Date) -> LoginTransition? {
        // At its exchange a session takes nothing but the answer bound to its token: one version later, that is what it took.
        guard case .exchange = session.stage, stored.id == session.id, stored.version == session.version + 1 else { return nil }
        return LoginTransition(session: stored, instruction: instruction(stored), events: [], continued: Self.continued(stored, at: now))
    }

    /// How long after a login's end the answer of the exchange it began in time is still taken, and a login
    /// that succeeded is still told (a retry of its report, its account step, its status): the exchange's own
    /// time-out and the app's retry fit in it. A carrier that answers just after the end has billed the exchange:
    /// refusing its answer would lose it, and a new login pay again. Stores keep a login this long past its end
    /// (``SweptStore`` sweeps login sessions that much later).
    package static let exchangeAnswerGrace: TimeInterval = 60

    /// Until when a login is told as it is (its success told again, its status read): its end, or, for a login
    /// that succeeded, ``exchangeAnswerGrace`` later (it may have succeeded in that minute).
    /// - Parameter session: The login.
    /// - Returns: The instant from which it is expired.
    package static func readableUntil(_ session: LoginSession) -> Date {
        session.ending == .success ? graceEnds(session) : session.expiresAt
    }

    /// The end of the minute after a login's end (``exchangeAnswerGrace``).
    private static func graceEnds(_ session: LoginSession) -> Date {
        session.expiresAt.addingTimeInterval(exchangeAnswerGrace)
    }

    /// Until when a session takes a report: its end, or, for the answer of the exchange it is at (begun by a
    /// report it took before its end), ``exchangeAnswerGrace`` later.
    private static func deadline(of session: LoginSession, taking report: LoginReport) -> Date {
        if case .exchange = report, case .exchange = session.stage { return graceEnds(session) }
        return session.expiresAt
    }

    /// Refuses a report a session cannot take, before anything changes.
    private func check(_ session: LoginSession, version: Int?, at now: Date, until deadline: Date? = nil) throws(LoginRejection) {
        if case .ended(let ending, _) = session.stage {
            throw LoginRejection(.ended, session: session.id, "the login is over (\(ending)); it takes no more reports")
        }
        guard now < deadline ?? session.expiresAt else {
            throw LoginRejection(.expired, session: session.id, "the login expired at \(session.expiresAt.iso8601); start a new one")
        }
        if let version, version != session.version {
            throw version < session.version
                ? LoginRejection(.staleVersion, session: session.id,
                    "the report is for version \(version); the session is at version \(session.version) (a replay or a double submit)")
                : LoginRejection(.unknownVersion, session: session.id,
                    "the report is for version \(version); the session is at version \(session.version) and never had it")
        }
    }
}

/// A machine's answer: the session after the start or report, what to do next, and what happened.
public struct LoginTransition: Sendable {
    /// The session as it is now: store it (compare-and-swap on its previous version).
    public let session: LoginSession
    /// What to do next.
    public let instruction: LoginInstruction
    /// What happened, for the event sink; never a token.
    package let events: [LoginEvent]
    /// What the circuit breaker should learn: apply them (`ChannelHealth.apply`) once the session is
    /// stored, so a report that lost its compare-and-swap tells the breaker nothing.
    package let channelReports: [ChannelReport]
    /// The action the login interrupted, handed back when the login succeeded in time, and again with every telling
    /// of that success while the action is live (an answer that carried it may have been lost): continue it; its key
    /// makes a retried continuation idempotent.
    public let continued: PendingAction?

    init(session: LoginSession, instruction: LoginInstruction, events: [LoginEvent], channelReports: [ChannelReport] = [], continued: PendingAction? = nil) {
        self.session = session
        self.instruction = instruction
        self.events = events
        self.channelReports = channelReports
        self.continued = continued
    }

    /// What the events belong to: the session's ``LoginSession/context``.
    package var context: LoginContext { session.context }
}
