/// The auth server's login: the two handlers a server writes ("start a login", "report a result")
/// over one ``LoginSessionMachine`` and a shared ``LoginSessionStore``.
///
/// ```swift
/// let logins = LoginServer(store: sharedStore, exchange: ExchangeGuard(provider: MyCarrierExchange()))
/// // POST /login           Authorization: Bearer …; body: DeviceSnapshot JSON
/// let me = try sessions.authenticate(bearer)                 // the caller's app session
/// let started = try await logins.start(snapshot, for: me)    // → session id, version 1, "run mobile"
/// // POST /login/{id}      the SDK's result, with the version the app was given
/// let next = try await logins.report(.result(.mobile, code: "103000", credential: credential), to: id, version: 1, from: me)
/// ```
/// A success report is exchanged at once, in the same request (``ExchangeGuard``), so the app gets
/// `done` or its next step back. Every answer is the session after the report; a report the session
/// cannot take throws ``LoginRejection`` and changes nothing. Events go to the sink.
///
/// A server keeps a copy of each session it stored or read last (at most 4,096) and decides a report on
/// it with no read of the store: on PostgreSQL a one-tap login is then three round trips. Every write from
/// a copy is the store's compare-and-swap on the copy's version, so instances sharing the store stay
/// exact: a copy that is behind loses it, and a report is then decided on the stored session.
public struct LoginServer: Sendable {
    /// The rules.
    package let machine: LoginSessionMachine
    /// Where sessions live between requests.
    package let store: any LoginSessionStore
    /// The guarded exchange; nil to exchange outside and hand the carrier's answer to
    /// ``exchanged(_:token:session:version:from:address:device:)``.
    /// It exchanges by the machine's ``LoginSessionMachine/exchanges`` (the one configuration of the
    /// exchange's tables).
    package let exchange: ExchangeGuard?
    /// The SMS code service behind the sessions' SMS step; nil when this server sends no codes.
    package let sms: SMSCodeService?
    /// The circuit breaker the logins consult and tell, if any.
    package let health: ChannelHealth?
    /// The quotas on logins started and paid exchanges, if any.
    package let quotas: LoginQuotas?
    /// The app sessions whose word on a returning owner the SMS step takes (``sendSMS(for:to:context:from:)``), if any.
    package let appSessions: AppSessions?
    /// The store's writes of a session together with the guard's ledger rows, when it offers them for that
    /// ledger (``LoginSessionLedgerStore``): a success's claim goes with the session's move to its exchange,
    /// and the exchange's settle with its answer, one trip to the store each.
    private let ledgerWrites: (any LoginSessionLedgerWrites)?
    /// The sessions this server stored or read last: a report of a login it served decides on its copy and
    /// stores with a compare-and-swap on the copy's version, with no read first (``RecentLoginSessions``).
    private let recent = RecentLoginSessions()
    private let clock: any WallClock
    private let events: any EventSink

    /// Creates the server's login.
    /// - Parameters:
    ///   - machine: The rules; built-in tables, exchanges on. Its exchange rules are the guard's too. One that makes no
    ///     exchange (`exchanges: nil`) ends a one-tap success on the client's word with no number, and says so once
    ///     when the server is made (an `exchange` `exchange-off` event).
    ///   - store: Where sessions live; in memory by default (share one across instances).
    ///   - exchange: The guarded exchange (it applies the machine's exchange rules); nil to exchange outside.
    ///   - sms: The SMS code service for the SMS step; nil when this server sends no codes.
    ///   - health: A circuit breaker to skip failing channels, shared across logins; none by default.
    ///   - quotas: The quotas on logins started and paid exchanges per address, device and app session
    ///     (``LoginQuotas``: `Data/login-quotas.csv` over a store); none by default, which the server says once
    ///     when it is made (an `exchange` `quota-missing` event): a server facing the internet needs them. Their
    ///     captcha rules are passed with `sms`'s captcha verifier; without one the server says so once (an `sms`
    ///     `captcha-missing` event) and a start past such a rule waits for its window.
    ///   - appSessions: The app sessions the logins run in (the ones whose claims the handlers pass): before an SMS
    ///     send, the caller's app session is asked whether its app logged in with the number in the last 30 days,
    ///     and such a returning owner sends in a lane of its own past the number's daily cap and the hour's ceiling on
    ///     every send (`number-lane` and `global-lane` in `Data/sms-policy.csv`), which strangers who solve captchas cannot fill
    ///     (the owners' lane only with numbers of their own, each logged in: about 40 to push it past `global-minute`'s captcha,
    ///     several hundred to fill its hour). None by default: every send is
    ///     then in the number's one lane, which a stranger who solves 5 captchas a day fills for everyone. Asking reads
    ///     the app-session store before each send, and a session logged out (or moved on by a login) since its access
    ///     token was issued is refused (``AppSessionError``), as ``AppSessions/live(_:)`` refuses it.
    ///   - clock: The time source.
    ///   - events: Receives the login events (area `login`), the quotas' (`exchange` `quota-missing` and
    ///     `quota-refused`) and a start captcha's (`sms` `provider-failed`); standard error by default.
    public init(
        machine: LoginSessionMachine = LoginSessionMachine(), store: any LoginSessionStore = InMemoryStores.newLoginSessionStore(), exchange: ExchangeGuard? = nil,
        sms: SMSCodeService? = nil, health: ChannelHealth? = nil, quotas: LoginQuotas? = nil, appSessions: AppSessions? = nil,
        clock: any WallClock = SystemClock(), events: any EventSink = StandardErrorEventSink.shared
    ) {
        self.machine = machine
        self.store = store
        self.exchange = exchange
        self.sms = sms
        self.health = health
        self.quotas = quotas
        self.appSessions = appSessions
        self.clock = clock
        self.events = events
        ledgerWrites = exchange.flatMap { (store as? any LoginSessionLedgerStore)?.ledgerWrites(with: $0.ledger) }
        if quotas == nil { events.receive(OneTapEvent(at: clock.now(), .exchange(.quotaMissing))) }
        if machine.exchanges == nil { events.receive(OneTapEvent(at: clock.now(), .exchange(.exchangeOff))) }
        let captchaRules = quotas?.policy.rules.filter { $0.over == .captcha }.map(\.id) ?? []
        if !captchaRules.isEmpty, !(sms?.checksCaptchas ?? false) {
            events.receive(OneTapEvent(at: clock.now(), .sms(.captchaMissing(rules: captchaRules))))
        }
    }

