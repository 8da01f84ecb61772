// The rules of a login, applied to a session: what a report leads to, what an exchange's answer leads
// to, and how a login moves from flow to flow. `LoginSessionMachine` checks a report before it comes here;
// nothing here fails after a change was made.

extension LoginSessionMachine {
    /// A start or a report being applied: the session as it becomes, what happened, and what the circuit
    /// breaker should learn.
    struct Progress {
        var session: LoginSession
        var events: [LoginEvent]
        var channelReports: [ChannelReport] = []
        /// What the breaker said of each channel when the start or report came in.
        let channels: ChannelAdmissions
        let now: Date

        init(session: LoginSession, events: [LoginEvent], channels: ChannelAdmissions, now: Date) {
            self.session = session
            self.events = events
            self.channels = channels
            self.now = now
        }

        /// The transition, made from the progress without copying it (its session and events move).
        consuming func transition(_ instruction: LoginInstruction, continued: PendingAction? = nil) -> LoginTransition {
            LoginTransition(session: session, instruction: instruction, events: events, channelReports: channelReports, continued: continued)
        }
    }

    /// Applies a checked report: the session's next stage, the trace, the events.
    /// - Returns: What to do next.
    func apply(_ report: LoginReport, to progress: inout Progress) throws(LoginRejection) -> LoginInstruction {
        // The id only: a copy of the whole session would share its arrays with `progress`, and the
        // first change to them would copy each.
        let id = progress.session.id
        func reject(_ kind: LoginRejection.Kind, _ message: String) -> LoginRejection {
            LoginRejection(kind, session: id, message)
        }
        switch progress.session.stage {
        case .ended:
            throw reject(.ended, "the login is over")
        case .exchange(let flow, let attempt, let token, _):
            guard case .exchange(let outcome) = report else {
                throw reject(.unexpected, "the server is exchanging the \(flow) token; the app has nothing to report until it answers")
            }
            guard outcome.token == token else {
                throw reject(.unexpected, "the exchange answer is not bound to the token this session is exchanging")
            }
            answerExchange(
                outcome.answer, flow: flow, attempt: attempt, token: token, carrierUnreached: outcome.carrierUnreached, saysNothingOfTheChannel: outcome.saysNothingOfTheChannel,
                &progress)
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
                    progress.events = [.progress(flow: flow, code: code.text)]
                    return instruction(progress.session)
                }
                if outcome.action == .success {
                    return try succeed(flow: flow, attempt: attempt, code: code, meaning: outcome.meaningEN, credential: credential, &progress)
                }
                let suffix = outcome.isDefault ? " (an unlisted code: the flow's default)" : ""
                apply(outcome.action, result: .code(code), meaning: outcome.meaningEN + suffix, flow: flow, attempt: attempt, &progress)
            case .timeout:
                apply(.fallback, result: .timeout, meaning: "no answer in time: fall back", flow: flow, attempt: attempt, &progress)
            case .fault(_, let message):
                // A client's text: numbers masked, kept short and without control or format characters (it reaches
                // events, logs and terminals).
                let text = PhoneNumber.maskingNumbers(in: message, limit: 200)
                apply(.fallback, result: .providerError(text), meaning: "the provider failed (\(text)): fall back", flow: flow, attempt: attempt, &progress)
            case .unavailable:
                // Nothing was attempted, so nothing counts against the channel; but the probe the client holds is freed, as
                // a cancel frees it (held, it kept a slot for the probe's whole time limit).
                self.report(flow, .cancelled, .client, &progress)
                apply(.fallback, result: .unavailable, meaning: "no provider can run \(flow) now (none is configured, or its SDK still runs an earlier call)", flow: flow, attempt: 0, &progress)
            case .switchToSMS:
                apply(.switch, result: .switched, meaning: "the user chose SMS", flow: flow, attempt: attempt, &progress)
            case .cancel(_, let reason):
                let meaning = switch reason {
                case .user: "the user backed out"
                case .noPhoneNumber: "the user gave no phone number for SMS login"
                case .caller: "the login was cancelled"
                }
                // A cancel, whoever made it, counts nothing against the channel and frees a probe the login held.
                apply(.cancelled, result: .abandoned(reason), meaning: meaning, flow: flow, attempt: attempt, &progress, health: .client)
            case .smsVerified(let verdict):
                guard verdict.session == id else {
                    throw reject(.unverifiedSMS, verdict.session == nil
                        ? "the SMS code was sent for no login session; only a code sent for this session completes it"
                        : "the SMS verdict belongs to another login session")
                }
                // The trace shows the SMS flow's success code (a replacement table without one: `0`, the built-in row's).
                let code = engine.outcomeTable.successCode(for: .sms) ?? "0"
                record(LoginStep(flow: .sms, attempt: attempt, result: .code(code), action: .success, meaning: "the SMS code was verified", next: .finish(.success)),
                       &progress)
                progress.session.verified = VerifiedLogin(phoneNumber: verdict.phoneNumber)
                finish(.success, flow: .sms, &progress)
            case .exchange:
                throw reject(.unexpected, "no exchange is under way")
            }
        }
        progress.session.version += 1
        return instruction(progress.session)
    }

    /// A one-tap success report: the token goes to the exchange (on the server), or the login ends.
    private func succeed(
        flow: LoginFlow, attempt: Int, code: ResultCode, meaning: String, credential: CarrierCredential?, _ progress: inout Progress
    ) throws(LoginRejection) -> LoginInstruction {
        let id = progress.session.id
        if flow == .sms {
            throw LoginRejection(.unverifiedSMS, session: id, "SMS succeeds only with the SMS code service's verdict, not with a code from the client")
        }
        if let credential, credential.flow != flow {
            throw LoginRejection(.wrongFlow, session: id, "the credential is \(credential.flow)'s; the report is for \(flow), whose exchange and token lifetime differ")
        }
        guard let credential, missing(in: credential, for: flow) == nil else {
            let absent = missing(in: credential, for: flow) ?? "a credential"
            apply(.fallback, result: .incomplete(code: code, missing: absent), meaning: "a success code without \(absent): a provider fault, fall back",
                  flow: flow, attempt: attempt, &progress)
            progress.session.version += 1
            return instruction(progress.session)
        }
        let digest = credential.tokenDigest
        if progress.session.exchangedTokens.contains(digest) {
            throw LoginRejection(.alreadyExchanged, session: id, "this \(flow) token was reported before; a token is exchanged once")
        }
        progress.session.version += 1
        guard exchanges != nil else {
            // No server exchange: the client's success is all there is (a device's coordinator ran it itself).
            report(flow, .success, .client, &progress)
            record(LoginStep(flow: flow, attempt: attempt, result: .code(code), action: .success, meaning: meaning, next: .finish(.success)), &progress)
            finish(.success, flow: flow, &progress)
            return .done(.success, flow: flow, verified: nil)
        }
        record(LoginStep(flow: flow, attempt: attempt, result: .code(code), action: .success, meaning: meaning + ": exchange the token", next: .exchange(flow)),
               &progress)
        progress.session.exchangedTokens.append(digest)
        progress.session.stage = .exchange(flow, attempt: attempt, token: digest, receivedAt: LoginSession.stored(progress.now))
        return .exchange(credential)
    }

    /// What a success report lacks for its flow, or nil when it has it all (a repeat that recovers an exchange is held
    /// to it too: ``exchangeToRecover(_:_:version:at:)``).
    func missing(in credential: CarrierCredential?, for flow: LoginFlow) -> String? {
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
}

