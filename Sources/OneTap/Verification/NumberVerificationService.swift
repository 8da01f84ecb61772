/// Number verification (本机号码校验) guarded like the token exchange: each token is sent to the paid gateway at
/// most once, never past its lifetime, never over the caller's quota, and every call ends in `pass`, `reject` or
/// `unknown` with whether it was billed.
///
/// - A token older than its flow's lifetime (`Data/token-lifetimes.csv`, the gateway's row, from when the server
///   received it) is not sent: `unknown`, not billed, not counted; nor is a credential of no one-tap flow (`not-sent`).
///   The flow is the credential's label, which a caller sets at will: a recorded answer goes back to its caller for
///   the gateway's shortest token lifetime (with the built-in table two minutes, one for `jverification`), whatever it
///   names.
/// - With a ``NumberVerificationQuota``, each call with a live token counts against the caller key the integrator
///   passes (a retry too): over the quota, `unknown` (`limited`, with when to try again), not sent, not billed; a
///   counter store that fails, `unknown` (`quota-store-failed`), not sent, not billed (fail closed). Neither claims
///   the token, so it can still be verified once the window passes (within its lifetime). A call whose claim the
///   ledger refused sent nothing: its count is given back.
/// - Each token is claimed in an ``ExchangeLedger`` (the exchange's; one ledger serves both) under a key of its
///   own, the SHA-256 of a marker byte that no UTF-8 text holds followed by the token, so a verification token
///   can never take or meet an exchange's claim (an exchange's key is the SHA-256 of the token's UTF-8). The
///   claim's owner is derived from the token and the number (HMAC-SHA256 keyed by the token over the number, its
///   first 16 bytes as a ``LoginSessionID``; the caller too, when one is named): the same token with the same number is the same owner on every
///   instance, and the ledger, which never holds the token, cannot be searched for the number.
/// - The same token with the same number from the same named caller again, once the gateway's answer is recorded
///   (the app lost it and asked again), gets that answer back from the ledger (with no caller named, none: whoever
///   holds a captured token would be that caller too): its code and verdict, `billed` false, reason `replayed-answer`;
///   it is not sent again. Any other earlier claim (the same token with another number, so a captured token never
///   answers for a guessed number; a call still under way, or one whose end was never recorded; one that timed
///   out, failed or never left) is not sent again: `unknown`, not billed, `token-replayed`. A claim whose write may
///   have gone in (its answer lost) is read back, as the login's exchange reads its own: found as made, the token is
///   sent. A ledger that fails on the claim throws its ``StoreError``: nothing was sent and there is no answer.
/// - The provider's answer is kept in the ledger (its code and verdict, never the number); an answer's `billed`
///   comes from `Data/verification-billing.csv` by the gateway's name and the verdict (vendors bill `pass` and
///   `reject`).
/// - A provider that throws ``ExchangeNotSentError`` sent nothing: `unknown`, not billed, the ledger's row
///   `failed`. One that throws anything else, or does not answer within the time-out, may have been billed:
///   `unknown`, `billed` nil, the row `unknown` (listed by ``ExchangeLedger/unknownExchanges(since:pendingClaimedBefore:after:limit:)``
///   for reconciliation).
/// - A caller's task cancelled while the provider has the token throws `CancellationError`, once the row is
///   recorded `unknown` (the end is written even for a cancelled task).
/// - Every call that ends is a `verified` event in area `verify` with its reason; a ledger that cannot record the
///   end is a `settle-failed` event (the answer stands). Neither holds a token, a number or a caller key.
public struct NumberVerificationService: Sendable {
    /// The gateway's adapter.
    package let provider: any NumberVerificationProvider
    /// Which tokens were sent.
    package let ledger: any ExchangeLedger
    /// The limit on one provider call.
    package let timeout: Duration
    /// The tokens' lifetimes.
    package let lifetimes: TokenLifetimeTable
    /// What the gateways bill.
    package let billing: VerificationBillingTable
    /// The limit on each caller's verifications; nil for none.
    package let quota: NumberVerificationQuota?
    private let clock: any WallClock
    private let events: any EventSink