    /// Starts a login for a device, in the app session whose access token the request carried.
    /// - Parameters:
    ///   - snapshot: What the device reported.
    ///   - claims: The verified claims of the caller's app session (`AppSessions.authenticate(_:)`): every
    ///     later request about this login must come from the same app session.
    ///   - pending: The action a login gate interrupted, handed back in the success transition, and again with every
    ///     telling of the success while it is live (``LoginTransition/continued``).
    ///   - address: The client's address (``ClientAddress``): the carrier's IPv6 evidence (the snapshot's own
    ///     `clientIP`, a claim the request carried, is replaced by it). None counts in one shared `(not given)`
    ///     address for every caller that gives none (fail closed): one quota bucket, and one client to the
    ///     breaker; and names no carrier.
    ///   - device: The app's device id, for the quotas per device and the breaker. None counts as the device
    ///     `(not given)` at the address.
    ///   - captcha: The token of a captcha the client solved, after a `captcha-required` rejection: the SMS code
    ///     service's ``CaptchaVerifier`` checks it (at most once per token the client sends).
    /// - Returns: The new session (version 1) and what the app does first.
    /// - Throws: ``AppSessionError`` `unauthenticated` for claims whose token expired, ``LoginRejection``
    ///   `over-quota` when the client started too many logins, or `captcha-required` when its address block or
    ///   device is past a captcha rule and no solved captcha came (``LoginQuotas``; nothing is stored either way),
    ///   ``StoreError`` when a store fails, or `CancellationError` for a caller gone while its captcha was checked.
    public func start(
        _ snapshot: DeviceSnapshot, for claims: AccessClaims, pending: PendingAction? = nil, address: IPAddress? = nil, device: DeviceID? = nil,
        captcha: Secret? = nil
    ) async throws -> LoginTransition {
        try claims.checkCurrent(at: clock.now())
        let id = LoginSessionID.random()
        let counted = try await quotas?.admit(.starts, session: id, appSession: claims.session, address: address, device: device, captcha: captcha, checkedBy: sms, clock: clock, events: events)
        // No login started: the start's count is taken back, so neither a store's failure nor a token that expired
        // during the captcha check uses up a client's quota.
        let refund = { [quotas] in
            if let quotas, let counted { await quotas.refund(.starts, appSession: claims.session, address: address, device: device, countedAt: counted.at) }
        }
        // After the quotas, whose captcha check may take the provider's time: the login starts, and the claims are
        // judged, at the time it ended.
        let now = clock.now()
        do { try claims.checkCurrent(at: now) } catch {
            await refund()
            throw error
        }
        // The carrier's IPv6 evidence is the address this server saw; the snapshot's own `ip` is a claim.
        var snapshot = snapshot
        snapshot.clientIP = address
        let transition = machine.start(
            snapshot, at: now, id: id, pending: pending, channels: channels(at: now), appSession: claims.session, epoch: claims.epoch,
            startCaptcha: counted?.captchaPassed ?? false)
        do {
            try await store.create(transition.session)
        } catch {
            await refund()
            throw error
        }
        emit(transition, at: now, client: client(claims, address, device))
        return transition
    }

