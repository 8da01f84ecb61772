/// The quotas a ``LoginServer`` enforces on logins started and paid exchanges caused per address block,
/// device and app session (`Data/login-quotas.csv`, or your own ``LoginQuotaPolicy``), counted in a
/// ``LoginQuotaStore``. A start over a quota, or a success report whose token would be sent to the
/// carrier's paid exchange over one, is refused with ``LoginRejection`` `over-quota` and changes
/// nothing; every admitted one is counted, whatever happens to it next, except a start whose session the store then
/// failed to write, and a success whose move to the exchange it failed to write (no token left)
/// (``refund(_:appSession:address:device:countedAt:)``). A start past a captcha rule (the built-in
/// rules on address blocks and devices, which strangers behind one carrier NAT share or may claim) is refused with
/// `captcha-required` until it brings a solved captcha (`LoginServer`'s SMS code service checks it), so a stranger's
/// flood costs its neighbours a captcha, not a refusal (the SMS policy's `captcha-rejects` wait says what a stranger sending
/// junk captcha tokens can still do). Past a captcha rule on exchanges (the built-in ones per address block and device),
/// a start needs a solved captcha too, and a login that started with one is exchanged past those rules: a stranger's
/// made-up success reports cost its neighbours a captcha, not their one-tap login.
///
/// A request without an address or a device id counts in the rule's one shared `(not given)` bucket
/// (fail closed): pass both to ``LoginServer/start(_:for:pending:address:device:captcha:)`` and
/// ``LoginServer/report(_:to:version:from:address:device:captcha:)``, or every such request shares one quota.
/// The in-memory store counts per instance; share one store across instances to count per deployment
/// (`PostgresStores.loginQuotaStore()` from `OneTapPostgres`).
public struct LoginQuotas: Sendable {
    /// The rules.
    package let policy: LoginQuotaPolicy
    /// Where the counters live.
    package let store: any LoginQuotaStore

    /// Creates the quotas.
    /// - Parameters:
    ///   - policy: The rules; `Data/login-quotas.csv` by default.
    ///   - store: Where the counters live; this process's memory by default.
    public init(policy: LoginQuotaPolicy = .builtIn, store: any LoginQuotaStore = InMemoryStores.newLoginQuotaStore()) {
        self.policy = policy
        self.store = store
    }

    /// Admits and counts one more start or exchange, atomically with every other, or refuses it.
    ///
    /// A start past a captcha rule (and no limit rule) needs the captcha its client solved: the SMS code service's
    /// verifier checks it, counting a token that does not pass under the SMS policy's rejected-captcha rules as a
    /// send's would, and the start is then decided again, at the time the check ended, with the captcha passed.
    /// Without a verifier such a start waits for the rule's window, as over a limit.
    /// - Parameters:
    ///   - counts: Starts or exchanges.
    ///   - id: The login session (named in the rejection).
    ///   - appSession: The caller's app session.
    ///   - address: The client's address (its block is counted), nil for the shared `(not given)` bucket.
    ///   - device: The device id, nil for the shared `(not given)` bucket.
    ///   - captcha: The captcha token the start (or the success report) brought, if any.
    ///   - startCaptcha: For an exchange, whether its login's start came with a solved captcha
    ///     (``LoginSession/startCaptcha``): captcha rules on exchanges then let it through; else a captcha its success
    ///     report brought (`captcha`) may.
    ///   - sms: The SMS code service whose captcha verifier checks it.
    ///   - clock: The time source: the decision's time, and after a captcha check the time it ended.
    ///   - events: Receives an `exchange` `quota-refused` event for each refusal (its rule and outcome; never the
    ///     client's address, device or token).
    /// - Returns: The instant it was counted at (for ``refund(_:appSession:address:device:countedAt:)``) and whether
    ///   a captcha passed for it, or nil when no rule bears on it.
    /// - Throws: ``LoginRejection`` `over-quota` naming the rule and when to try again, `captcha-required` naming
    ///   the rule (and whether a token came and did not pass), ``StoreError`` when a store fails (nothing is
    ///   admitted then), or `CancellationError` for a caller gone while its captcha was checked.
    @discardableResult
    package func admit(
        _ counts: LoginQuotaPolicy.Counts, session id: LoginSessionID, appSession: AppSessionID, address: IPAddress?, device: DeviceID?,
        captcha: Secret? = nil, startCaptcha: Bool = false, checkedBy sms: SMSCodeService? = nil, clock: any WallClock, events: any EventSink
    ) async throws -> Admission? {
        let request = Self.request(appSession: appSession, address: address, device: device)
        // A start reads the captcha rules on exchanges only where a captcha can pass them (nor does a full one, without
        // a verifier, hold back the SMS step).
        let counters = policy.counters(toDecide: request, counting: counts, captchasChecked: sms?.checksCaptchas == true)
        guard !counters.isEmpty else { return nil }
        let context = SMSContext(ip: address, device: device, session: id, captcha: captcha)
        switch try await decision(counts, request, counters, context, startCaptcha: startCaptcha, checkedBy: sms, clock: clock) {
        case .admitted(let admission):
            return admission
        case .refused(let kind, let rule, let outcome, let message, let retryAt):
            events.receive(OneTapEvent(at: clock.now(), .exchange(.quotaRefused(counts: counts.rawValue, rule: rule, outcome: outcome))))
            throw LoginRejection(kind, session: id, message, retryAt: retryAt)
        }
    }

