/// Runs a login: walks a ``LoginPlan`` flow by flow over the carrier providers, applies the engine's
/// decision to every result, and ends in exactly one ``LoginOutcome``.
///
/// - Each provider call has a time limit (``FlowTimeouts``; 8 s for each one-tap flow). A call that does
///   not answer becomes a timeout, which falls back.
/// - `retry` re-runs the flow once; `fallback` moves to the next flow; `cancelled` ends the login as
///   cancelled (no SMS page is pushed on a user who backed out); `switch` goes to SMS; `failed` ends it
///   with the carrier's error; `misconfigured` falls back and raises an operator alert.
/// - Success needs what the flow promises: China Mobile's 103000 with a token and a uniqueid; Tianyi's
///   0 with an access token. A success code without them is a provider fault: fall back.
/// - Cancelling the calling task cancels the provider call in flight and ends the login as cancelled at
///   once.
/// - One login at a time: a second concurrent ``login(_:phoneNumber:)`` is rejected with
///   ``LoginCoordinatorError/busy`` (China Mobile's SDK forbids concurrent calls, and the second caller's
///   device state may differ, so joining would be wrong). A server makes one coordinator per request.
/// - Every step emits a ``LoginEvent``; the outcome carries the trace, so "why did this user get SMS?"
///   has an answer. Tokens never appear in events or descriptions.
public actor LoginCoordinator {
    /// The engine that plans and classifies.
    public nonisolated let engine: LoginDecisionEngine
    private let providers: LoginProviders
    private let timeouts: FlowTimeouts
    private let health: ChannelHealth?
    private let clock: any WallClock
    private let events: any EventSink
    private var running = false

    /// Creates a coordinator.
    /// - Parameters:
    ///   - engine: The decision engine; built-in tables by default.
    ///   - providers: The providers to call.
    ///   - timeouts: Per-flow time limits; the vendors' defaults.
    ///   - health: A channel-health tracker to skip failing channels, shared across requests; none by default.
    ///   - clock: The time source.
    ///   - events: Receives ``LoginEvent``s; standard error by default.
    public init(
        engine: LoginDecisionEngine = LoginDecisionEngine(), providers: LoginProviders, timeouts: FlowTimeouts = .vendorDefaults,
        health: ChannelHealth? = nil, clock: any WallClock = SystemClock(), events: any EventSink = StandardErrorEventSink.shared
    ) {
        self.engine = engine
        self.providers = providers
        self.timeouts = timeouts
        self.health = health
        self.clock = clock
        self.events = events
    }

    /// Plans a login for a device and runs it.
    /// - Parameters:
    ///   - snapshot: What the device reported.
    ///   - phoneNumber: The number for SMS login, if known (else the snapshot's hint, else the SMS
    ///     provider asks the user).
    /// - Returns: How the login ended, with its trace.
    /// - Throws: ``LoginCoordinatorError/busy`` when a login is already running on this coordinator.
    public func login(_ snapshot: DeviceSnapshot, phoneNumber: PhoneNumber? = nil) async throws -> LoginOutcome {
        try await login(plan: engine.plan(for: snapshot), phoneNumber: phoneNumber ?? snapshot.phoneHint)
    }

    /// Runs a plan made beforehand.
    /// - Parameters:
    ///   - plan: The plan.
    ///   - phoneNumber: The number for SMS login, if known.
    /// - Returns: How the login ended, with its trace.
    /// - Throws: ``LoginCoordinatorError/busy`` when a login is already running on this coordinator.
    public func login(plan: LoginPlan, phoneNumber: PhoneNumber? = nil) async throws -> LoginOutcome {
        guard !running else { throw LoginCoordinatorError.busy }
        running = true
        defer { running = false }
        emit(.planned(plan))
        return await run(plan, phoneNumber: phoneNumber)
    }

    // MARK: Running a plan

    /// What one attempt produced.
    private struct Attempt {
        var result: LoginStep.Result
        var credential: CarrierCredential? = nil
        var verified: VerifiedLogin? = nil
    }

    private struct Cancelled: Error {}

    private func run(_ plan: LoginPlan, phoneNumber: PhoneNumber?) async -> LoginOutcome {
        var trace: [LoginStep] = []
        var alerts: [LoginAlert] = []
        guard let first = plan.flows.first else {
            // A hand-made plan without flows: nothing can run.
            emit(.failed(flow: nil, meaning: "the plan has no flows"))
            return LoginOutcome(ending: .failed, flow: nil, plan: plan, trace: [], alerts: [], credential: nil, verified: nil)
        }
        var flow = first
        var attempt = 1
        var number = phoneNumber
        func finish(_ ending: Decision.Ending, _ flow: LoginFlow?, _ credential: CarrierCredential? = nil, _ verified: VerifiedLogin? = nil) -> LoginOutcome {
            switch ending {
            case .success: emit(.succeeded(flow: flow ?? .sms))
            case .cancelled: emit(.cancelled(flow: flow))
            case .failed: emit(.failed(flow: flow, meaning: trace.last?.meaning ?? "no flow could run"))
            }
            return LoginOutcome(ending: ending, flow: flow, plan: plan, trace: trace, alerts: alerts, credential: credential, verified: verified)
        }
        while true {
            if Task.isCancelled { return finish(.cancelled, trace.last?.flow) }
            // Skips: a failing channel, or a flow nobody provides.
            var skip: (LoginStep.Result, String)? = nil
            if !provided(flow) {
                skip = (.unavailable, "no provider is configured for \(flow)")
            } else if flow.isOneTap, let health {
                switch health.admit(flow, for: plan.carrier) {
                case .allowed, .probe: break  // a probe's answer closes or reopens the circuit in record(_:for:action:)
                case .rejected: skip = (.circuitOpen, "the \(plan.carrier) \(flow) channel is failing; its circuit is open")
                }
            }
            if let (result, meaning) = skip {
                let (next, _) = engine.step(for: .fallback, after: flow, in: plan.flows, attempt: attempt)
                trace.append(LoginStep(flow: flow, attempt: 0, result: result, action: .fallback, meaning: meaning, next: next))
                emit(.skipped(flow: flow, reason: meaning))
                guard case .attempt(let following) = next else { return finish(.failed, flow) }
                emit(.fallback(from: flow, to: following, action: .fallback))
                flow = following
                attempt = 1
                continue
            }

            emit(.flowStarted(flow: flow, attempt: attempt))
            let outcome: Attempt
            do {
                outcome = try await perform(flow, phoneNumber: &number)
            } catch {
                // The caller was cancelled: stop now, push nothing further on the user.
                trace.append(LoginStep(
                    flow: flow, attempt: attempt, result: .providerError("cancelled by the caller"), action: .cancelled,
                    meaning: "the login was cancelled", next: .finish(.cancelled)))
                return finish(.cancelled, flow)
            }

            // Classify.
            let action: OutcomeAction
            let meaning: String
            let next: Decision.Step
            var alert: LoginAlert? = nil
            switch outcome.result {
            case .code(let code):
                let decision = engine.decide(engine.outcome(for: flow, code: code), after: flow, in: plan.flows, attempt: attempt)
                // A retry code after the retry was used up moves on: the trace shows what happened.
                let effective: OutcomeAction = decision.note == .retriesExhausted ? .fallback : decision.outcome.action
                let suffix = decision.note == .retriesExhausted ? " (retried already: fall back)" : ""
                (action, meaning, next) = (effective, decision.outcome.meaningEN + suffix, decision.step)
                if decision.alert { alert = LoginAlert(flow: flow, code: code, meaning: meaning) }
            case .noPhoneNumber:
                (action, meaning, next) = (.cancelled, "the user gave no phone number for SMS login", .finish(.cancelled))
            default:
                let text: String
                switch outcome.result {
                case .timeout(let limit): text = "no answer within \(limit.seconds) s: fall back"
                case .incomplete(_, let missing): text = "a success code without \(missing): a provider fault, fall back"
                case .exchangeFailed(let message): text = "the token exchange failed (\(message)): fall back"
                case .providerError(let message): text = "the provider failed (\(message)): fall back"
                default: text = "\(outcome.result)"
                }
                action = .fallback
                meaning = text
                (next, _) = engine.step(for: .fallback, after: flow, in: plan.flows, attempt: attempt)
            }
            if flow.isOneTap, let health {
                // The carrier answered; an exchange failure is ours, not the channel's.
                if case .exchangeFailed = outcome.result { health.record(flow, for: plan.carrier, action: .success) }
                else { health.record(flow, for: plan.carrier, action: action) }
            }
            trace.append(LoginStep(flow: flow, attempt: attempt, result: outcome.result, action: action, meaning: meaning, next: next))
            if case .timeout(let limit) = outcome.result { emit(.timeout(flow: flow, after: limit)) }
            emit(.result(flow: flow, code: outcome.result.code, action: action, meaning: meaning))
            if let alert {
                alerts.append(alert)
                emit(.alert(alert))
            }
            switch next {
            case .finish(let ending):
                return finish(ending, flow, ending == .success ? outcome.credential : nil, ending == .success ? outcome.verified : nil)
            case .retry:
                attempt += 1
            case .attempt(let following):
                emit(.fallback(from: flow, to: following, action: action))
                flow = following
                attempt = 1
            }
        }
    }

    private func provided(_ flow: LoginFlow) -> Bool {
        switch flow {
        case .mobile: providers.mobile != nil
        case .tianyi: providers.tianyi != nil
        case .unicom: providers.unicom != nil
        case .sms: providers.sms != nil
        }
    }

    /// Calls a flow's provider with its time limit.
    /// - Throws: ``Cancelled`` only when the calling task was cancelled.
    private func perform(_ flow: LoginFlow, phoneNumber: inout PhoneNumber?) async throws -> Attempt {
        let limit = timeouts[flow]
        do {
            switch flow {
            case .mobile:
                let provider = providers.mobile!
                let answer = try await Deadline.run(limit: limit, clock: clock) { try await provider.login() }
                guard engine.outcomeTable.action(for: .mobile, code: answer.resultCode) == .success else { return Attempt(result: .code(answer.resultCode)) }
                guard let token = answer.token, !token.isEmpty else { return Attempt(result: .incomplete(code: answer.resultCode, missing: "a token")) }
                guard let uniqueID = answer.uniqueID, !uniqueID.isEmpty else {
                    return Attempt(result: .incomplete(code: answer.resultCode, missing: "a uniqueid"))
                }
                let credential = CarrierCredential(flow: .mobile, token: token, uniqueID: uniqueID, maskedNumber: answer.maskedNumber)
                return try await exchange(credential, code: answer.resultCode, limit: limit)
            case .tianyi:
                let provider = providers.tianyi!
                let answer = try await Deadline.run(limit: limit, clock: clock) { try await provider.login() }
                guard engine.outcomeTable.action(for: .tianyi, code: answer.resultCode) == .success else { return Attempt(result: .code(answer.resultCode)) }
                guard let token = answer.accessToken, !token.isEmpty else {
                    return Attempt(result: .incomplete(code: answer.resultCode, missing: "an accessToken"))
                }
                let credential = CarrierCredential(flow: .tianyi, token: token, refreshToken: answer.refreshToken, expiresIn: answer.expiresIn)
                return try await exchange(credential, code: answer.resultCode, limit: limit)
            case .unicom:
                let provider = providers.unicom!
                let answer = try await Deadline.run(limit: limit, clock: clock) { try await provider.login() }
                guard engine.outcomeTable.action(for: .unicom, code: answer.resultCode) == .success else { return Attempt(result: .code(answer.resultCode)) }
                guard let token = answer.accessCode, !token.isEmpty else {
                    return Attempt(result: .incomplete(code: answer.resultCode, missing: "an access code"))
                }
                let credential = CarrierCredential(flow: .unicom, token: token, expiresIn: answer.expiresIn)
                return try await exchange(credential, code: answer.resultCode, limit: limit)
            case .sms:
                let provider = providers.sms!
                if phoneNumber == nil {
                    phoneNumber = try await Deadline.run(limit: limit, clock: clock) { try await provider.requestPhoneNumber() }
                }
                guard let number = phoneNumber else { return Attempt(result: .noPhoneNumber) }
                let sent = try await Deadline.run(limit: limit, clock: clock) { try await provider.sendCode(to: number) }
                guard sent.value == 0 else { return Attempt(result: .code(sent)) }
                let verified = try await Deadline.run(limit: limit, clock: clock) { try await provider.verifyCode(for: number) }
                guard engine.outcomeTable.action(for: .sms, code: verified.resultCode) == .success else { return Attempt(result: .code(verified.resultCode)) }
                guard let session = verified.session, !session.isEmpty else {
                    return Attempt(result: .incomplete(code: verified.resultCode, missing: "a session"))
                }
                return Attempt(
                    result: .code(verified.resultCode), credential: CarrierCredential(flow: .sms, token: session, phoneNumber: number),
                    verified: VerifiedLogin(phoneNumber: number))
            }
        } catch let error as TimeoutError {
            return Attempt(result: .timeout(error.limit))
        } catch {
            if Task.isCancelled { throw Cancelled() }
            return Attempt(result: .providerError(String("\(error)".prefix(200))))
        }
    }

    /// Exchanges a one-tap credential for the verified number, when an exchange is configured.
    private func exchange(_ credential: CarrierCredential, code: ResultCode, limit: Duration?) async throws -> Attempt {
        guard let exchange = providers.exchange else { return Attempt(result: .code(code), credential: credential) }
        do {
            let verified = try await Deadline.run(limit: limit, clock: clock) { try await exchange.exchange(credential) }
            return Attempt(result: .code(code), credential: credential, verified: verified)
        } catch {
            if Task.isCancelled { throw Cancelled() }
            let message = Secret.scrub("\(error)", of: [credential.token, credential.refreshToken])
            return Attempt(result: .exchangeFailed(String(message.prefix(200))))
        }
    }

    private func emit(_ event: LoginEvent) {
        events.receive(OneTapEvent(at: clock.now(), .login(event)))
    }
}