// MARK: The exchange's answer

extension LoginSessionMachine {
    /// An answer of the server's exchange of a success's token: success with the number ends the login;
    /// anything else moves on by `Data/exchange-codes.csv` or the answer's own rule. A fault counts for the
    /// breaker as the server's word only when the carrier was left unreached (`carrierUnreached`).
    private func answerExchange(
        _ answer: ExchangeAnswer, flow: LoginFlow, attempt: Int, token: SHA256Digest, carrierUnreached: Bool, saysNothingOfTheChannel: Bool,
        _ progress: inout Progress
    ) {
        let rules = exchanges ?? .builtIn
        switch answer {
        case .answered(let code, let number, let account):
            let entry = rules.entry(for: flow, code: code)
            if entry.action == .success {
                guard let number else {
                    report(flow, .failed, .client, &progress)
                    apply(.fallback, result: .exchangeFailed("a success without the number"), meaning: "the exchange answered success without the number: fall back",
                          flow: flow, attempt: attempt, &progress, health: nil)
                    return
                }
                // A success counts once the carrier gave the number for the token: the server saw it.
                report(flow, .success, .server, &progress)
                record(LoginStep(flow: flow, attempt: attempt, result: .exchangeCode(code), action: .success, meaning: entry.meaningEN, next: .finish(.success)),
                       &progress)
                progress.session.verified = VerifiedLogin(phoneNumber: number, account: account)
                finish(.success, flow: flow, &progress)
                return
            }
            if entry.alert || entry.action == .misconfigured {
                alert(LoginAlert(flow: flow, code: LoginStep.Answer.exchangeCode(code).code, meaning: entry.meaningEN), &progress)
            }
            let suffix = entry.code == nil ? " (an unlisted exchange code: the flow's default)" : ""
            // The carrier judged a token the client supplied: a failure counts as the client's word (a made-up
            // token earns a failure code); a spent or stale token (`retry`) says nothing of the channel.
            if entry.action != .retry { report(flow, .failed, .client, &progress) }
            apply(entry.action, result: .exchangeCode(code), meaning: entry.meaningEN + suffix, flow: flow, attempt: attempt, &progress, health: nil, alert: false)
        case .timeout:
            progress.session.unknownExchanges.append(LoginSession.UnknownExchange(flow: flow, token: token, at: progress.now))
            let meaning = "the exchange gave no answer: its result is unknown (it may have been billed); SMS now, the token is kept for reconciliation"
            reportFailedExchange(flow, seenBy: .server, saysNothingOfTheChannel: saysNothingOfTheChannel, &progress)  // the server's own time-out
            apply(.switch, result: .exchangeTimeout, meaning: meaning, flow: flow, attempt: attempt, &progress, health: nil)
        case .fault(let message):
            let text = PhoneNumber.maskingNumbers(in: message, limit: 200)
            // The carrier unreached is what the server saw; any other fault may come of the token the client
            // supplied (a made-up token the carrier answers with a body the adapter cannot read): its word.
            reportFailedExchange(flow, seenBy: carrierUnreached ? .server : .client, saysNothingOfTheChannel: saysNothingOfTheChannel, &progress)
            apply(.fallback, result: .exchangeFailed(text), meaning: "the token exchange failed (\(text)): fall back", flow: flow, attempt: attempt, &progress,
                  health: nil)
        case .tokenExpired:
            let lifetime = rules.lifetimes.entry(for: flow, gateway: rules.gateway(for: flow)).map { "\(Int($0.lifetime.seconds)) s" } ?? "its lifetime"
            let meaning = "the token was older than \(lifetime), so it was not sent to the exchange: run the flow once more"
            apply(.retry, result: .tokenExpired, meaning: meaning, flow: flow, attempt: attempt, &progress, health: nil)
        case .replayed:
            let meaning = "the token had been exchanged already (a replay), so it was not sent again: SMS now"
            apply(.switch, result: .tokenReplayed, meaning: meaning, flow: flow, attempt: attempt, &progress, health: nil)
        }
    }
}