    /// Applies a report to a stored session; a success is exchanged at once when an exchange is set.
    ///
    /// The app may send a success report again (a mobile network's retry): while the first request's
    /// exchange is under way the retry waits for it (up to the guard's time-out), and after it the retry
    /// gets the exchange's kept answer; either way both requests answer the same session (`done success`
    /// with the number), and the carrier is called once. A retry after the login succeeded is told the same
    /// success (as ``success(of:from:)`` tells it).
    /// - Parameters:
    ///   - report: What happened.
    ///   - id: The session.
    ///   - version: The version the app acted on (send the one it was given): required, so a replay of an
    ///     earlier report is always found out (`stale-version`).
    ///   - claims: The verified claims of the caller's app session; it must be the one that started the login. Take
    ///     them from ``AppSessions/live(_:)``: a success's answer (told again to a retry) holds the full number and the
    ///     interrupted action, and ``AppSessions/authenticate(_:)`` alone accepts a logged-out session's token.
    ///   - address: The client's address (``ClientAddress``). The circuit breaker counts a client's word (its
    ///     SDK's codes and time-outs) once per distinct client: per app session, guest or account, and
    ///     address block (an IPv6 /56), sharing any being one client. None counts in one shared
    ///     `(not given)` address: every caller that gives none weighs as one client.
    ///   - device: The app's device id, for the quotas per device and the breaker; none counts in one shared
    ///     `(not given)` device bucket per quota rule.
    ///   - captcha: The token of a captcha the client solved, after a `captcha-required` answer to this success
    ///     report (a quota rule on exchanges per address block or device that filled after the login started without
    ///     one): checked as a start's is.
    /// - Returns: The session after the report and what to do next (never `exchange` when the server
    ///   exchanges: the exchange's answer is applied before this returns).
    /// - Throws: ``LoginRejection`` (nothing changed: `stale-version` also when another request's
    ///   report won the race, `unknown-session` for an id no session has or a login of another app
    ///   session, alike; `over-quota` for a success whose token would be sent to the paid exchange
    ///   over the client's quota: the app may switch to SMS; `captcha-required` past a captcha rule on exchanges for
    ///   a login started without a captcha: send the report again with a solved one, or switch to SMS), or
    ///   ``StoreError`` (nothing changed: a store
    ///   or the exchange ledger failed, or the retry waited for the exchange under way and has no answer of
    ///   its own yet: ask again), or `CancellationError` when the request's task was cancelled while it waited.
    public func report(
        _ report: LoginReport, to id: LoginSessionID, version: Int, from claims: AccessClaims, address: IPAddress? = nil, device: DeviceID? = nil,
        captcha: Secret? = nil
    ) async throws -> LoginTransition {
        if case .exchange = report {
            // The app reports what its SDK said; what the carrier's exchange said comes from the exchange path
            // (the guard, or ``exchanged(_:token:session:version:from:address:device:)``), never from a request.
            throw LoginRejection(.unexpected, session: id, "an exchange answer comes from the server's exchange, never from a report")
        }
        try claims.checkCurrent(at: clock.now())
        if let copy = recent.session(id, of: claims.session) {
            do {
                // A captcha the report brought is checked only on the stored session (a provider takes a token once):
                // a copy whose quota would ask for one leaves the report to it.
                return try await apply(report, to: copy, stored: false, version: version, from: claims, address: address, device: device, captcha: nil)
            } catch is CopyMayBeBehind {
                // The copy may be behind the store (another instance took a report since): decide on the stored
                // session, which replaces the copy.
            } catch let error as StoreError where error.kind == .notFound {
                // A write from the copy found the login gone (swept): the store answers (`unknown-session`).
            }
        }
        return try await apply(
            report, to: owned(id, by: claims), stored: true, version: version, from: claims, address: address, device: device, captcha: captcha)
    }

    /// What the copy of a session this server kept cannot decide alone: a report the machine refuses, one the
    /// quotas refuse (the stored session checks a captcha the report brought), one that writes nothing, or one
    /// whose write lost its compare-and-swap (a write that found the login gone
    /// throws the store's `not-found`, which ``report(_:to:version:from:address:device:captcha:)`` takes the same
    /// way). Only the stored session may answer those.
    private struct CopyMayBeBehind: Error {}

