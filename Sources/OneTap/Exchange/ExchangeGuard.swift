/// Wraps the paid exchange of a one-tap token for the number, so that the carrier is never paid for
/// a token it will refuse, never asked twice about one token, and a login's retry gets the answer its
/// exchange gave.
///
/// - A token older than its lifetime (`Data/token-lifetimes.csv`, from the server's receipt of the
///   success report) is not sent: the answer is ``ExchangeAnswer/tokenExpired`` (the login runs the flow
///   once more), unless the login's retry recovers an exchange its first request made (the ledger's kept
///   answer, or its failure, is the answer then).
/// - Each token is claimed in an ``ExchangeLedger`` (by its SHA-256, never the token) for the login
///   session it came with, and the exchange's answer (code, number, account) is kept with the claim.
///   Another session's report of the same token is ``ExchangeAnswer/replayed``; the same session's
///   (the app retried its report) gets the kept answer, and a retry that arrives while the exchange is
///   under way **waits** for it (polling the ledger, so it works across instances) and gets its answer:
///   the app never has to handle "in progress", unless it repeats its report more than ``maximumWaiters`` times at
///   once on one instance (the one more gets the retryable `timeout` at once). A retry that waits never makes an
///   answer up: the wait is
///   bounded by ``timeout`` (plus a second for the answer to be recorded) from the exchange's claim, and
///   past it, or when the exchange it waited for ended `unknown` (that exchange's own request applies
///   what it got), it throws ``StoreError`` `timeout` (the session does not change; the app asks again);
///   a waiting retry whose task is cancelled throws `CancellationError`.
/// - A ledger that cannot be read or written on a claim throws its ``StoreError``: the token was not
///   sent, nothing is answered (so the login neither falls back nor tells the circuit breaker anything).
/// - An exchange that does not answer within ``timeout``, or whose caller goes away (a client disconnect
///   cancels its task) while the carrier has the token, has an **unknown** result: it may have been
///   billed and the token spent. The answer is ``ExchangeAnswer/timeout`` (the login goes to SMS), and
///   the ledger keeps the token as `unknown` for reconciliation. So does a provider that throws anything
///   but ``ExchangeNotSentError`` (a malformed body may be a billed answer): the answer is
///   ``ExchangeAnswer/fault(_:)``, the ledger's state `unknown`; only ``ExchangeNotSentError`` (the request
///   never left) records `failed`, which is not sent again and not listed
///   (``ExchangeLedger/unknownExchanges(since:pendingClaimedBefore:after:limit:)``). Only the session that claimed it
///   may send it again to learn the result, once (``ExchangeLedger/resend(_:for:at:)``, atomic: of many
///   concurrent resends one calls the carrier), so a caller disconnecting after each report cannot have
///   one token billed again and again. Should the resend be answered "token already used", that is
///   reported as unknown too, not as the user's fault.
/// - The end of an exchange is recorded even when its caller's task was cancelled; a record that fails
///   is a `settle-failed` event in area `exchange` (the row stays `pending`, and
///   reconciliation lists it once it is older than ``timeout``).
/// - Error text from the integrator's provider is scrubbed of the token before it goes anywhere.
/// - A gateway OneTap ships (`cmcc`, `aliyun-pnvs`, …) is sent a token of a flow it has rows for only under rules that
///   read those rows of `Data/exchange-codes.csv` (``ExchangeRules/serving(_:with:)`` for an aggregator): under others
///   its answer would be billed and misread (an aggregator's `OK` is no code of the carrier's), so nothing is sent, the
///   claim is settled `failed` (as a call that never left), and the answer is ``ExchangeAnswer/fault(_:)`` naming the
///   fix, counted for the breaker as a gateway that cannot make the call.
///
/// The guard holds no tables: the lifetimes and the codes are the ``ExchangeRules`` of the session
/// machine the exchange is for, handed to it with each token (``LoginServer`` and ``LoginCoordinator``
/// pass their machine's ``LoginSessionMachine/exchanges``), so the guard cannot refuse or read answers by
/// other tables than the machine classifies them with.
public struct ExchangeGuard: Sendable {
    /// The carrier call.
    package let provider: any TokenExchangeProvider
    /// Which tokens were sent.
    package let ledger: any ExchangeLedger
    /// The limit on one exchange call: 5 s.
    package let timeout: Duration
    /// How often a retry waiting for an exchange under way reads the ledger: 100 ms.
    package let pollInterval: Duration = .milliseconds(100)
    /// How long past ``timeout`` a retry waits for the exchange's end to be recorded: 1 s.
    package let settleGrace: Duration = .seconds(1)
    /// How many retries of one token wait for its exchange under way on this instance at once: 4 (a mobile network's
    /// retries, and the app's own). One more gets the retryable `timeout` at once: each waiter reads the ledger every
    /// ``pollInterval``, and a client repeating its report a hundred times at once would make as many pollers.
    package let maximumWaiters = 4
    /// The retries waiting now, by token (shared by the guard's copies).
    private let waiters = LockedValue<[SHA256Digest: Int]>([:])

