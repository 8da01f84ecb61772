/// Runs a whole login on the device (or in a simulation, or a test): the `LoginDriver` loop over
/// ``LoginSessionMachine``, answering each request by calling the carrier SDKs behind their provider
/// protocols. Every rule of the login is the machine's; this actor only carries them out.
///
/// - Each provider call has a time limit (``FlowTimeouts``; 8 s for each one-tap flow). A call that does
///   not answer becomes a timeout report, which falls back. A one-tap call's limit gives way to the page's
///   (5 minutes) at the first progress code its provider tells (China Mobile's `200087`: the page is shown;
///   the user's time is their own), and that code goes to the login as its `progress` report. A call that answers a progress code as
///   its result is the provider's fault (it falls back), never called again at once.
/// - An SDK call that outlived its login (timed out, or cancelled, and still running in the SDK) is not
///   overlapped: until it ends (at most ``FlowTimeouts`` `hold` after the login gave up on it), later logins find that flow
///   unavailable (they fall back, the breaker told nothing) without calling it (China Mobile's SDK answers a
///   call that overlaps another "busy").
/// - A flow without a provider is reported unavailable (it falls back).
/// - With an exchange provider, a one-tap success is exchanged through an ``ExchangeGuard`` under the
///   flow's time limit, by the machine's exchange rules, as on the server: a token older than its
///   lifetime (`Data/token-lifetimes.csv`) is not sent (the flow runs once more), and a token is sent
///   at most once (the ``ExchangeLedger``, in memory by default, may be shared).
/// - Cancelling the calling task cancels the provider call in flight and ends the login as cancelled at
///   once (an exchange under way answers as unknown first: the carrier may have billed, so the token is
///   kept for reconciliation; the login ends cancelled at the next flow).
/// - One login at a time: a second concurrent ``login(_:phoneNumber:)`` is rejected with
///   ``LoginCoordinatorError/busy`` (China Mobile's SDK forbids concurrent calls, and the second caller's
///   device state may differ, so joining would be wrong).
/// - Every step emits an event (area `login`); the outcome carries the trace, so "why did this user get SMS?"
///   has an answer. Tokens never appear in events or descriptions.
public actor LoginCoordinator {
    /// The rules.
    package nonisolated let machine: LoginSessionMachine
    /// The engine the machine plans and classifies with.
    private nonisolated var engine: LoginDecisionEngine { machine.engine }
    private let providers: LoginProviders
    private let exchange: ExchangeGuard?
    private let health: ChannelHealth?
    private let timeouts: FlowTimeouts
    private let clock: any WallClock
    private let events: any EventSink
    private var running = false
    /// The one-tap SDK calls still running, those a login gave up on included.
    private let sdkCalls = SDKCalls()

    /// Creates a coordinator.
    /// - Parameters:
    ///   - engine: The decision engine; built-in tables by default.
    ///   - providers: The providers to call. With an exchange provider, a one-tap success is exchanged
    ///     for the number (through an ``ExchangeGuard``) before the login succeeds.
    ///   - timeouts: Per-flow time limits (an exchange has its flow's); the vendors' defaults.
    ///   - health: A channel-health tracker to skip failing channels, shared across logins; none by default.
    ///   - exchangeLedger: Which tokens were sent to the exchange; nil for a new in-memory ledger of this
    ///     coordinator's own (share one to refuse a token another coordinator sent).
    ///   - exchangeRules: What the exchange's answers mean and how long its tokens live; the built-in tables, each flow
    ///     read by its carrier's own rows. An aggregator's gateway as the exchange provider needs its rows for the flows
    ///     it exchanges (``ExchangeRules/serving(_:with:)``): under others the guard sends it nothing.
    ///   - clock: The time source (the exchange's token-age check runs on it too).
    ///   - events: Receives its events (area `login`); standard error by default.
    public init(
        engine: LoginDecisionEngine = LoginDecisionEngine(), providers: LoginProviders, timeouts: FlowTimeouts = FlowTimeouts(),
        health: ChannelHealth? = nil, exchangeLedger: (any ExchangeLedger)? = nil, exchangeRules: ExchangeRules = ExchangeRules(),
        clock: any WallClock = SystemClock(), events: any EventSink = StandardErrorEventSink.shared
    ) {
        // A device login may wait on a user for long: its session does not expire.
        machine = LoginSessionMachine(
            engine: engine, exchanges: providers.exchange == nil ? nil : exchangeRules, sessionLifetime: .seconds(366 * 86_400))
        self.providers = providers
        exchange = providers.exchange.map { ExchangeGuard(provider: $0, ledger: exchangeLedger ?? InMemoryExchangeLedger(), clock: clock) }
        self.health = health
        self.timeouts = timeouts
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
        try await login(plan: engine.plan(for: snapshot), phoneNumber: phoneNumber ?? snapshot.phoneHint, platform: snapshot.platform)
    }

    /// Runs a plan made beforehand.
    /// - Parameters:
    ///   - plan: The plan.
    ///   - phoneNumber: The number for SMS login, if known.
    ///   - platform: The app's platform, for the login's events.
    /// - Returns: How the login ended, with its trace.
    /// - Throws: ``LoginCoordinatorError/busy`` when a login is already running on this coordinator.
    package func login(plan: LoginPlan, phoneNumber: PhoneNumber? = nil, platform: Platform? = nil) async throws -> LoginOutcome {
        guard !running else { throw LoginCoordinatorError.busy }
        running = true
        defer { running = false }
        let started = clock.now()
        var driver = LoginDriver(machine, starting: plan, at: started, id: .random(), platform: platform, channels: admissions(at: started))
        emit(driver.transition, at: started)
        var number = phoneNumber
        var credential: CarrierCredential? = nil
        // The driver's loop, written here so the provider calls stay on this actor.
        while let request = driver.request {
            let report: LoginReport
            switch request {
            // The caller went away: whatever the login asks next (a flow without a provider included) ends it cancelled.
            case .run(let flow, _) where Task.isCancelled: report = .cancel(flow, reason: .caller)
            case .sms where Task.isCancelled: report = .cancel(.sms, reason: .caller)
            case .run(let flow, _):
                let call = await runOneTap(flow)
                if let (code, at) = call.progress { apply(.result(flow, code: code), at: at) }
                (report, credential) = (call.report, call.credential)
            case .exchange(let pending, let receivedAt): report = await exchange(pending, session: driver.session.id, receivedAt: receivedAt)
            case .sms(let session): (report, credential) = await runSMS(&number, session: session)
            }
            apply(report, at: clock.now())
        }
        return LoginOutcome(driver, credential: credential)

        func apply(_ report: LoginReport, at now: Date) {
            if let transition = driver.answer(report, at: now, channels: admissions(at: now)) {
                emit(transition, at: now)
            } else if let ending = driver.refusalEvent {
                events.receive(OneTapEvent(at: now, .login(ending, driver.session.context)))
            }
        }
    }

    // MARK: Calling the providers

    private struct Cancelled: Error {}

    /// Runs a provider call under the flow's time limit: its answer, or the report a timeout, a throw
    /// or the caller's cancellation makes.
    private func call<T: Sendable>(
        _ flow: LoginFlow, lift: Deadline.Lift? = nil, _ operation: @escaping @Sendable () async throws -> T
    ) async -> Result<T, Failure> {
        do {
            return .success(try await Deadline.run(limit: timeouts[flow], clock: clock, lift: lift, operation))
        } catch is TimeoutError {
            return .failure(Failure(report: .timeout(flow)))
        } catch {
            if Task.isCancelled { return .failure(Failure(report: .cancel(flow, reason: .caller))) }
            // The SMS page has no result code for a user who leaves it: its provider throws `CancellationError` (the
            // caller still waiting), and the login ends cancelled, not failed (a device attacker's read).
            if flow == .sms, error is CancellationError { return .failure(Failure(report: .cancel(flow, reason: .user))) }
            return .failure(Failure(report: .fault(flow, PhoneNumber.maskingNumbers(in: "\(error)", limit: 200))))
        }
    }

    /// A provider call that gave no answer, as the report it makes.
    private struct Failure: Error {
        let report: LoginReport
    }

    /// What a one-tap provider call came to: the first progress code it told and when, and its report.
    private struct OneTapCall {
        var progress: (code: ResultCode, at: Date)? = nil
        var report: LoginReport
        var credential: CarrierCredential? = nil
    }

    private func runOneTap(_ flow: LoginFlow) async -> OneTapCall {
        // A flow whose SDK still runs a call an earlier login gave up on is unavailable meanwhile, as one without a
        // provider: the carrier was not reached, so the breaker counts nothing (the call's own time-out counted).
        guard let provider = providers.oneTap(flow), !sdkCalls.isBusy(flow, at: clock.now()) else {
            return OneTapCall(report: .unavailable(flow))
        }
        let (engine, clock, sdkCalls) = (engine, clock, sdkCalls)
        let lift = Deadline.Lift(then: timeouts.page)
        let told = LockedValue<(code: ResultCode, at: Date)?>(nil)
        // The SDK's progress: the first progress code gives the call's limit way to the page's, and goes to the login when
        // the call ends (a code told after that is dropped).
        let progress = OneTapProgress({ code in
            guard engine.outcome(for: flow, code: code).action == .progress else { return }
            let now = clock.now()
            told.withLock { told in if told == nil { told = (code, now) } }
            lift.lift()
        }, pageShown: { lift.lift() })
        let ticket = sdkCalls.begin(flow, at: clock.now())
        let result = await call(flow, lift: lift) {
            // Not when the login was done with it (or cancelled) before it ran.
            guard !Task.isCancelled, sdkCalls.start(ticket) else { throw CancellationError() }
            defer { sdkCalls.end(ticket) }
            return try await provider.login(progress: progress)
        }
        sdkCalls.release(ticket, at: clock.now(), hold: timeouts.hold)
        let (report, credential) = oneTapReport(flow, result)
        return OneTapCall(progress: told.withLock { $0 }, report: report, credential: credential)
    }

    /// The report a one-tap provider call's result makes.
    private func oneTapReport(_ flow: LoginFlow, _ result: Result<OneTapResult, Failure>) -> (LoginReport, CarrierCredential?) {
        switch result {
        case .failure(let failure): return (failure.report, nil)
        case .success(let answer) where engine.outcome(for: flow, code: answer.resultCode).action == .progress:
            return (.fault(flow, "the \(flow) provider answered \(answer.resultCode), a progress code, as its result: the SDK's call may still run"), nil)
        case .success(let answer):
            // A credential counts only beside a success code, as the machine reads a report: a stray one beside any
            // other code (a user's cancel) is dropped, and the code stands.
            let credential = engine.outcome(for: flow, code: answer.resultCode).action == .success ? answer.credential : nil
            if let credential, credential.flow != flow {
                return (.fault(flow, "the \(flow) provider answered a credential of \(credential.flow)"), nil)
            }
            // A one-tap SDK hands over a token, never a verified number: the number is the exchange's answer.
            if credential?.phoneNumber != nil {
                return (.fault(flow, "the \(flow) provider answered a verified number; a one-tap number comes only from the exchange"), nil)
            }
            return (.result(flow, code: answer.resultCode, credential: credential), credential)
        }
    }

    /// Exchanges a success's token through the guard, under the flow's time limit, by the machine's rules.
    private func exchange(_ credential: CarrierCredential, session: LoginSessionID, receivedAt: Date) async -> LoginReport {
        guard let exchange, let rules = machine.exchanges else {
            return .exchange(ExchangeOutcome(.fault("no exchange is configured"), for: credential))  // not reached: no exchange, no request
        }
        do {
            // The flow's limit, or the guard's own where the flow has none: a carrier that never answers never holds
            // the login (a review: a flow without a limit left the exchange unbounded).
            let limit = timeouts[credential.flow] ?? exchange.timeout
            let outcome = try await exchange.exchange(credential, for: session, receivedAt: receivedAt, rules: rules, limit: limit, events: events)
            if Task.isCancelled, case .fault = outcome.answer {
                return .exchange(ExchangeOutcome(.fault("the caller stopped waiting"), for: credential, saysNothingOfTheChannel: true))
            }
            return .exchange(outcome)
        } catch {
            // No answer: the ledger failed on the claim (the token was not sent), or the caller stopped
            // waiting. On the device no one retries the report, so the login moves on: a fault, the token's
            // text scrubbed, that says nothing of the carrier's channel either way (as on the server, where a
            // store's failure tells the breaker nothing).
            let why = CallerCancellation.reads(error)
                ? "the caller stopped waiting" : "the exchange was not made: \(Secret.scrub("\(error)", of: [credential.token, credential.refreshToken]))"
            return .exchange(ExchangeOutcome(.fault(PhoneNumber.maskingNumbers(in: why, limit: 200)), for: credential, saysNothingOfTheChannel: true))
        }
    }

    /// The SMS page: the number (asked for when unknown), the code sent, the code verified. The SMS
    /// provider stands for the app's SMS page and its server, so its successful verification stands for
    /// the server's verdict.
    private func runSMS(_ number: inout PhoneNumber?, session: LoginSessionID) async -> (LoginReport, CarrierCredential?) {
        guard let provider = providers.sms else { return (.unavailable(.sms), nil) }
        if number == nil {
            switch await call(.sms, { try await provider.requestPhoneNumber() }) {
            case .failure(let failure): return (failure.report, nil)
            case .success(let given): number = given
            }
        }
        guard let target = number else { return (.cancel(.sms, reason: .noPhoneNumber), nil) }
        switch await call(.sms, { try await provider.sendCode(to: target) }) {
        case .failure(let failure): return (failure.report, nil)
        // Success is what the result-code table says it is (`Data/result-codes.csv`'s sms rows), as for the machine.
        case .success(let code) where engine.outcome(for: .sms, code: code).action != .success: return (smsReport(code, of: "sendCode"), nil)
        case .success: break
        }
        switch await call(.sms, { try await provider.verifyCode(for: target) }) {
        case .failure(let failure):
            return (failure.report, nil)
        case .success(let answer) where engine.outcome(for: .sms, code: answer.resultCode).action != .success:
            return (smsReport(answer.resultCode, of: "verifyCode"), nil)
        case .success(let answer):
            guard let token = answer.session, !token.isEmpty else { return (.fault(.sms, "a verified code without a session"), nil) }
            let verdict = SMSVerdict(phoneNumber: target, session: session, verifiedAt: clock.now())
            return (.smsVerified(verdict), CarrierCredential(flow: .sms, token: token, phoneNumber: target))
        }
    }

    /// The report of an SMS call that did not succeed. A progress code as its answer is the provider's fault, as a
    /// one-tap provider's is: the machine would wait on the SMS flow and run the page again, sending another code each
    /// time (a device attacker's read: three codes sent, then the login failed).
    /// - Parameters:
    ///   - code: The code it answered.
    ///   - call: `sendCode` or `verifyCode`.
    /// - Returns: The report.
    private func smsReport(_ code: ResultCode, of call: String) -> LoginReport {
        guard engine.outcome(for: .sms, code: code).action == .progress else { return .result(.sms, code: code) }
        return .fault(.sms, "the SMS provider's \(call) answered \(code), a progress code, as its result")
    }

    private func admissions(at now: Date) -> ChannelAdmissions {
        health?.admissions(at: now) ?? .allAllowed
    }

    private func emit(_ transition: LoginTransition, at now: Date) {
        health?.apply(transition.channelReports, at: now)
        let context = transition.context
        for event in transition.events { events.receive(OneTapEvent(at: now, .login(event, context))) }
    }
}