    /// Applies a report to a session: as stored (`stored`), or as this server kept it (a copy of a login
    /// waiting for a report: ``RecentLoginSessions/session(_:of:)``). From a copy, every write is the store's
    /// compare-and-swap on the copy's version, and a report the machine refuses, one that would write
    /// nothing, or one whose write loses (the copy was behind; nothing was written) throws
    /// ``CopyMayBeBehind``: the report is then decided on the stored session, exactly as without a copy. The
    /// one trace a copy behind leaves is a billed success's count in the exchange quota, once per copy (the
    /// stored session replaces it), as two racing copies of one report both count.
    private func apply(
        _ report: LoginReport, to session: LoginSession, stored: Bool, version: Int, from claims: AccessClaims, address: IPAddress?, device: DeviceID?,
        captcha: Secret?
    ) async throws -> LoginTransition {
        let id = session.id
        if machine.repeatsSuccess(session, report, version: version) {
            // The app's retry after the answer was lost: the same success, told again (no second exchange).
            return try machine.success(of: session, credentials: claims, at: clock.now())
        }
        let client = client(claims, address, device)
        if let recovered = try await recoverExchange(session, report, version: version, client: client) { return recovered }
        let transition: LoginTransition
        var exchanging: (credential: CarrierCredential, receivedAt: Date, exchange: ExchangeGuard, rules: ExchangeRules)? = nil
        var counted: LoginQuotas.Admission? = nil
        let now = clock.now()
        do {
            transition = try await admitted(session, report, version: version, at: now, copy: !stored) { transition in
                // A success whose token goes to the carrier's exchange (this server's or the caller's) is billed:
                // counted first, before it is stored, so one over the quota is refused with nothing stored (the
                // session never waits at an exchange it may not make). Two copies of one report that race both
                // count; the copy that loses the compare-and-swap then goes on below as a retry.
                guard case .exchange = transition.instruction, let quotas else { return }
                // A login started with a solved captcha, or whose report brings one that passes, passes the captcha
                // rules on exchanges.
                do {
                    // (A copy's refusal is said by the stored session's, which decides it.)
                    counted = try await quotas.admit(
                        .exchanges, session: id, appSession: claims.session, address: address, device: device, captcha: captcha,
                        startCaptcha: session.startCaptcha, checkedBy: sms, clock: clock, events: stored ? events : DiscardingEventSink())
                } catch is LoginRejection where !stored {
                    // A copy may be behind (the login moved on elsewhere: a retry of a report that succeeded there): a
                    // refusal counts nothing, so the stored session decides, after its own repeat and recovery checks.
                    throw CopyMayBeBehind()
                }
            }
            if case .exchange(let credential) = transition.instruction, let exchange, let rules = machine.exchanges,
                case .exchange(_, _, _, let receivedAt) = transition.session.stage
            {
                exchanging = (credential, receivedAt, exchange, rules)
            }
            // With a store that writes with the guard's ledger, the move to the exchange is stored with the
            // guard's claim of the token, in one write (below); every other move is stored here.
            if exchanging == nil || ledgerWrites == nil {
                do {
                    try await commit(transition, replacing: session, at: now, client: client)
                } catch let error as StoreError {
                    await refundUnlessMoved(counted, from: session, claims, address, device)
                    throw error
                }
            }
        } catch let rejection as LoginRejection where rejection.kind == .staleVersion {
            guard stored else { throw CopyMayBeBehind() }
            return try await lostRace(rejection, report, to: id, version: version, from: claims, client: client)
        }
        guard let (credential, receivedAt, exchange, rules) = exchanging else { return transition }
        guard let ledgerWrites else {
            return try await exchangeAndAdvance(transition.session, credential, receivedAt: receivedAt, exchange, rules, client: client)
        }
        do {
            let move = Move(transition: transition, previous: session, at: now, writes: ledgerWrites)
            return try await exchangeAndAdvance(transition.session, credential, receivedAt: receivedAt, exchange, rules, client: client, storing: move)
        } catch let lost as Move.Lost {
            guard stored else { throw CopyMayBeBehind() }
            return try await lostRace(lost.rejection, report, to: id, version: version, from: claims, client: client)
        } catch let error as StoreError {
            await refundUnlessMoved(counted, from: session, claims, address, device)
            throw error
        }
    }

    /// Takes a success's exchange count back when the store still holds the session as the report found it: its move
    /// to the exchange was not stored (the store failed before the write landed), so no token left and nothing was
    /// billed, as a start whose session was not stored counts nothing (an attacker's read: each retry after a 503 used
    /// up one more exchange). A move that landed (its answer lost, or a later write failing) keeps its count: its
    /// exchange goes on, and a retry recovers it without counting again. The read runs despite cancellation; one that
    /// fails keeps the count (fail closed).
    private func refundUnlessMoved(_ counted: LoginQuotas.Admission?, from session: LoginSession, _ claims: AccessClaims, _ address: IPAddress?, _ device: DeviceID?) async {
        guard let quotas, let counted, await isStored(session) else { return }
        await quotas.refund(.exchanges, appSession: claims.session, address: address, device: device, countedAt: counted.at)
    }

    /// A report whose compare-and-swap lost (`stale-version`): when another copy of this report (the app's
    /// retry) won and stored this same success, this request is that retry, and gets the exchange's answer as
    /// any retry does; else the rejection stands.
    private func lostRace(
        _ rejection: LoginRejection, _ report: LoginReport, to id: LoginSessionID, version: Int, from claims: AccessClaims, client: ChannelClient
    ) async throws -> LoginTransition {
        guard let stored = try await store.load(id), stored.appSession == claims.session else { throw rejection }
        recent.keep(stored)
        if machine.repeatsSuccess(stored, report, version: version) {
            return try machine.success(of: stored, credentials: claims, at: clock.now())
        }
        if let recovered = try await recoverExchange(stored, report, version: version, client: client) { return recovered }
        throw rejection
    }