    /// How many retries wait now, every token's (the tests': none is left counted once they end).
    package var waitingRetries: Int { waiters.withLock { $0.values.reduce(0, +) } }
    /// The provider's configuration name when it is a gateway OneTap ships (``NamedGateway``), read once.
    private let gatewayName: String?
    /// The clock the guard dates its claims and its settlements by.
    let clock: any WallClock

    /// Creates a guard.
    /// - Parameters:
    ///   - provider: The integrator's exchange adapter.
    ///   - ledger: Which tokens were sent; in memory by default (share one across instances).
    ///   - timeout: The limit on one call; 5 s.
    ///   - clock: The time source.
    public init(
        provider: any TokenExchangeProvider, ledger: any ExchangeLedger = InMemoryStores.newExchangeLedger(), timeout: Duration = .seconds(5),
        clock: any WallClock = SystemClock()
    ) {
        self.provider = provider
        gatewayName = (provider as? any NamedGateway).map { type(of: $0).name }
        self.ledger = ledger
        self.timeout = timeout
        self.clock = clock
    }

    /// Exchanges a token for a login session, unless it is too old or was exchanged before, under the
    /// guard's ``timeout``.
    /// - Parameters:
    ///   - credential: The success report's credential.
    ///   - session: The login session the report came to.
    ///   - receivedAt: When the server received the success report (the session's exchange stage says).
    ///   - rules: The exchange rules of the machine the login runs on (``LoginSessionMachine/exchanges``):
    ///     the token's lifetime, and which answers mean "already used".
    ///   - events: Where a failure to record the exchange's end is told.
    ///   - recovering: Whether the login's exchange began before (a retry of its success report, whose first request
    ///     exchanged the token and could not store the answer): a token too old to send then still gets what the
    ///     ledger kept of this login's exchange (its answer, or its failure), once an exchange of it under way (a
    ///     claim within the time-out and its grace) has answered; without, a token too old to send touches no ledger.
    /// - Returns: What came of it, bound to the token, to report to the login session.
    /// - Throws: ``StoreError`` when the ledger fails on a claim (nothing was sent), or when this call
    ///   waited for the same login's exchange under way and has no answer of its own to give (`timeout`);
    ///   `CancellationError` when its task was cancelled while it waited. Never an answer made up.
    package func exchange(
        _ credential: CarrierCredential, for session: LoginSessionID, receivedAt: Date, rules: ExchangeRules, events: any EventSink, recovering: Bool = false
    ) async throws -> ExchangeOutcome {
        try await exchange(credential, for: session, receivedAt: receivedAt, rules: rules, limit: timeout, events: events, recovering: recovering)
    }

    /// Exchanges a token under a limit of the caller's (the coordinator's per-flow limit).
    /// - Parameters:
    ///   - credential: The success report's credential.
    ///   - session: The login session the report came to.
    ///   - receivedAt: When the success report was received.
    ///   - rules: The exchange rules of the machine the login runs on.
    ///   - limit: The limit on the carrier call; nil for none.
    ///   - events: Where a failure to record the exchange's end is told.
    ///   - recovering: As in ``exchange(_:for:receivedAt:rules:events:recovering:)``.
    /// - Returns: What came of it, bound to the token.
    /// - Throws: As ``exchange(_:for:receivedAt:rules:events:recovering:)``.
    package func exchange(
        _ credential: CarrierCredential, for session: LoginSessionID, receivedAt: Date, rules: ExchangeRules, limit: Duration?, events: any EventSink,
        recovering: Bool = false
    ) async throws -> ExchangeOutcome {
        let (outcome, settlement) = try await exchange(
            credential, for: session, receivedAt: receivedAt, rules: rules, limit: limit, recovering: recovering
        ) { digest, now in
            try await ledger.claimReadingBack(digest, for: session, at: now)
        }
        if let settlement { await record(settlement, events: events) }
        return outcome
    }

