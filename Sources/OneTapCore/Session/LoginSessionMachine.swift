#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Every rule of a login, once: where a login starts, and what each report leads to.
///
/// Pure: values in, values out. The server calls ``start(_:at:id:)`` when the app asks to log in and
/// ``advance(_:_:version:at:)`` with every report, keeping the session in a store between requests;
/// the device-side `LoginCoordinator` and `onetap simulate` drive the same machine, so no rule exists
/// twice. The rules:
///
/// - The plan comes from the engine (``LoginDecisionEngine/plan(for:)``). A one-tap flow whose channel's
///   circuit is open (the ``ChannelGate``) is skipped; a half-open circuit's probe is let through.
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
    /// The server's exchange rules: which codes mean what, and how long a token may be exchanged.
    public struct Exchanges: Sendable {
        /// The exchange's codes.
        public var codes: ExchangeCodeTable
        /// The tokens' lifetimes.
        public var lifetimes: TokenLifetimeTable

        /// Creates exchange rules; the built-in tables by default.
        /// - Parameters:
        ///   - codes: The exchange's codes.
        ///   - lifetimes: The tokens' lifetimes.
        public init(codes: ExchangeCodeTable = .builtIn, lifetimes: TokenLifetimeTable = .builtIn) {
            self.codes = codes
            self.lifetimes = lifetimes
        }
    }

    /// Plans and classifies.
    public let engine: LoginDecisionEngine
    /// The server's exchange rules, or nil when a one-tap success ends the login at once (a device
    /// that exchanges nothing, a simulation).
    public let exchanges: Exchanges?
    /// How long a session takes reports: 10 minutes.
    public let sessionLifetime: Duration
    /// The circuit breaker consulted before each one-tap flow, if any.
    public let health: (any ChannelGate)?

    /// Creates a machine.
    /// - Parameters:
    ///   - engine: The engine; built-in tables by default.
    ///   - exchanges: The server's exchange rules (built in by default); nil when there is no exchange.
    ///   - sessionLifetime: How long a session takes reports; 10 minutes.
    ///   - health: A circuit breaker shared across logins; none by default.
    public init(
        engine: LoginDecisionEngine = LoginDecisionEngine(), exchanges: Exchanges? = Exchanges(), sessionLifetime: Duration = .seconds(600),
        health: (any ChannelGate)? = nil
    ) {
        self.engine = engine
        self.exchanges = exchanges
        self.sessionLifetime = sessionLifetime
        self.health = health
    }

    // MARK: Starting

    /// Starts a login for a device.
    /// - Parameters:
    ///   - snapshot: What the device reported (its platform goes into the login's events).
    ///   - now: The time (the injected clock's now).
    ///   - id: The session's id; 128 random bits from the system's CSPRNG by default.
    ///   - pending: The action a login gate interrupted, handed back once the login succeeds (dropped on
    ///     cancel, failure or after its 10 minutes); nil when the login was asked for directly.
    /// - Returns: The new session (version 1), what to do first, and the events.
    public func start(_ snapshot: DeviceSnapshot, at now: Date, id: LoginSessionID = .random(), pending: PendingAction? = nil) -> LoginTransition {
        let started = start(plan: engine.plan(for: snapshot), at: now, id: id, platform: snapshot.platform)
        guard let pending else { return started }
        var session = started.session
        session.pending = pending
        return LoginTransition(session: session, instruction: started.instruction, events: started.events)
    }

    /// Starts a login on a plan made beforehand.
    /// - Parameters:
    ///   - plan: The plan.
    ///   - now: The time.
    ///   - id: The session's id.
    ///   - platform: The app's platform, for the login's events; nil when unknown.
    /// - Returns: The new session (version 1), what to do first, and the events.
    public func start(plan: LoginPlan, at now: Date, id: LoginSessionID = .random(), platform: Platform? = nil) -> LoginTransition {
        var session = LoginSession(
            id: id, plan: plan, stage: .flow(plan.flows[0], attempt: 1), createdAt: now, expiresAt: now.addingTimeInterval(sessionLifetime.seconds),
            platform: platform)
        var events: [LoginEvent] = [.planned(plan)]
        enter(plan.flows[0], &session, &events, at: now)
        return LoginTransition(session: session, instruction: instruction(session), events: events)
    }

    // MARK: Advancing

    /// Applies a report to a session.
    /// - Parameters:
    ///   - session: The session as stored.
    ///   - report: What happened.
    ///   - version: The version the client acted on, if it sent one; it must be the session's.
    ///   - now: The time.
    /// - Returns: The session after the report (its version one more, unless the report was only
    ///   progress), what to do next, and the events.
    /// - Throws: ``LoginRejection`` when the report cannot be taken; nothing changed then.
    /// - Complexity: O(*n*) in the plan's flows; no I/O.
    public func advance(_ session: LoginSession, _ report: LoginReport, version: Int? = nil, at now: Date) throws(LoginRejection) -> LoginTransition {
        let transition = try applying(session, report, version: version, at: now)
        // A pending action leaves with the login's end: handed back once on success (while live), dropped otherwise.
        guard let pending = transition.session.pending, let ending = transition.session.ending else { return transition }
        var ended = transition.session
        ended.pending = nil
        let continued = ending == .success && pending.isLive(at: now) ? pending : nil
        return LoginTransition(session: ended, instruction: transition.instruction, events: transition.events, continued: continued)
    }

    private func applying(_ session: LoginSession, _ report: LoginReport, version: Int?, at now: Date) throws(LoginRejection) -> LoginTransition {
        func reject(_ kind: LoginRejection.Kind, _ message: String) -> LoginRejection {
            LoginRejection(kind, session: session.id, message)
        }
        if case .ended(let ending, _) = session.stage {
            throw reject(.ended, "the login is over (\(ending)); it takes no more reports")
        }
        guard now < session.expiresAt else {
            throw reject(.expired, "the login expired at \(session.expiresAt.iso8601); start a new one")
        }
        if let version, version != session.version {
            throw version < session.version
                ? reject(.staleVersion, "the report is for version \(version); the session is at version \(session.version) (a replay or a double submit)")
                : reject(.unknownVersion, "the report is for version \(version); the session is at version \(session.version) and never had it")
        }
        var next = session
        var events: [LoginEvent] = []
        switch session.stage {
        case .ended:
            throw reject(.ended, "the login is over")
        case .flow(let flow, let attempt):
            if case .exchange = report {
                throw reject(.unexpected, "no exchange is under way; the session waits for \(flow) attempt \(attempt)")
            }
            guard let reported = report.flow, reported == flow else {
                throw reject(.wrongFlow, "the report is for \(report.flow.map(\.rawValue) ?? "none"); the session waits for \(flow)")
            }
            switch report {
            case .result(_, let code, let credential):
                let outcome = engine.outcome(for: flow, code: code)
                if outcome.action == .progress {
                    // Not a result: nothing changes, and the app keeps waiting for this attempt.
                    return LoginTransition(session: session, instruction: instruction(session), events: [.progress(flow: flow, code: code.text)])
                }
                if outcome.action == .success {
                    if flow == .sms {
                        throw reject(.unverifiedSMS, "SMS succeeds only with the SMS code service's verdict, not with a code from the client")
                    }
                    if let credential, credential.flow != flow {
                        throw reject(.wrongFlow, "the credential is \(credential.flow)'s; the report is for \(flow), whose exchange and token lifetime differ")
                    }
                    if let missing = missing(in: credential, for: flow) {
                        apply(.fallback, result: .incomplete(code: code, missing: missing), meaning: "a success code without \(missing): a provider fault, fall back",
                              flow: flow, attempt: attempt, &next, &events, at: now)
                        break
                    }
                    let credential = credential!
                    let digest = SHA256.hash(credential.token.reveal().utf8)
                    if session.exchangedTokens.contains(digest) {
                        throw reject(.alreadyExchanged, "this \(flow) token was reported before; a token is exchanged once")
                    }
                    recordHealth(flow, .success, next.plan.carrier, at: now)
                    guard exchanges != nil else {
                        record(LoginStep(flow: flow, attempt: attempt, result: .code(code), action: .success, meaning: outcome.meaningEN, next: .finish(.success)),
                               &next, &events)
                        finish(.success, flow: flow, &next, &events)
                        next.version += 1
                        return LoginTransition(session: next, instruction: .done(.success, flow: flow, verified: nil), events: events)
                    }
                    record(LoginStep(
                        flow: flow, attempt: attempt, result: .code(code), action: .success, meaning: outcome.meaningEN + ": exchange the token",
                        next: .exchange(flow)), &next, &events)
                    next.exchangedTokens.append(digest)
                    next.stage = .exchange(flow, attempt: attempt, token: digest, receivedAt: LoginSession.stored(now))
                    next.version += 1
                    return LoginTransition(session: next, instruction: .exchange(credential), events: events)
                }
                let suffix = outcome.isDefault ? " (an unlisted code: the flow's default)" : ""
                apply(outcome.action, result: .code(code), meaning: outcome.meaningEN + suffix, flow: flow, attempt: attempt, &next, &events, at: now)
            case .timeout:
                apply(.fallback, result: .timeout, meaning: "no answer in time: fall back", flow: flow, attempt: attempt, &next, &events, at: now)
            case .fault(_, let message):
                let text = String(message.prefix(200))
                apply(.fallback, result: .providerError(text), meaning: "the provider failed (\(text)): fall back", flow: flow, attempt: attempt, &next, &events, at: now)
            case .unavailable:
                apply(.fallback, result: .unavailable, meaning: "no provider is configured for \(flow)", flow: flow, attempt: 0, &next, &events, at: now)
            case .switchToSMS:
                apply(.switch, result: .switched, meaning: "the user chose SMS", flow: flow, attempt: attempt, &next, &events, at: now)
            case .cancel(_, let reason):
                let meaning = switch reason {
                case .user: "the user backed out"
                case .noPhoneNumber: "the user gave no phone number for SMS login"
                case .caller: "the login was cancelled"
                }
                apply(.cancelled, result: .abandoned(reason), meaning: meaning, flow: flow, attempt: attempt, &next, &events, at: now,
                      health: reason == .user)
            case .smsVerified(let verdict):
                guard verdict.session == session.id else {
                    throw reject(.unverifiedSMS, verdict.session == nil
                        ? "the SMS code was sent for no login session; only a code sent for this session completes it"
                        : "the SMS verdict belongs to another login session")
                }
                record(LoginStep(flow: .sms, attempt: attempt, result: .code("0"), action: .success, meaning: "the SMS code was verified", next: .finish(.success)),
                       &next, &events)
                next.verified = VerifiedLogin(phoneNumber: verdict.phoneNumber)
                finish(.success, flow: .sms, &next, &events)
            case .exchange:
                throw reject(.unexpected, "no exchange is under way")
            }
        case .exchange(let flow, let attempt, let token, _):
            guard case .exchange(let answer) = report else {
                throw reject(.unexpected, "the server is exchanging the \(flow) token; the app has nothing to report until it answers")
            }
            answerExchange(answer, flow: flow, attempt: attempt, token: token, &next, &events, at: now)
        }
        next.version += 1
        return LoginTransition(session: next, instruction: instruction(next), events: events)
    }

    /// What a success report lacks for its flow, or nil when it has it all.
    private func missing(in credential: CarrierCredential?, for flow: LoginFlow) -> String? {
        guard let credential, !credential.token.isEmpty else {
            return switch flow {
            case .mobile: "a token"
            case .tianyi: "an accessToken"
            case .unicom: "an access code"
            case .sms: "a session"
            }
        }
        if flow == .mobile, (credential.uniqueID ?? "").isEmpty { return "a uniqueid" }
        return nil
    }

    private func answerExchange(
        _ answer: ExchangeAnswer, flow: LoginFlow, attempt: Int, token: SHA256Digest, _ session: inout LoginSession, _ events: inout [LoginEvent], at now: Date
    ) {
        let rules = exchanges ?? Exchanges()
        switch answer {
        case .answered(let code, let number, let account):
            let entry = rules.codes.entry(for: flow, code: code)
            if entry.action == .success {
                guard let number else {
                    apply(.fallback, result: .exchangeFailed("a success without the number"), meaning: "the exchange answered success without the number: fall back",
                          flow: flow, attempt: attempt, &session, &events, at: now, health: false)
                    return
                }
                record(LoginStep(
                    flow: flow, attempt: attempt, result: .exchangeCode(code), action: .success, meaning: entry.meaningEN, next: .finish(.success)),
                    &session, &events)
                session.verified = VerifiedLogin(phoneNumber: number, account: account)
                finish(.success, flow: flow, &session, &events)
                return
            }
            if entry.alert || entry.action == .misconfigured {
                let alert = LoginAlert(flow: flow, code: LoginStep.Result.exchangeCode(code).code, meaning: entry.meaningEN)
                session.alerts.append(alert)
                events.append(.alert(alert))
            }
            let suffix = entry.code == nil ? " (an unlisted exchange code: the flow's default)" : ""
            apply(entry.action, result: .exchangeCode(code), meaning: entry.meaningEN + suffix, flow: flow, attempt: attempt, &session, &events, at: now,
                  health: false, alert: false)
        case .timeout:
            session.unknownExchanges.append(LoginSession.UnknownExchange(flow: flow, token: token, at: now))
            let meaning = "the exchange gave no answer: its result is unknown (it may have been billed); SMS now, the token is kept for reconciliation"
            apply(.switch, result: .exchangeTimeout, meaning: meaning, flow: flow, attempt: attempt, &session, &events, at: now, health: false)
        case .fault(let message):
            let text = String(message.prefix(200))
            apply(.fallback, result: .exchangeFailed(text), meaning: "the token exchange failed (\(text)): fall back", flow: flow, attempt: attempt,
                  &session, &events, at: now, health: false)
        case .tokenExpired:
            let lifetime = rules.lifetimes.entry(for: flow).map { "\(Int($0.lifetime.seconds)) s" } ?? "its lifetime"
            let meaning = "the token was older than \(lifetime), so it was not sent to the exchange: run the flow once more"
            apply(.retry, result: .tokenExpired, meaning: meaning, flow: flow, attempt: attempt, &session, &events, at: now, health: false)
        case .replayed:
            let meaning = "the token had been exchanged already (a replay), so it was not sent again: SMS now"
            apply(.switch, result: .tokenReplayed, meaning: meaning, flow: flow, attempt: attempt, &session, &events, at: now, health: false)
        }
    }

    // MARK: The rules of moving on

    /// Applies an action after a flow's attempt: the trace, alerts, health, and where the login goes.
    private func apply(
        _ action: OutcomeAction, result: LoginStep.Result, meaning: String, flow: LoginFlow, attempt: Int, _ session: inout LoginSession,
        _ events: inout [LoginEvent], at now: Date, health: Bool = true, alert: Bool = true
    ) {
        if health, attempt > 0 { recordHealth(flow, action, session.plan.carrier, at: now) }
        let (step, note) = engine.step(for: action, after: flow, in: session.plan.flows, attempt: max(attempt, 1))
        // A retry after the retry was used up moves on: the trace shows what happened.
        let effective: OutcomeAction = note == .retriesExhausted ? .fallback : action
        let suffix = note == .retriesExhausted ? " (retried already: fall back)" : ""
        record(LoginStep(flow: flow, attempt: attempt, result: result, action: effective, meaning: meaning + suffix, next: step), &session, &events)
        if alert, action == .misconfigured {
            let raised = LoginAlert(flow: flow, code: result.code, meaning: meaning)
            session.alerts.append(raised)
            events.append(.alert(raised))
        }
        switch step {
        case .finish(let ending):
            finish(ending, flow: flow, &session, &events)
        case .retry(let same):
            session.stage = .flow(same, attempt: attempt + 1)
            events.append(.flowStarted(flow: same, attempt: attempt + 1))
        case .attempt(let following):
            events.append(.fallback(from: flow, to: following, action: effective))
            enter(following, &session, &events, at: now)
        case .wait, .exchange:
            break  // not reached: progress and success are handled before
        }
    }

    /// Moves to a flow, skipping one-tap flows whose circuit is open.
    private func enter(_ flow: LoginFlow, _ session: inout LoginSession, _ events: inout [LoginEvent], at now: Date) {
        var flow = flow
        while flow.isOneTap, let health, health.admit(flow, for: session.plan.carrier, at: now) == .rejected {
            let reason = "the \(session.plan.carrier) \(flow) channel is failing; its circuit is open"
            let (step, _) = engine.step(for: .fallback, after: flow, in: session.plan.flows, attempt: 1)
            record(LoginStep(flow: flow, attempt: 0, result: .circuitOpen, action: .fallback, meaning: reason, next: step), &session, &events)
            guard case .attempt(let following) = step else {
                finish(.failed, flow: flow, &session, &events)
                return
            }
            events.append(.fallback(from: flow, to: following, action: .fallback))
            flow = following
        }
        session.stage = .flow(flow, attempt: 1)
        events.append(.flowStarted(flow: flow, attempt: 1))
    }

    /// Adds a step to the trace, and its `result` event: every step is told once.
    private func record(_ step: LoginStep, _ session: inout LoginSession, _ events: inout [LoginEvent]) {
        session.trace.append(step)
        events.append(.result(step))
    }

    private func finish(_ ending: Decision.Ending, flow: LoginFlow?, _ session: inout LoginSession, _ events: inout [LoginEvent]) {
        session.stage = .ended(ending, flow: flow)
        switch ending {
        case .success: events.append(.succeeded(flow: flow ?? .sms))
        case .cancelled: events.append(.cancelled(flow: flow))
        case .failed: events.append(.failed(flow: flow, meaning: session.trace.last?.meaning ?? "no flow could run"))
        }
    }

    private func recordHealth(_ flow: LoginFlow, _ action: OutcomeAction, _ carrier: Carrier, at now: Date) {
        guard flow.isOneTap, let health else { return }
        health.record(flow, for: carrier, action: action, at: now)
    }

    /// The instruction a session's stage stands for (an exchange's is made where its credential is).
    private func instruction(_ session: LoginSession) -> LoginInstruction {
        switch session.stage {
        case .flow(.sms, _): .sms
        case .flow(let flow, let attempt): .run(flow, attempt: attempt)
        case .exchange(let flow, _, _, _): .done(.failed, flow: flow, verified: nil)  // not reached: exchanges answer at once
        case .ended(let ending, let flow): .done(ending, flow: flow, verified: ending == .success ? session.verified : nil)
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
    public let events: [LoginEvent]
    /// The action the login interrupted, handed back once when the login succeeded in time: continue it
    /// (its key makes a retried continuation idempotent).
    public let continued: PendingAction?

    init(session: LoginSession, instruction: LoginInstruction, events: [LoginEvent], continued: PendingAction? = nil) {
        self.session = session
        self.instruction = instruction
        self.events = events
        self.continued = continued
    }

    /// What the events belong to: the session's ``LoginSession/context``.
    public var context: LoginContext { session.context }
}