    /// Applies the carrier's answer to an exchange this server made itself (a server with no
    /// ``ExchangeGuard``, which got ``LoginInstruction/exchange(_:)`` back from a report): the answer is
    /// taken only for the token the session is exchanging, checked by its SHA-256.
    /// - Parameters:
    ///   - result: The carrier's answer, or the error its call threw (the login goes to SMS; the text of
    ///     the error, with the token scrubbed, goes to the session's trace). A `TimeoutError`, or a
    ///     `CancellationError` (the call cancelled while the carrier had the token), is no answer: its result
    ///     unknown, the token kept for reconciliation, as on ``ExchangeGuard``'s path. A throw counts for the circuit
    ///     breaker as the server's observation when it is a `TimeoutError` or ``ExchangeNotSentError`` (the
    ///     carrier unreached), else as the client's word (the carrier's answer to the client's token), as does an
    ///     ``ExchangeNotSentError`` whose ``ExchangeNotSentError/refusedCredential`` is set (the client's credential
    ///     could not be sent: a made-up token cannot open the breaker for everyone).
    ///   - token: The token that was sent to the carrier (the credential's token).
    ///   - id: The session.
    ///   - version: The version the exchange was asked at (the one with the `exchange` instruction); required.
    ///   - claims: The verified claims of the app session that started the login.
    ///   - address: The client's address as ``ClientAddress`` resolved it, as given to ``report(_:to:version:from:address:device:captcha:)``:
    ///     the circuit breaker tells clients apart by it (without it, every address-less client's word is one).
    ///   - device: The app's device id, if the request gave one.
    /// - Returns: The session after the answer.
    /// - Throws: ``LoginRejection`` (`unexpected` when the session is not exchanging this token,
    ///   `stale-version`, `unknown-session`, `ended`, `expired`), or ``StoreError``.
    public func exchanged(
        _ result: Result<ExchangeResponse, any Error>, token: Secret, session id: LoginSessionID, version: Int, from claims: AccessClaims,
        address: IPAddress? = nil, device: DeviceID? = nil
    ) async throws -> LoginTransition {
        let session = try await owned(id, by: claims)
        let outcome: ExchangeOutcome
        switch result {
        case .success(let response):
            outcome = ExchangeOutcome(.answered(response.code, phoneNumber: response.phoneNumber, account: response.account), token: CarrierCredential.digest(of: token))
        case .failure(let error):
            // Read as the guard reads its own call's throw; a cancellation is the call's `CancellationError`, never this
            // request's state (the call ran elsewhere, maybe in a task since ended).
            let (answer, unreached, callers) = ExchangeCallFailure(error, callerCancelled: false).exchangeAnswer(scrubbing: [token])
            outcome = ExchangeOutcome(answer, token: CarrierCredential.digest(of: token), carrierUnreached: unreached, saysNothingOfTheChannel: callers)
        }
        return try await advance(session, .exchange(outcome), version: version, client: client(claims, address, device))
    }

    /// Sends an SMS code for a session at its SMS step.
    /// - Parameters:
    ///   - id: The session; it must be waiting for SMS.
    ///   - number: The number as the user typed it.
    ///   - context: The client's address, device and captcha token (its session is replaced by `id`).
    ///   - claims: The verified claims of the app session that started the login. With ``AppSessions`` given to the
    ///     server, that session is read: when its app logged in with the number in the last 30 days, the send goes
    ///     in the returning owner's own lane past the number's daily cap and the hour's ceiling (`number-lane`,
    ///     `global-lane`), which no stranger fills without numbers of its own.
    /// - Returns: The SMS code service's answer (the session does not change: a send is no result).
    /// - Throws: ``LoginRejection`` (`unknown-session`, `ended`, `expired`, `wrong-flow` when the session
    ///   is not at SMS, `unexpected` when this server has no SMS code service); ``AppSessionError`` as
    ///   ``AppSessions/live(_:)`` when the server has app sessions and the caller's was logged out or moved on;
    ///   ``StoreError`` when the session store, the app-session store or the SMS store fails (nothing was sent).
    public func sendSMS(for id: LoginSessionID, to number: String, context: SMSContext, from claims: AccessClaims) async throws -> SMSSendResult {
        let (sms, _) = try await smsStep(id, claims)
        var context = context
        context.session = id
        guard let appSessions, case .success(let recipient) = sms.rules.recipient(number) else { return try await sms.send(to: number, context: context) }
        context.returningOwner = try await appSessions.vouches(for: recipient, claims)
        return try await sms.send(to: recipient, context: context)
    }

    /// Verifies an SMS code for a session and, when it is right, completes the session's SMS step with
    /// the service's ``SMSVerdict``: the session learns "SMS verified" from the verify, never from the
    /// client.
    /// - Parameters:
    ///   - code: The code as the user typed it.
    ///   - number: The number it was sent to.
    ///   - id: The session.
    ///   - version: The version the app acted on; required.
    ///   - context: The client's address and device, and a solved captcha's token when an earlier verify
    ///     answered `captchaRequired` (a number guessed at from many sessions, or past its daily bound;
    ///     its session is replaced by `id`, whose own code it verifies).
    ///   - claims: The verified claims of the app session that started the login.
    /// - Returns: The verify's answer and, when it was `verified`, the session after it (`done`).
    /// - Throws: As ``sendSMS(for:to:context:from:)``, and ``LoginRejection`` as ``report(_:to:version:from:address:device:captcha:)``
    ///   for the success report: the session's stage and `version` are checked before the code is verified,
    ///   so a refused version never spends a right code. Only a report that fails after the verify (the
    ///   session store failed, or another request moved the session on in between) leaves the code spent:
    ///   the app asks for a new one.
    public func verifySMS(
        _ code: Secret, for number: PhoneNumber, session id: LoginSessionID, version: Int, context: SMSContext, from claims: AccessClaims
    ) async throws -> (result: SMSVerifyResult, transition: LoginTransition?) {
        let (sms, _) = try await smsStep(id, claims, version: version)
        var context = context
        context.session = id
        let result = try await sms.verify(code, for: number, context: context)
        guard case .verified(let verdict) = result else { return (result, nil) }
        return (result, try await report(.smsVerified(verdict), to: id, version: version, from: claims, address: context.ip, device: context.device))
    }