    /// Exchanges a token as ``exchange(_:for:receivedAt:rules:events:recovering:)`` does, under the guard's
    /// ``timeout``, the end of a call that went to the carrier handed back unrecorded: the caller stores the login
    /// session's move first, then records it (``record(_:events:)``), so a retry that finds the answer recorded
    /// finds the session moved on.
    /// - Parameters:
    ///   - credential: The success report's credential.
    ///   - session: The login session the report came to.
    ///   - receivedAt: When the server received the success report.
    ///   - rules: The exchange rules of the machine the login runs on.
    ///   - recovering: As in ``exchange(_:for:receivedAt:rules:events:recovering:)``.
    /// - Returns: What came of it, bound to the token, and the end of the call to record (nil when no call was
    ///   made).
    /// - Throws: As ``exchange(_:for:receivedAt:rules:events:recovering:)``.
    package func exchangeLeavingTheSettle(
        _ credential: CarrierCredential, for session: LoginSessionID, receivedAt: Date, rules: ExchangeRules, recovering: Bool
    ) async throws -> (outcome: ExchangeOutcome, settlement: ExchangeSettlement?) {
        try await exchange(credential, for: session, receivedAt: receivedAt, rules: rules, limit: timeout, recovering: recovering) { digest, now in
            try await ledger.claimReadingBack(digest, for: session, at: now)
        }
    }

    /// Exchanges a token as ``exchange(_:for:receivedAt:rules:events:)`` does, under the guard's ``timeout``,
    /// with two of its ledger writes left to travel with the login session's own (a store that writes both
    /// in one step, ``LoginSessionLedgerWrites``): the first claim is `claim`'s (the ledger's claim written
    /// with the session's compare-and-swap), and the end of a call that went to the carrier is handed back
    /// unrecorded, for the caller to record at once with ``record(_:alongside:)``.
    /// - Parameters:
    ///   - credential: The success report's credential.
    ///   - session: The login session the report came to.
    ///   - receivedAt: When the server received the success report.
    ///   - rules: The exchange rules of the machine the login runs on.
    ///   - claim: Makes the first claim of the token (the digest, the time) as ``ExchangeLedger/claim(_:for:at:)``
    ///     does, for `session`; not called when the token has expired (nothing is claimed then).
    /// - Returns: What came of it, bound to the token, and the end of the call to record (nil when no call
    ///   was made: the answer came from the ledger, or the token had expired).
    /// - Throws: As ``exchange(_:for:receivedAt:rules:events:)``, and what `claim` throws.
    package func exchange(
        _ credential: CarrierCredential, for session: LoginSessionID, receivedAt: Date, rules: ExchangeRules,
        claim: (SHA256Digest, Date) async throws -> ExchangeLedgerEntry?
    ) async throws -> (outcome: ExchangeOutcome, settlement: ExchangeSettlement?) {
        try await exchange(credential, for: session, receivedAt: receivedAt, rules: rules, limit: timeout, recovering: false, claim: claim)
    }

    private func exchange(
        _ credential: CarrierCredential, for session: LoginSessionID, receivedAt: Date, rules: ExchangeRules, limit: Duration?, recovering: Bool,
        claim: (SHA256Digest, Date) async throws -> ExchangeLedgerEntry?
    ) async throws -> (outcome: ExchangeOutcome, settlement: ExchangeSettlement?) {
        let digest = credential.tokenDigest
        let (answer, unreached, callers, settlement) = try await answer(
            credential, digest: digest, session: session, receivedAt: receivedAt, rules: rules, limit: limit, recovering: recovering, claim: claim)
        return (ExchangeOutcome(answer, token: digest, carrierUnreached: unreached, saysNothingOfTheChannel: callers), settlement)
    }