// MARK: Moving on

extension LoginSessionMachine {
    /// Applies an action after a flow's attempt: the trace, alerts, health, and where the login goes.
    /// `health` says who saw the attempt end, for the breaker (a client's report by default); nil tells
    /// the breaker nothing (the exchange's answers tell it themselves).
    private func apply(
        _ action: OutcomeAction, result: LoginStep.Answer, meaning: String, flow: LoginFlow, attempt: Int, _ progress: inout Progress,
        health: ChannelReport.Source? = .client, alert raises: Bool = true
    ) {
        let (step, note) = engine.step(for: action, after: flow, in: progress.session.plan.flows, attempt: max(attempt, 1))
        // A retry after the retry was used up moves on: the trace shows what happened.
        let effective: OutcomeAction = note == .retriesExhausted ? .fallback : action
        // A retry says nothing of the channel: the attempt it leads to tells the breaker (a probe's slot stays with it
        // until then); one past the retries falls back, and counts as the attempt's failure.
        if let health, attempt > 0, effective != .retry { report(flow, effective, health, &progress) }
        let suffix = note == .retriesExhausted ? " (retried already: fall back)" : ""
        record(LoginStep(flow: flow, attempt: attempt, result: result, action: effective, meaning: meaning + suffix, next: step), &progress)
        if raises, action == .misconfigured {
            alert(LoginAlert(flow: flow, code: result.code, meaning: meaning), &progress)
        }
        switch step {
        case .finish(let ending):
            finish(ending, flow: flow, &progress)
        case .retry(let same):
            progress.session.stage = .flow(same, attempt: attempt + 1)
            progress.events.append(.flowStarted(flow: same, attempt: attempt + 1))
        case .attempt(let following):
            progress.events.append(.fallback(from: flow, to: following, action: effective))
            enter(following, &progress)
        case .wait, .exchange:
            break  // not reached: progress and success are handled before
        }
    }