    private func smsStep(_ id: LoginSessionID, _ claims: AccessClaims, version: Int? = nil) async throws -> (SMSCodeService, Date) {
        guard let sms else { throw LoginRejection(.unexpected, session: id, "this server has no SMS code service") }
        let session = try await owned(id, by: claims)
        let now = clock.now()
        try machine.checkSMSStep(session, version: version, at: now)
        return (sms, now)
    }

    /// A login's success told again to the app session that ran it, to finish the account step in a later
    /// request: the request that saw the success failed after it (the account or app-session store was
    /// down: the app tries again), or a dormant number needed a second factor first. Within the login's
    /// lifetime (10 minutes); the full number goes only to the app session that started the login, and
    /// only under credentials of the login epoch it started in (those it started with, or their refreshes):
    /// the account step moves the session's epoch on, so its own credentials are refused and the account step
    /// is finished once. A login started under a token of format 1 takes only credentials issued at its start
    /// or before.
    /// - Parameters:
    ///   - id: The login.
    ///   - claims: The verified claims of the app session that started it, from ``AppSessions/live(_:)``: the answer
    ///     holds the full number, and ``AppSessions/authenticate(_:)`` alone accepts a logged-out session's access
    ///     token for its last hours.
    /// - Returns: The `done(success)` transition with the flow and the verified login, and the interrupted action
    ///   (``LoginTransition/continued``) while it is live.
    /// - Throws: ``LoginRejection`` (`unknown-session` for an id no session has or another app
    ///   session's login, alike; `expired`; `ended` when the login did not succeed or the credentials are
    ///   of another epoch than the login's (or, under format 1, newer than the login); `unexpected` while it
    ///   still runs), or ``StoreError``.
    public func success(of id: LoginSessionID, from claims: AccessClaims) async throws -> LoginTransition {
        let session = try await owned(id, by: claims)
        return try machine.success(of: session, credentials: claims, at: clock.now())
    }

    /// What an app may read of its login, for a client that lost its last answer: the verified number
    /// masked, nothing once the login expired (a login that succeeded: a minute after its end).
    /// - Parameters:
    ///   - id: The login.
    ///   - claims: The verified claims of the app session that started it.
    /// - Returns: The login's status.
    /// - Throws: ``LoginRejection`` (`unknown-session` for an id no session has or another app session's
    ///   login, alike; `expired`), or ``StoreError``.
    public func status(_ id: LoginSessionID, from claims: AccessClaims) async throws -> LoginStatus {
        let session = try await owned(id, by: claims)
        guard clock.now() < LoginSessionMachine.readableUntil(session) else {
            throw LoginRejection(.expired, session: id, "the login expired at \(session.expiresAt.iso8601); start a new one")
        }
        return session.status
    }

    /// Reads a session as stored (the package's tests and tools).
    package func session(_ id: LoginSessionID) async throws -> LoginSession? {
        try await store.load(id)
    }

    /// The session, if the caller's app session started it. Another app session's login is answered as
    /// one that does not exist, so a login's id (in every event line) lets no one in, nor tells them it
    /// exists.
    private func owned(_ id: LoginSessionID, by claims: AccessClaims) async throws -> LoginSession {
        try claims.checkCurrent(at: clock.now())
        guard let session = try await store.load(id), session.appSession == claims.session else {
            throw LoginRejection(.unknownSession, session: id, "no login session has this id (it may have expired and been removed)")
        }
        recent.keep(session)
        return session
    }

    /// Asks the guard again for a session left at its exchange, when the report repeats the success it is
    /// exchanging (``LoginSessionMachine/exchangeToRecover(_:_:version:at:)`` says when): the app's retry of
    /// its report, while the exchange is under way (the guard waits for it) or after its answer could not
    /// be stored (the guard answers what the ledger kept). Either way the retry gets the exchange's answer.
    private func recoverExchange(_ session: LoginSession, _ report: LoginReport, version: Int?, client: ChannelClient) async throws -> LoginTransition? {
        guard let exchange, let rules = machine.exchanges, let (credential, receivedAt) = machine.exchangeToRecover(session, report, version: version, at: clock.now()) else {
            return nil
        }
        return try await exchangeAndAdvance(session, credential, receivedAt: receivedAt, exchange, rules, client: client, recovering: true)
    }