    private func answer(
        _ credential: CarrierCredential, digest: SHA256Digest, session: LoginSessionID, receivedAt: Date, rules: ExchangeRules, limit: Duration?,
        recovering: Bool, claim: (SHA256Digest, Date) async throws -> ExchangeLedgerEntry?
    ) async throws -> (answer: ExchangeAnswer, carrierUnreached: Bool, saysNothingOfTheChannel: Bool, settlement: ExchangeSettlement?) {
        let now = clock.now()
        // A token past its lifetime is never sent: a first report gets `token-expired`; a recovery gets what the ledger
        // kept of this login's exchange of it, once any exchange of it under way has answered.
        let expired = rules.hasExpired(credential.flow, receivedAt: receivedAt, at: now)
        if expired && !recovering { return (.tokenExpired, false, false, nil) }
        // A ledger's StoreError propagates from here: the token was not sent, so there is no answer.
        var held = try await claim(digest, now)
        if expired && held == nil {
            // No claim was kept (the ledger lost it, or swept it): the one just made is settled failed (the token never
            // left), so none is left pending for reconciliation.
            return (.tokenExpired, false, false, ExchangeSettlement(token: digest, state: .failed, at: now))
        }
        var waited = false  // this call waited for another request's exchange of the token
        var resendRefused = false  // this login's resend was made before (or by a concurrent retry)
        var pending: LockWait?  // the wait for the exchange under way, on this instance's clock
        var waiting = false  // this call counts among the token's waiters
        defer {
            if waiting {
                waiters.withLock { waiters in
                    let left = (waiters[digest] ?? 1) - 1
                    waiters[digest] = left > 0 ? left : nil
                }
            }
        }
        while let entry = held {
            if let kept = Self.kept(entry, for: session) { return (kept, false, false, nil) }
            if case .pending = entry.state {
                // The same login's exchange is under way (the app retried its report): wait for its answer, until
                // the claim's time (the claiming instance's clock) plus the time-out and its grace, and no longer
                // than those on this instance's clock (a claimer's clock ahead, this one set back).
                var wait = pending ?? LockWait(timeout: timeout + settleGrace, clock: clock)
                guard clock.now() < entry.claimedAt.addingTimeInterval((timeout + settleGrace).seconds), !wait.isOver else {
                    // A claim no answer came to within its bounds, of a token too old to send again (an instance
                    // that died mid-exchange): the login runs the flow again.
                    if expired && !waited { return (.tokenExpired, false, false, nil) }
                    throw noAnswer(session, "the exchange under way since \(entry.claimedAt.iso8601) has recorded no answer yet")
                }
                if !waiting {
                    let maximum = maximumWaiters
                    waiting = waiters.withLock { waiters in
                        guard waiters[digest, default: 0] < maximum else { return false }
                        waiters[digest, default: 0] += 1
                        return true
                    }
                    guard waiting else {
                        throw noAnswer(session, "\(maximum) requests already wait for the exchange under way on this instance")
                    }
                }
                try await wait.pause(pollInterval)  // throws CancellationError when the caller went away
                pending = wait
                waited = true
                held = try await ledger.claim(digest, for: session, at: clock.now())
                continue
            }
            // Unknown: sent, with no answer known.
            if waited {
                // The exchange this call waited for ended unknown: its own request applies what it got (a
                // time-out, or a provider's fault); a waiter makes no answer of its own.
                throw noAnswer(session, "the exchange this request waited for ended without a known result")
            }
            // Sent, no result known, and too old to send again: kept for reconciliation; the login runs the flow again.
            if expired { return (.tokenExpired, false, false, nil) }
            if resendRefused {
                // Sent twice, no result known: the ledger's final word, kept for reconciliation; the caller's
                // retry found it resent, which says nothing the server saw of the carrier.
                return (.timeout, false, true, nil)
            }
            // This session may send it once more to learn the result.
            if try await ledger.resend(digest, for: session, at: clock.now()) {
                return await send(credential, digest: digest, resent: true, rules: rules, limit: limit)
            }
            // Resent before, or by a concurrent retry of this login: wait for that one's answer, if any.
            resendRefused = true
            held = try await ledger.claim(digest, for: session, at: clock.now())
        }
        if expired {
            // The claim waited for was swept meanwhile, and the claim that found none made one: settled failed (the
            // token never left).
            return (.tokenExpired, false, false, ExchangeSettlement(token: digest, state: .failed, at: clock.now()))
        }
        return await send(credential, digest: digest, resent: false, rules: rules, limit: limit)
    }

    /// Why a provider OneTap ships must not exchange a flow's token under these rules: it has rows of
    /// `Data/exchange-codes.csv` for the flow, but the rules read another gateway's (the carrier's own, by default), so
    /// its answers would be misread (an aggregator's `OK` is a carrier's unknown code: a fallback after a billed
    /// exchange). Nil for a provider of the integrator's (it has no name), rules that read its rows, or a flow it has
    /// no rows for (the provider refuses such a token itself, sending nothing: China Mobile's gateway a Tianyi token).
    /// - Parameters:
    ///   - name: The provider's name (``NamedGateway``), or nil.
    ///   - rules: The machine's exchange rules.
    ///   - flow: The token's flow.
    /// - Returns: What is wrong and the fix (under 200 characters: a trace keeps that much), or nil.
    static func mismatch(_ name: String?, _ rules: ExchangeRules, _ flow: LoginFlow) -> String? {
        guard let name else { return nil }
        let read = rules.gateway(for: flow)
        guard read != name, rules.codes.lists(name, for: flow) else { return nil }
        return "misconfigured: the rules read \(read)'s codes for \(flow), not \(name)'s: ExchangeRules().serving(.\(flow), with: \"\(name)\"); not sent"
    }

