/// Drives one login through a ``LoginSessionMachine``: the instruction → report → advance loop that the
/// device-side `LoginCoordinator`, `onetap simulate`, the traffic generator and `onetap session`'s
/// transcripts share. The caller only says how to answer what the login asks for (by calling providers
/// under their time limits, from a script, by seeded draws, from the next transcript line); the driver
/// holds the machine and the current transition and owns the rest:
///
/// - what the login asks for next (``request``: a flow to run, the SMS step, a token to exchange), and
///   when it is done (``end``);
/// - applying an answer (``answer(_:at:channels:)``): the breaker's admissions go in, and the
///   transition that comes back carries the channel reports for whoever applies them once it is kept
///   (`ChannelHealth.apply` in `OneTap`);
/// - a refusal of an answer: the driver's caller answers only what the session waits for, so the machine
///   refusing it is a defect of that caller or of what it called (a provider that hands back a token it
///   gave earlier in the login, say). The drive stops, the login counts as failed at the flow it stood
///   at, and ``refusal`` says why;
/// - how the login ended (``end``): its ending, flow, verified login and the pending action handed
///   back; the trace and alerts are the session's;
/// - a flow whose answers keep the login waiting: a `progress` code (`Data/result-codes.csv`: China Mobile's
///   200087 page shown, 200029/200089 busy with an earlier call) changes nothing, and a caller that runs the
///   flow again at once would loop for as long as the SDK stays busy. The ``progressLimit``-th `progress`
///   answer in a row is applied as the SDK's fault instead, which falls back. (A report from outside, through
///   ``take(_:version:at:channels:)``, is applied as it came: a transcript replays what a client sent.)
///
/// A report that comes from outside and may be refused (a transcript's line) goes through
/// ``take(_:version:at:channels:)`` instead, which throws and changes nothing.
///
/// Pure and synchronous, like the machine. ``run(admissions:answering:applied:)`` is the whole loop for a
/// caller whose answers are values; an async caller (the coordinator, an actor whose provider calls
/// must stay on it) writes the same loop over ``request`` and ``answer(_:at:channels:)`` with `await`s
/// in it, rather than hand a closure to code outside its isolation.
package struct LoginDriver: Sendable {
    /// What the login asks its caller for next.
    package enum Request: Sendable, CustomStringConvertible {
        /// Run this attempt of a one-tap flow and report what it answered.
        case run(LoginFlow, attempt: Int)
        /// Run the SMS step of this session and report the verdict (or what stopped it).
        case sms(LoginSessionID)
        /// Exchange this credential's token (its success report was received at `receivedAt`) and
        /// report the exchange's answer.
        case exchange(CarrierCredential, receivedAt: Date)

        /// `run mobile (attempt 1)`, `sms`, `exchange mobile`; never a token.
        package var description: String {
            switch self {
            case .run(let flow, let attempt): "run \(flow) (attempt \(attempt))"
            case .sms: "sms"
            case .exchange(let credential, _): "exchange \(credential.flow)"
            }
        }
    }

    /// How a driven login ended.
    package struct End: Sendable {
        /// success, cancelled or failed (failed too when the machine refused an answer).
        package let ending: Decision.Ending
        /// The flow that ended it (the flow it stood at when an answer was refused), or nil when it
        /// ended before any.
        package let flow: LoginFlow?
        /// Who logged in, on a success that verified the number.
        package let verified: VerifiedLogin?
        /// The action the login interrupted, handed back on success (continue it).
        package let continued: PendingAction?
        /// The machine's refusal of an answer, when that ended the drive.
        package let refusal: LoginRejection?
    }

    /// The rules.
    package let machine: LoginSessionMachine
    /// The transition the login is at: the session, its instruction, the last answer's events and
    /// channel reports.
    package private(set) var transition: LoginTransition
    /// The machine's refusal of an answer, which stopped the drive; nil while none.
    package private(set) var refusal: LoginRejection? = nil
    /// How many answers in a row were `progress` codes (each left the session as it was).
    private var progressInARow = 0

    /// The `progress` answer in a row that ends the flow as the SDK's fault: 3 (the page shown, then one
    /// overlap with an earlier call, may be honest; a third means the SDK is stuck).
    package static let progressLimit = 3

    /// Starts a login for a device (``LoginSessionMachine/start(_:at:id:pending:channels:)``).
    /// - Parameters:
    ///   - machine: The rules.
    ///   - snapshot: What the device reported.
    ///   - now: The time.
    ///   - id: The session's id.
    ///   - pending: The action a login gate interrupted, if any.
    ///   - channels: What the circuit breaker says of each channel now.
    package init(
        _ machine: LoginSessionMachine, starting snapshot: DeviceSnapshot, at now: Date, id: LoginSessionID, pending: PendingAction? = nil,
        channels: ChannelAdmissions = .allAllowed
    ) {
        self.machine = machine
        transition = machine.start(snapshot, at: now, id: id, pending: pending, channels: channels)
    }

    /// Starts a login on a plan made beforehand (``LoginSessionMachine/start(plan:at:id:platform:channels:)``).
    /// - Parameters:
    ///   - machine: The rules.
    ///   - plan: The plan.
    ///   - now: The time.
    ///   - id: The session's id.
    ///   - platform: The app's platform, for the login's events.
    ///   - channels: What the circuit breaker says of each channel now.
    package init(
        _ machine: LoginSessionMachine, starting plan: LoginPlan, at now: Date, id: LoginSessionID, platform: Platform? = nil,
        channels: ChannelAdmissions = .allAllowed
    ) {
        self.machine = machine
        transition = machine.start(plan: plan, at: now, id: id, platform: platform, channels: channels)
    }

    /// The session as it is now.
    package var session: LoginSession { transition.session }

    /// What the login asks for next, or nil when the drive is over (the login ended, or an answer was
    /// refused).
    package var request: Request? {
        guard refusal == nil else { return nil }
        switch transition.instruction {
        case .run(let flow, let attempt):
            return .run(flow, attempt: attempt)
        case .sms:
            return .sms(session.id)
        case .exchange(let credential):
            guard case .exchange(_, _, _, let receivedAt) = session.stage else { return nil }  // not reached: the machine asks at the exchange stage
            return .exchange(credential, receivedAt: receivedAt)
        case .done:
            return nil
        }
    }

    /// How the login ended, or nil while the drive goes on.
    package var end: End? {
        if let refusal {
            return End(ending: .failed, flow: session.flow, verified: nil, continued: nil, refusal: refusal)
        }
        guard case .done(let ending, let flow, let verified) = transition.instruction else { return nil }
        return End(ending: ending, flow: flow, verified: verified, continued: transition.continued, refusal: nil)
    }

    /// The event that closes a drive a refusal stopped (the machine emits the ending of every other login):
    /// `failed` at the flow it stood at, saying why, so an event stream never leaves the login open.
    package var refusalEvent: LoginEvent? {
        refusal.map { .failed(flow: session.flow, meaning: "the session machine refused an answer (\($0.kind)): \($0.message)") }
    }

    /// Applies the caller's answer to the current ``request``. A refusal stops the drive (see
    /// ``refusal``); nothing else changes then.
    /// - Parameters:
    ///   - report: What the caller's answer came to.
    ///   - now: When it was made.
    ///   - channels: What the circuit breaker says of each channel now; every channel allowed by default.
    /// - Returns: The transition it made (its events to emit and channel reports to apply), or nil when
    ///   it was refused or the drive was over.
    /// - Complexity: O(*n*) in the plan's flows; no I/O.
    @discardableResult
    package mutating func answer(_ report: LoginReport, at now: Date, channels: ChannelAdmissions = .allAllowed) -> LoginTransition? {
        guard request != nil else { return nil }
        var report = report
        if case .result(let flow, let code, _) = report, machine.engine.outcome(for: flow, code: code).action == .progress {
            progressInARow += 1
            if progressInARow >= Self.progressLimit {
                progressInARow = 0
                report = .fault(flow, "the SDK answered \(code) (progress) \(Self.progressLimit) times in a row: it is stuck")
            }
        } else {
            progressInARow = 0
        }
        do {
            transition = try machine.advance(transition.session, report, at: now, channels: channels)
            return transition
        } catch {
            refusal = error
            return nil
        }
    }

    /// Applies a report from outside, which the session may refuse (a transcript's line).
    /// - Parameters:
    ///   - report: What happened.
    ///   - version: The version the report was made for, if it names one.
    ///   - now: The time.
    ///   - channels: What the circuit breaker says of each channel now; every channel allowed by default.
    /// - Returns: The transition it made.
    /// - Throws: ``LoginRejection`` when the session cannot take it; nothing changed then, and the drive
    ///   goes on.
    @discardableResult
    package mutating func take(
        _ report: LoginReport, version: Int?, at now: Date, channels: ChannelAdmissions = .allAllowed
    ) throws(LoginRejection) -> LoginTransition {
        transition = try machine.advance(transition.session, report, version: version, at: now, channels: channels)
        return transition
    }

    /// Drives the login to its end: asks `answering` for each request's report, applies it, and hands
    /// each transition to `applied`.
    /// - Parameters:
    ///   - admissions: What the circuit breaker says of each channel at an instant; every channel allowed
    ///     by default.
    ///   - answering: The report answering a request and when it was made, or nil to stop here (the
    ///     login is left where it stands: an app that went away).
    ///   - applied: Called with every transition an answer made and its instant: emit its events, apply
    ///     its channel reports.
    /// - Throws: What `answering` throws; the drive stops there.
    package mutating func run<Failure: Error>(
        admissions: (Date) -> ChannelAdmissions = { _ in .allAllowed },
        answering: (Request) throws(Failure) -> (report: LoginReport, at: Date)?,
        applied: (LoginTransition, Date) -> Void = { _, _ in }
    ) throws(Failure) {
        while let request, case let (report, now)? = try answering(request) {
            if let transition = answer(report, at: now, channels: admissions(now)) { applied(transition, now) }
        }
    }
}