    /// Takes back a start or an exchange ``admit(_:session:appSession:address:device:captcha:startCaptcha:checkedBy:clock:events:)``
    /// counted whose request then did not happen (a start whose session the store failed to write, or whose access
    /// token expired while its captcha was checked; a success whose move to the exchange it failed to write), so
    /// neither a store's failures nor the captcha provider's time use up a client's quota. Best effort: a store
    /// that fails again leaves it counted (fail closed). A start's write that failed after it committed (the connection
    /// lost at `COMMIT`) is refunded too: its session exists, but the start threw, so no client holds its id to go on
    /// with it; it expires. A success's move that landed unseen is not: its exchange goes on. The refund runs on the
    /// failure's path despite cancellation, so a start that failed waits for it (at most the quota store's time limit).
    /// - Parameters:
    ///   - counts: Starts or exchanges.
    ///   - appSession: The caller's app session.
    ///   - address: The client's address.
    ///   - device: The device id.
    ///   - countedAt: The instant `admit` returned.
    package func refund(_ counts: LoginQuotaPolicy.Counts, appSession: AppSessionID, address: IPAddress?, device: DeviceID?, countedAt: Date) async {
        await store.uncount(policy.counters(for: Self.request(appSession: appSession, address: address, device: device), counting: counts), countedAt: countedAt)
    }

    /// A start's or an exchange's keys, which `admit` counts in and `refund` takes back from.
    private static func request(appSession: AppSessionID, address: IPAddress?, device: DeviceID?) -> LoginQuotaPolicy.Request {
        LoginQuotaPolicy.Request(address: address, device: device?.rawValue, session: appSession.text)
    }

    /// An admitted start or exchange.
    package struct Admission: Sendable {
        /// When it was counted.
        package let at: Date
        /// Whether a solved captcha let it through (a start's; for an exchange, its login's start's or its report's).
        package let captchaPassed: Bool
    }

    /// What the quotas decide of a request.
    private enum Decision {
        /// Admitted and counted.
        case admitted(Admission)
        /// Refused: the rejection's kind, the rule, the event's outcome, the rejection's message.
        case refused(kind: LoginRejection.Kind, rule: String, outcome: String, message: String, retryAt: Date? = nil)
    }

    /// Whether a start or an exchange is admitted (and counted) or refused, and why:
    /// ``admit(_:session:appSession:address:device:captcha:startCaptcha:checkedBy:clock:events:)``'s decision, apart from
    /// its event and its throw.
    private func decision(
        _ counts: LoginQuotaPolicy.Counts, _ request: LoginQuotaPolicy.Request, _ counters: [LoginQuotaPolicy.Counter], _ context: SMSContext,
        startCaptcha: Bool, checkedBy sms: SMSCodeService?, clock: any WallClock
    ) async throws -> Decision {
        let policy = policy
        let store = store
        let admit = { @Sendable (passed: Bool, now: Date) async throws -> LoginQuotaPolicy.Decision in
            try await store.update(counters: counters, at: now) { state in
                state.admit(request, counting: counts, in: counters, policy: policy, at: now, captchaPassed: passed)
            }
        }
        var decidedAt = clock.now()
        // An exchange is decided with its login's start's captcha (or its report's, passed already); a start, first
        // without one.
        var passed = counts == .exchanges && startCaptcha
        var decision = try await admit(passed, decidedAt)
        let again = counts == .starts ? "start again" : "send the report again"
        if case .captcha(let rule, _) = decision, let sms, sms.checksCaptchas {
            func waiting(_ wait: String, until: Date) -> Decision {
                .refused(
                    kind: .overQuota, rule: wait, outcome: "captcha-waits",
                    message: "too many captchas that did not pass, or are being checked, from this client's address or device (the SMS policy's \(wait)): "
                        + "its captchas are checked again after \(until.iso8601)", retryAt: until)
            }
            guard let captcha = context.captcha else {
                // A captcha that would not be checked before a wait ends is not asked for until then.
                if let wait = try await sms.startCaptchaWait(context: context) { return waiting(wait.rule, until: wait.until) }
                return .refused(kind: .captchaRequired, rule: rule, outcome: "captcha-required", message: "past the quota \(describe(rule)): \(again) with a solved captcha")
            }
            switch try await sms.checkStartCaptcha(captcha, context: context) {
            case .solved:
                // Decided again at the time the provider answered, as an SMS send is.
                decidedAt = clock.now()
                passed = true
                decision = try await admit(true, decidedAt)
            case .waits(let wait, let until):
                return waiting(wait, until: until)
            case .rejected:
                return .refused(kind: .captchaRequired, rule: rule, outcome: "captcha-rejected", message: "past the quota \(describe(rule)): the captcha did not pass; solve a new one")
            case .unchecked:
                return .refused(
                    kind: .captchaRequired, rule: rule, outcome: "captcha-unchecked",
                    message: "past the quota \(describe(rule)): the captcha could not be checked (its provider failed, or refused this server); solve a new one")
            }
        }
        switch decision {
        case .admit:
            return .admitted(Admission(at: decidedAt, captchaPassed: passed))
        case .over(let rule, let retryAfter):
            let what = counts == .starts ? "logins started" : "paid exchanges"
            return .refused(
                kind: .overQuota, rule: rule, outcome: "over-quota", message: "too many \(what): over the quota \(describe(rule)); try again after \(retryAfter.iso8601)",
                retryAt: retryAfter)
        case .captcha(let rule, let retryAfter):
            return .refused(
                kind: .overQuota, rule: rule, outcome: "over-quota",
                message: "too many \(counts == .starts ? "logins started" : "paid exchanges"): past the quota \(describe(rule)), whose captcha this server cannot check (no SMS code service with a "
                    + "CaptchaVerifier); try again after \(retryAfter.iso8601)", retryAt: retryAfter)
        }
    }

    /// `ip-starts-hour (ip-starts-hour: 600 starts per ip in 3600 s, then captcha)`: a rule's id and what it says.
    private func describe(_ rule: String) -> String {
        rule + (policy.rules.first { $0.id == rule }.map { " (\($0))" } ?? "")
    }
}