    /// What a ledger's entry for a token answers a login without sending it: another login's claim is `replayed`, a
    /// kept answer is that answer, a failed exchange a fault; nil while an exchange is `pending` or `unknown`.
    /// - Parameters:
    ///   - entry: The token's entry.
    ///   - session: The login asking.
    /// - Returns: The answer, or nil.
    private static func kept(_ entry: ExchangeLedgerEntry, for session: LoginSessionID) -> ExchangeAnswer? {
        guard entry.session == session else { return .replayed }
        switch entry.state {
        case .answered(let response): return .answered(response.code, phoneNumber: response.phoneNumber, account: response.account)
        case .failed: return .fault("an earlier exchange of this token failed; it is not sent again")
        case .pending, .unknown: return nil
        }
    }

    /// What a call that waited for another request's exchange throws when it has no answer to give.
    private func noAnswer(_ session: LoginSessionID, _ why: String) -> StoreError {
        StoreError(.timeout, subject: .session(session), message: "\(why); the login's own exchange applies its answer: read the login again")
    }

    /// Sends a claimed token to the carrier; how it ended is for the caller to record.
    private func send(
        _ credential: CarrierCredential, digest: SHA256Digest, resent: Bool, rules: ExchangeRules, limit: Duration?
    ) async -> (answer: ExchangeAnswer, carrierUnreached: Bool, saysNothingOfTheChannel: Bool, settlement: ExchangeSettlement?) {
        let provider = self.provider
        if let mismatch = Self.mismatch(gatewayName, rules, credential.flow) {
            // Sent, it would be billed and its answer misread: nothing is sent, the claim is settled as a call that never
            // left (a resend's first send stays unknown), and the login falls back as after a gateway that cannot make
            // the call. Checked here, past the ledger: a kept answer or another login's claim still answers first.
            return (.fault(mismatch), true, false, ExchangeSettlement(token: digest, state: resent ? .unknown : .failed, at: clock.now()))
        }
        let answer: ExchangeAnswer
        let settled: ExchangeLedgerState
        var unreached = false, callers = false
        // A caller gone before the token left (its client disconnected): nothing is sent, nothing billed; the
        // client's doing. (`Deadline.run` checks again as it starts the call.)
        if Task.isCancelled {
            // A resend's first send is still unknown (the resend is spent): the login learns nothing new.
            if resent { return (.timeout, false, true, ExchangeSettlement(token: digest, state: .unknown, at: clock.now())) }
            return (.fault("the caller went away before the token was sent"), false, true, ExchangeSettlement(token: digest, state: .failed, at: clock.now()))
        }
        do {
            let response = try await Deadline.run(limit: limit, clock: clock) { try await provider.exchange(credential) }
            if resent, rules.saysAlreadyUsed(response.code, for: credential.flow) {
                // "Already used" for a token whose first exchange went unanswered: still unknown, and the
                // caller's resend, not the carrier failing.
                (answer, settled) = (.timeout, .unknown)
                callers = true
            } else {
                (answer, settled) = (.answered(response.code, phoneNumber: response.phoneNumber, account: response.account), .answered(response))
            }
        } catch {
            // A time-out, or the caller gone (a client disconnect cancels its request) while the carrier had the
            // token: the carrier may have answered, and billed. Unknown, so reconciliation lists it; only this
            // session may resend it, once. An adapter's "never sent": nothing billed, the token not spent (a resent
            // token's first send is still unknown). Any other throw (a malformed body, a reset after sending) may
            // follow a billed answer: unknown. (``ExchangeCallFailure``, the one reading of a throw.)
            let failure = ExchangeCallFailure(error, callerCancelled: Task.isCancelled)
            (answer, unreached, callers) = failure.exchangeAnswer(scrubbing: [credential.token, credential.refreshToken])
            settled = failure.mayHaveReachedTheGateway || resent ? .unknown : .failed
        }
        return (answer, unreached, callers, ExchangeSettlement(token: digest, state: settled, at: clock.now()))
    }
}