    /// Creates a service.
    /// - Parameters:
    ///   - provider: The gateway's adapter (`ChinaMobileNumberVerification` in `OneTapGateways`, or your own).
    ///   - ledger: Which tokens were sent; in memory by default (share one across instances: `PostgresExchangeLedger`).
    ///   - timeout: The limit on one gateway call: 5 s.
    ///   - quota: The limit on each caller's verifications (each a paid call). No default: a service is never left
    ///     without a bound on the bill by an argument forgotten; `nil` for none, chosen, which the service says when it
    ///     is made (a `verify` `quota-missing` event).
    ///   - clock: The time source.
    ///   - events: Where each verification's end is told.
    public init(
        provider: any NumberVerificationProvider, ledger: any ExchangeLedger = InMemoryStores.newExchangeLedger(), timeout: Duration = .seconds(5),
        quota: NumberVerificationQuota?, clock: any WallClock = SystemClock(), events: any EventSink = StandardErrorEventSink.shared
    ) {
        self.init(provider: provider, ledger: ledger, timeout: timeout, clock: clock, events: events, lifetimes: .builtIn, billing: .builtIn, quota: quota)
    }

    /// Creates a service with other tables (tests, `--data`).
    /// - Parameters:
    ///   - provider: The gateway's adapter.
    ///   - ledger: Which tokens were sent.
    ///   - timeout: The limit on one gateway call.
    ///   - clock: The time source.
    ///   - events: Where each verification's end is told.
    ///   - lifetimes: The tokens' lifetimes.
    ///   - billing: What the gateways bill.
    ///   - quota: The limit on each caller's verifications; nil for none (a `quota-missing` event says so).
    package init(
        provider: any NumberVerificationProvider, ledger: any ExchangeLedger, timeout: Duration, clock: any WallClock, events: any EventSink,
        lifetimes: TokenLifetimeTable, billing: VerificationBillingTable, quota: NumberVerificationQuota? = nil
    ) {
        self.provider = provider
        self.ledger = ledger
        self.timeout = timeout
        self.clock = clock
        self.events = events
        self.lifetimes = lifetimes
        self.billing = billing
        self.quota = quota
        if quota == nil {
            events.receive(OneTapEvent(at: clock.now(), .verify(.quotaMissing(gateway: gateway))))
        }
    }

    /// How long a recorded answer goes back to its caller: the shortest lifetime of the gateway's one-tap tokens
    /// (`Data/token-lifetimes.csv`), whatever flow a request names (a caller sets the label at will); nil when the
    /// table lists none.
    private var replayLifetime: Duration? {
        LoginFlow.allCases.filter(\.isOneTap).compactMap { lifetimes.entry(for: $0, gateway: gateway)?.lifetime }.min()
    }

    /// The gateway's name in `Data/verification-billing.csv`: its configuration name, or `*` for a provider OneTap
    /// does not ship.
    package var gateway: String { (type(of: provider) as? any NamedGateway.Type)?.name ?? "*" }

    /// The ledger key of a verification token: SHA-256 of `0xFF` (a byte no UTF-8 text holds), `verify:`, then the
    /// token's UTF-8. An exchange's key hashes a token's UTF-8 alone, so the two never share an input.
    /// - Parameter token: The token.
    /// - Returns: The key.
    package static func key(of token: Secret) -> SHA256Digest {
        SHA256.hash([0xFF] + Array("verify:".utf8) + Array(token.reveal().utf8))
    }

    /// The owner a verification claims its token for: the first 16 bytes of HMAC-SHA256 keyed by the token's UTF-8
    /// over `verify-owner:`, the number's 11 digits and, when a caller is given, `:` and the caller. The same for the
    /// same token, number and caller on every instance; another number or another caller is another owner, so a
    /// recorded answer goes back to none but its own caller; without the token (which no ledger holds) it says
    /// nothing of the number.
    /// - Parameters:
    ///   - token: The token.
    ///   - number: The number verified.
    ///   - caller: The caller, as ``verify(_:number:receivedAt:caller:)`` took it.
    /// - Returns: The owner.
    package static func owner(of token: Secret, number: PhoneNumber, caller: String? = nil) -> LoginSessionID {
        let message = "verify-owner:\(number.digits)" + (caller.flatMap { $0.isEmpty ? nil : ":" + $0 } ?? "")
        return LoginSessionID(derivedFrom: HMACSHA256.authenticationCode(for: Array(message.utf8), key: Array(token.reveal().utf8)))
    }