    /// Moves to a flow, skipping one-tap flows whose circuit is open; entering a half-open circuit's flow
    /// makes this attempt its probe.
    func enter(_ flow: LoginFlow, _ progress: inout Progress) {
        var flow = flow
        let carrier = progress.session.plan.carrier
        while flow.isOneTap {
            let admission = progress.channels[flow, for: carrier]
            if admission == .probe { progress.channelReports.append(.probing(Channel(carrier: carrier, flow: flow))) }
            guard admission == .rejected else { break }
            let reason = "the \(carrier) \(flow) channel is failing; its circuit is open"
            let (step, _) = engine.step(for: .fallback, after: flow, in: progress.session.plan.flows, attempt: 1)
            record(LoginStep(flow: flow, attempt: 0, result: .circuitOpen, action: .fallback, meaning: reason, next: step), &progress)
            guard case .attempt(let following) = step else {
                finish(.failed, flow: flow, &progress)
                return
            }
            progress.events.append(.fallback(from: flow, to: following, action: .fallback))
            flow = following
        }
        progress.session.stage = .flow(flow, attempt: 1)
        progress.events.append(.flowStarted(flow: flow, attempt: 1))
    }

    /// Adds a step to the trace, and its `result` event: every step is told once.
    private func record(_ step: LoginStep, _ progress: inout Progress) {
        progress.session.trace.append(step)
        // A recorded step is followed by one or two more events (a fallback and the next flow's start, or the
        // end): room for four at once, rather than growing the array at each (1, 2, then 4).
        if progress.events.capacity == 0 { progress.events.reserveCapacity(4) }
        progress.events.append(.result(step))
    }

    /// Raises an operator alert.
    private func alert(_ alert: LoginAlert, _ progress: inout Progress) {
        progress.session.alerts.append(alert)
        progress.events.append(.alert(alert))
    }

    private func finish(_ ending: Decision.Ending, flow: LoginFlow?, _ progress: inout Progress) {
        progress.session.stage = .ended(ending, flow: flow)
        switch ending {
        case .success: progress.events.append(.succeeded(flow: flow ?? .sms))
        case .cancelled: progress.events.append(.cancelled(flow: flow))
        case .failed: progress.events.append(.failed(flow: flow, meaning: progress.session.trace.last?.meaning ?? "no flow could run"))
        }
    }

    /// Tells the breaker how an attempt of a one-tap flow ended, and who saw it.
    private func report(_ flow: LoginFlow, _ action: OutcomeAction, _ source: ChannelReport.Source, _ progress: inout Progress) {
        guard flow.isOneTap else { return }
        progress.channelReports.append(.ended(Channel(carrier: progress.session.plan.carrier, flow: flow), action, source))
    }

    /// An exchange that gave no usable answer, for the breaker: a failure in `source`'s word, unless it says nothing
    /// of the channel (``ExchangeOutcome/saysNothingOfTheChannel``: the caller went away, before the send or while the
    /// answer was awaited, or the device's ledger failed before any send), which only frees a probe the caller held,
    /// as a user's cancel does.
    private func reportFailedExchange(_ flow: LoginFlow, seenBy source: ChannelReport.Source, saysNothingOfTheChannel: Bool, _ progress: inout Progress) {
        report(flow, saysNothingOfTheChannel ? .cancelled : .failed, saysNothingOfTheChannel ? .client : source, &progress)
    }

    /// The instruction a session's stage stands for (an exchange's is made where its credential is).
    func instruction(_ session: LoginSession) -> LoginInstruction {
        switch session.stage {
        case .flow(.sms, _): .sms
        case .flow(let flow, let attempt): .run(flow, attempt: attempt)
        case .exchange(let flow, _, _, _): .done(.failed, flow: flow, verified: nil)  // not reached: exchanges answer at once
        case .ended(let ending, let flow): .done(ending, flow: flow, verified: ending == .success ? session.verified : nil)
        }
    }
}