    /// Exchanges a session's token through the guard and applies the answer. Two requests of one login (the
    /// report and the app's retry of it) get one exchange's answer; the one that loses the race to store
    /// it answers with the session as the other stored it (``LoginSessionMachine/exchangeSettled(_:after:at:)``).
    /// A guard that gives no answer (its ledger failed, or the exchange it waited for is its own request's
    /// to apply) changes nothing: the request throws ``StoreError`` (503, the app asks again) unless the
    /// stored session already took the exchange's answer. A cancelled wait throws `CancellationError`.
    ///
    /// With `move` (the session's move to its exchange, not stored yet: a server whose store writes with the
    /// guard's ledger), the move is stored with the guard's first claim of the token, in one write, and the
    /// exchange's answer with the guard's settle; a stale version of the move throws ``Move/Lost`` (nothing
    /// stored, nothing claimed), which ``report(_:to:version:from:address:device:captcha:)`` handles as a lost race.
    private func exchangeAndAdvance(
        _ session: LoginSession, _ credential: CarrierCredential, receivedAt: Date, _ exchange: ExchangeGuard, _ rules: ExchangeRules,
        client: ChannelClient, storing move: Move? = nil, recovering: Bool = false
    ) async throws -> LoginTransition {
        let answer: ExchangeOutcome
        var settlement: ExchangeSettlement? = nil
        do {
            if let move {
                var stored = false
                (answer, settlement) = try await exchange.exchange(credential, for: session.id, receivedAt: receivedAt, rules: rules) { token, now in
                    let entry: ExchangeLedgerEntry?
                    do {
                        entry = try await move.lostIfStale {
                            try await move.writes.replace(move.transition.session, expecting: move.previous.version, claiming: token, at: now)
                        }
                    } catch let error as StoreError where error.writeMayHaveGoneIn {
                        // The write's outcome may be unknown (its answer lost after the commit): the move stored as this
                        // request made it says the write went in, and the ledger's entry what it claimed.
                        guard await isStored(move.transition.session) else { throw error }
                        entry = try await exchange.ledger.reclaim(token, for: session.id, at: now)
                    }
                    stored = true
                    emit(move.transition, at: move.at, client: client)
                    return entry
                }
                // Nothing was claimed (the token had expired): the move to the exchange is stored alone, first.
                if !stored {
                    try await move.lostIfStale { try await commit(move.transition, replacing: move.previous, at: move.at, client: client) }
                }
            } else {
                (answer, settlement) = try await exchange.exchangeLeavingTheSettle(
                    credential, for: session.id, receivedAt: receivedAt, rules: rules, recovering: recovering)
            }
        } catch let error as StoreError {
            // No answer to apply: the ledger failed (the token was not sent), or this request waited for the
            // login's exchange under way and that exchange's own request applies its answer. The session is
            // not changed and the breaker told nothing; the stored session is the answer if it moved on.
            guard let settled = try await settledAsStored(after: session) else { throw error }
            return settled
        }
        do {
            guard let settlement else { return try await advance(session, .exchange(answer), version: nil, client: client) }
            return try await advance(session, .exchange(answer), settling: settlement, exchange, client: client)
        } catch let rejection as LoginRejection where rejection.kind == .staleVersion {
            guard let settled = try await settledAsStored(after: session) else { throw rejection }
            return settled
        }
    }

    /// The stored session's answer to an exchange this request could not apply, if the login moved on from
    /// `session` (``LoginSessionMachine/exchangeSettled(_:after:at:)``); the read replaces the kept copy.
    /// - Parameter session: The session at its exchange, as this request had it.
    /// - Returns: The settled transition, or nil when the stored session is gone or has not moved on.
    /// - Throws: ``StoreError`` when the read fails.
    private func settledAsStored(after session: LoginSession) async throws -> LoginTransition? {
        guard let stored = try await store.load(session.id) else { return nil }
        recent.keep(stored)
        return machine.exchangeSettled(stored, after: session, at: clock.now())
    }

    /// A session's move to its exchange, not stored yet, and the store's joint writes to store it with.
    private struct Move {
        let transition: LoginTransition
        let previous: LoginSession
        let at: Date
        let writes: any LoginSessionLedgerWrites

        /// The move's compare-and-swap lost: the report lost the race (told apart from the answer's own
        /// compare-and-swap, which ``exchangeAndAdvance(_:_:receivedAt:_:_:client:storing:)`` handles).
        struct Lost: Error {
            let rejection: LoginRejection
        }

        /// A write of the move, its `conflict` (or `stale-version`) thrown as ``Lost``.
        func lostIfStale<T>(_ write: () async throws -> T) async throws -> T {
            do {
                return try await LoginServer.staleIfConflict(previous, write)
            } catch let rejection as LoginRejection where rejection.kind == .staleVersion {
                throw Lost(rejection: rejection)
            }
        }
    }

    /// Applies a report to a stored session, stores the result (compare-and-swap) and emits its events:
    /// the one path every change of a session on this server takes.
    private func advance(_ session: LoginSession, _ report: LoginReport, version: Int?, client: ChannelClient) async throws -> LoginTransition {
        let now = clock.now()
        let transition = try await admitted(session, report, version: version, at: now)
        try await commit(transition, replacing: session, at: now, client: client)
        return transition
    }