    /// Asks the gateway whether `number` is the number of the SIM the token came from, unless the token is too old,
    /// the caller is over its quota, or the token was sent before (the same token with the same number gets the
    /// recorded answer back).
    /// - Parameters:
    ///   - credential: What the one-tap SDK's verification call produced (its token).
    ///   - number: The number to check (the one the user typed).
    ///   - receivedAt: When your server received the token; now when nil (or later than now).
    ///   - caller: Whom the quota counts the call against, and whom a recorded answer goes back to: what your server
    ///     proved of the end user (the account or app session its authentication established), never a claim read from
    ///     the request, which a caller changes at will to get a fresh quota, nor a key every user shares. Stored only as
    ///     its SHA-256. Nil or empty counts in the quota's one shared `(not given)` bucket (a missing key never removes
    ///     the limit), and gets no recorded answer again (a retry is `token-replayed`).
    /// - Returns: The verdict, the gateway's code, and whether the call was billed; `not-sent` for a credential of no
    ///   one-tap flow. A recorded answer goes back to its caller for the gateway's shortest token lifetime from its
    ///   claim, whatever flow the credential names.
    /// - Throws: ``StoreError`` when the ledger fails on the claim (nothing was sent, the quota's count given back); `CancellationError` when the
    ///   caller's task was cancelled (before the claim, or while the gateway had the token).
    public func verify(
        _ credential: CarrierCredential, number: PhoneNumber, receivedAt: Date? = nil, caller: String? = nil
    ) async throws -> NumberVerification {
        try Task.checkCancellation()
        let now = clock.now()
        let key = Self.key(of: credential.token)
        // The flow is the request's label: it picks the token's lifetime before the send (the gateway's own row, as an
        // exchange's), which the vendor, which knows the token, bounds anyway; never how long a recorded answer lasts.
        guard credential.flow.isOneTap else {
            return told(NumberVerification(code: nil, verdict: .unknown, billed: false, reason: .notSent, detail: "a number verification takes a one-tap flow's token, not \(credential.flow)'s"), key, credential.flow)
        }
        if lifetimes.hasExpired(credential.flow, gateway: gateway, receivedAt: receivedAt ?? now, at: now) {
            return told(NumberVerification(code: nil, verdict: .unknown, billed: false, reason: .tokenExpired), key, credential.flow)
        }
        if let quota, let refused = try await quota.refusal(caller, at: now) {
            return told(refused, key, credential.flow)
        }
        // The ledger's StoreError propagates, once a claim whose answer was lost is read back: nothing was sent, so
        // there is no answer, and the call's count is given back (a caller retrying through an outage is not held to
        // calls that never left).
        let owner = Self.owner(of: credential.token, number: number, caller: caller)
        let held: ExchangeLedgerEntry?
        do {
            held = try await ledger.claimReadingBack(key, for: owner, at: now)
        } catch let error as StoreError {
            await quota?.refund(caller, countedAt: now)
            throw error
        }
        if let held {
            let named = !(caller ?? "").isEmpty
            return told(Self.replay(held, owner: owner, answersAgain: named, lifetime: replayLifetime, at: now), key, credential.flow)
        }
        let provider = self.provider
        let answer: NumberVerification
        let settled: ExchangeLedgerState
        var cancelled = false
        if Task.isCancelled {
            // The caller went away before the token left: nothing sent, nothing billed, nothing to reconcile.
            (answer, settled) = (NumberVerification(code: nil, verdict: .unknown, billed: false, reason: .cancelled), .failed)
            cancelled = true
        } else {
            do {
                let response = try await Deadline.run(limit: timeout, clock: clock) { try await provider.verify(credential, number: number) }
                let billed = billing.entry(gateway: gateway, verdict: response.verdict.rawValue)?.billed ?? (response.verdict != .unknown)
                answer = NumberVerification(code: response.code, verdict: response.verdict, billed: billed, reason: .answered)
                settled = .answered(ExchangeResponse(code: response.code, verdict: response.verdict))
            } catch {
                // Read as an exchange's throw is (``ExchangeCallFailure``).
                switch ExchangeCallFailure(error, callerCancelled: Task.isCancelled) {
                case .timedOut:
                    (answer, settled) = (NumberVerification(code: nil, verdict: .unknown, billed: nil, reason: .timedOut), .unknown)
                case .cancelled:
                    // The caller went away while the gateway had the token: it may have answered, and billed.
                    (answer, settled) = (NumberVerification(code: nil, verdict: .unknown, billed: nil, reason: .cancelled), .unknown)
                    cancelled = true
                case .notSent(let error):
                    (answer, settled) = (NumberVerification(code: nil, verdict: .unknown, billed: false, reason: .notSent, detail: scrub(error.reason, credential)), .failed)
                case .fault(let error):
                    (answer, settled) = (NumberVerification(code: nil, verdict: .unknown, billed: nil, reason: .fault, detail: scrub("\(error)", credential)), .unknown)
                }
            }
        }
        await record(key, settled)
        told(answer, key, credential.flow)
        if cancelled { throw CancellationError() }
        return answer
    }

    /// What a token claimed before answers: the recorded answer, unbilled, when a caller is named, the claim is this
    /// token's with this number and caller, its answer (with its verdict) is recorded and the token's lifetime since the
    /// claim has not passed (an honest retry); `unknown` (`token-expired`) once it has, so a one-time token never
    /// becomes a lasting proof; otherwise `unknown` (`token-replayed`), not sent, not billed. With no caller named,
    /// whoever holds a captured token is the caller, and a recorded answer for the right number beside `token-replayed`
    /// for a wrong one would tell which number the token verified: no answer is given again.
    /// - Parameters:
    ///   - entry: What the ledger holds.
    ///   - owner: This call's owner (``owner(of:number:caller:)``).
    ///   - answersAgain: Whether a recorded answer may go back (a caller was named).
    ///   - lifetime: How long an answer lasts from its claim (the gateway's shortest token lifetime), or nil when the
    ///     table lists none.
    ///   - now: The time.
    /// - Returns: The answer.
    package static func replay(_ entry: ExchangeLedgerEntry, owner: LoginSessionID, answersAgain: Bool, lifetime: Duration?, at now: Date) -> NumberVerification {
        if let lifetime, now >= entry.claimedAt.addingTimeInterval(lifetime.seconds) {
            return NumberVerification(code: nil, verdict: .unknown, billed: false, reason: .tokenExpired)
        }
        if answersAgain, entry.session == owner, case .answered(let response) = entry.state, let verdict = response.verdict {
            return NumberVerification(code: response.code, verdict: verdict, billed: false, reason: .replayedAnswer)
        }
        return NumberVerification(code: nil, verdict: .unknown, billed: false, reason: .tokenReplayed)
    }

    /// Tells a verification's end and hands its answer back.
    @discardableResult
    private func told(_ answer: NumberVerification, _ key: SHA256Digest, _ flow: LoginFlow) -> NumberVerification {
        events.receive(OneTapEvent(at: clock.now(), .verify(.verified(
            token: String(key.hex.prefix(8)), flow: flow, gateway: gateway, code: answer.code, verdict: answer.verdict, billed: answer.billed,
            reason: answer.reason))))
        return answer
    }

    /// Records how a verification ended, even for a caller whose task was cancelled; a failure is an event.
    private func record(_ key: SHA256Digest, _ settled: ExchangeLedgerState) async {
        do {
            try await ledger.settleDespiteCancellation(key, settled, at: clock.now())
        } catch {
            events.receive(OneTapEvent(at: clock.now(), .verify(.settleFailed(token: String(key.hex.prefix(8)), state: settled.name, reason: PhoneNumber.maskingNumbers(in: "\(error)", limit: 200)))))
        }
    }

    private func scrub(_ text: String, _ credential: CarrierCredential) -> String {
        // Not cut here: `NumberVerification` masks the numbers first, then cuts (a number cut in two would not be masked).
        Secret.scrub(text, of: [credential.token, credential.refreshToken])
    }
}