    /// Applies the answer of an exchange this request made to the session at its exchange, storing it with
    /// the guard's settle of the token: in one write when the store writes with the ledger
    /// (``ExchangeGuard/record(_:alongside:)``), else the session first and the settle after
    /// (``ExchangeGuard/record(_:events:)``), so that a retry of the report that finds the answer recorded (an
    /// unknown one may be resent once) finds the session moved on; before, it finds the exchange under way and
    /// waits. The settle is recorded whatever comes of the session (refused by the machine, its compare-and-swap
    /// lost, its write failed).
    private func advance(
        _ session: LoginSession, _ report: LoginReport, settling settlement: ExchangeSettlement, _ exchange: ExchangeGuard, client: ChannelClient
    ) async throws -> LoginTransition {
        let now = clock.now()
        let transition: LoginTransition
        do {
            transition = try await admitted(session, report, version: nil, at: now)
        } catch {
            await exchange.record(settlement, events: events)
            throw error
        }
        let next = transition.session, version = session.version
        // An answer always moves the session on; else the settle goes alone.
        if let writes = ledgerWrites, next.version != version {
            if await exchange.record(settlement, alongside: { settlement in
                try await writes.replace(next, expecting: version, settling: settlement.token, settlement.state, at: settlement.at)
            }) {
                emit(transition, at: now, client: client)
                return transition
            }
        }
        // The session's move despite the caller's cancellation, as the joint write: a move left unwritten would leave
        // the login at its exchange for a retry to resend.
        let server = self
        var failure: (any Error)?
        do {
            try await writeDespiteCancellation { try await server.save(transition, replacing: session) }
        } catch {
            // A write (the joint one, or this one) may have committed though its answer was lost (the connection broke
            // after the commit): the session as stored is then this very move, and the login ended as it says, its
            // events told once. Read before the settle below: until it, the ledger holds the token pending, so no retry
            // can have stored the same move (and told its events) meanwhile.
            if !(await isStored(next)) { failure = error }
        }
        await exchange.record(settlement, events: events)
        if let failure { throw failure }
        emit(transition, at: now, client: client)
        return transition
    }

    /// Whether the store holds exactly this session (read despite the caller's cancellation); false when it holds
    /// another or the read fails.
    private func isStored(_ session: LoginSession) async -> Bool {
        let store = self.store, id = session.id
        return await readsBack(session) { try await store.load(id) }
    }

    /// The transition a report makes of a stored session, admitted but not stored: `admit` runs before
    /// anything is stored, and may refuse the transition by throwing.
    /// With `copy` (the session is this server's kept copy), the machine's refusal throws ``CopyMayBeBehind``.
    private func admitted(
        _ session: LoginSession, _ report: LoginReport, version: Int?, at now: Date, copy: Bool = false,
        admit: (LoginTransition) async throws -> Void = { _ in }
    ) async throws -> LoginTransition {
        let transition: LoginTransition
        do {
            transition = try machine.advance(session, report, version: version, at: now, channels: channels(at: now))
        } catch where copy {
            throw CopyMayBeBehind()
        }
        if copy, transition.session.version == session.version { throw CopyMayBeBehind() }
        try await admit(transition)
        return transition
    }

    /// Stores an admitted transition (compare-and-swap) and emits its events.
    private func commit(_ transition: LoginTransition, replacing session: LoginSession, at now: Date, client: ChannelClient) async throws {
        try await save(transition, replacing: session)
        emit(transition, at: now, client: client)
    }

    private func channels(at now: Date) -> ChannelAdmissions {
        health?.admissions(at: now) ?? .allAllowed
    }

    private func save(_ transition: LoginTransition, replacing previous: LoginSession) async throws {
        guard transition.session.version != previous.version else { return }  // a progress report changes nothing
        try await Self.staleIfConflict(previous) { try await store.replace(transition.session, expecting: previous.version) }
    }

    /// A write of a session's compare-and-swap, its `conflict` told as the report's `stale-version`.
    private static func staleIfConflict<T>(_ previous: LoginSession, _ write: () async throws -> T) async throws -> T {
        do {
            return try await write()
        } catch let error as StoreError where error.kind == .conflict {
            throw LoginRejection(.staleVersion, session: previous.id, "another report for version \(previous.version) was taken first")
        }
    }

    /// The client a request came from, as the breaker tells clients apart (``ChannelClient``).
    private func client(_ claims: AccessClaims, _ address: IPAddress?, _ device: DeviceID?) -> ChannelClient {
        ChannelClient(appSession: claims.session, identity: claims.identity, address: address, device: device)
    }

    /// Tells the events and the breaker what a stored transition did: called only once the transition
    /// is stored (its create or compare-and-swap succeeded), so a report that lost tells nothing. What
    /// the server saw counts in full; the client's word once per client.
    private func emit(_ transition: LoginTransition, at now: Date, client: ChannelClient) {
        recent.keep(transition.session)
        health?.apply(transition.channelReports, reportedBy: client, at: now)
        let context = transition.context
        for event in transition.events { events.receive(OneTapEvent(at: now, .login(event, context))) }
    }
}
