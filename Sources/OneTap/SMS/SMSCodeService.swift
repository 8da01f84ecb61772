/// One-time SMS codes with the limits that stop SMS bombing, pumping and guessing: the SMS half of a
/// login, as real as the one-tap half.
///
/// ```swift
/// let sms = SMSCodeService(keys: try ServerKeyRing(parsing: secrets.serverKeys), sender: AliyunSender(), captcha: MyCaptcha(), store: shared)
/// // POST /sms      {"number": "13800138000"}
/// switch try await sms.send(to: body.number, context: SMSContext(ip: clientIP, device: deviceID, session: id)) {
/// case .sent(let expiresAt, let resendAfter): …        // 200, show the count-down to resendAfter
/// case .captchaRequired(let rule, _): …                // 428, show a captcha, send again with its token
/// case .limited(_, let retryAfter), .senderFailed(let retryAfter): …  // 429 with Retry-After
/// case .refused(let refusal): …                        // 422, refusal.message
/// }
/// ```
/// Every answer is decided by OneTapCore's pure SMS rules over the policy and segment tables, inside one
/// atomic store update, so all instances that share a store share the limits. A send that a captcha rule holds back is decided again with the
/// captcha once the verifier accepted its token: a captcha passes a captcha rule, never a hard limit.
///
/// Each login session has its own code per number (a stranger's send, in the stranger's session,
/// neither replaces nor spends the owner's), and no rule locks a number against its owner: wrong codes
/// slow down the login session that made them with growing delays (`throttled`), and an address or device
/// id past its hourly wrong codes, or a number guessed at from many sessions or past its daily bound, asks for
/// a captcha with the verify
/// (`captchaRequired`; send the verify again with the solved token in ``SMSContext/captcha``). A service given no
/// ``CaptchaVerifier`` asks for no captcha: a captcha rule that holds is answered as the wait it is (`limited` for a
/// send, `throttled` for a verify), until the named rule's side frees a place (the requester's own rules when one of
/// them is named; a rule on the number may then still hold, told at the retry).
/// Each answer is also an event (area `sms`). Time comes from the injected clock (`FakeClock` in tests, so a
/// test decides a day of traffic in a moment; give a ``LoginServer``'s service the server's clock).
public struct SMSCodeService: Sendable, CustomStringConvertible, CustomReflectable {
    /// The rules: policy, segments, code lifetime and tries.
    package let rules: SMSCodeRules
    private let keys: ServerKeyRing
    /// The ring's keys, the signing key first, listed once: what a verify tries.
    private let verifyKeys: [ServerKey]
    private let sender: any SMSSender
    let captcha: (any CaptchaVerifier)?
    let store: any SMSStore
    private let events: any EventSink
    let clock: any WallClock

    /// Creates the service.
    /// - Parameters:
    ///   - keys: The server's keys (every instance shares them): codes are stored under the signing key
    ///     and checked under every key, so a rotation keeps the codes already sent.
    ///   - sender: The SMS gateway.
    ///   - captcha: Checks captcha tokens; without one, a captcha rule can only be waited out, and the
    ///     service says so when it is made (an `sms` `captcha-missing` event naming the policy's captcha rules).
    ///   - store: Counters and code records; in memory by default (share one across instances).
    ///   - policy: The limits; `Data/sms-policy.csv` by default.
    ///   - tables: The decision tables, the engine's (built in from `Data/` by default, or
    ///     `DecisionTables(directory:)`): their number segments' kinds tell which numbers cannot take SMS.
    ///   - events: Receives its events (area `sms`); standard error by default.
    ///   - clock: The time source: when a code is sent, expires, may be sent again; the system clock by
    ///     default.
    public init(
        keys: ServerKeyRing, sender: any SMSSender, captcha: (any CaptchaVerifier)? = nil, store: any SMSStore = InMemoryStores.newSMSStore(),
        policy: SMSPolicy = .builtIn, tables: DecisionTables = DecisionTables(), events: any EventSink = StandardErrorEventSink.shared,
        clock: any WallClock = SystemClock()
    ) {
        self.clock = clock
        self.keys = keys
        verifyKeys = keys.entries.map(\.key)
        self.sender = sender
        self.captcha = captcha
        self.store = store
        self.rules = SMSCodeRules(policy: policy, segments: tables.segments)
        self.events = events
        let captchaRules = policy.rules.filter { $0.over == .captcha }.map(\.id)
        if captcha == nil, !captchaRules.isEmpty {
            events.receive(OneTapEvent(at: clock.now(), .sms(.captchaMissing(rules: captchaRules))))
        }
    }

    /// A service with one key (the package's tests and tools).
    package init(
        key: ServerKey, sender: any SMSSender, captcha: (any CaptchaVerifier)? = nil, store: any SMSStore = InMemoryStores.newSMSStore(),
        policy: SMSPolicy = .builtIn, tables: DecisionTables = DecisionTables(), events: any EventSink = StandardErrorEventSink.shared,
        clock: any WallClock = SystemClock()
    ) {
        self.init(
            keys: ServerKeyRing(single: key), sender: sender, captcha: captcha, store: store, policy: policy, tables: tables, events: events,
            clock: clock)
    }

    /// Sends a code to a number the client typed.
    /// - Parameters:
    ///   - text: The number as sent (`13800138000`, `+86 138 0013 8000`).
    ///   - context: Who asks: address, device, session, captcha token.
    /// - Returns: `refused(not-mainland-mobile)` for text that is no mainland mobile number; else
    ///   `sent`, `captchaRequired`, `limited` (a rule's, or `gateway`: the gateway's own flow control refused it; it
    ///   counts, but for a returning owner's, whose counts on the number and its lane are taken back),
    ///   `refused` (an IoT-only or unallocated segment), or `senderFailed` (the gateway did not confirm the message; the
    ///   attempt counted, but for one that never reached it, whose counts on the number, the session and all requests
    ///   are taken back).
    /// - Throws: ``StoreError`` when the store fails (nothing was sent; nothing counted, but when the store fails again
    ///   as a message that did not go out is taken back: that send stays counted); `CancellationError` for a caller gone
    ///   before the message was handed to the gateway (nothing sent, the send taken back), or while its captcha was
    ///   checked (nothing sent; the check counted once it may have reached the provider).
    public func send(to text: String, context: SMSContext) async throws -> SMSSendResult {
        switch rules.recipient(text) {
        case .failure(let refusal):
            let result = SMSSendResult.refused(refusal)
            emit(.send(result, number: nil, session: context.session), at: clock.now())
            return result
        case .success(let number):
            return try await send(to: number, context: context)
        }
    }

    /// Sends a code to a parsed number (what ``send(to:context:)`` and `LoginServer.sendSMS` call once
    /// the text is a number).
    /// - Parameters:
    ///   - number: The number.
    ///   - context: Who asks: address, device, session, captcha token.
    /// - Returns: `sent`, `captchaRequired`, `limited` (a rule's, or `gateway`, taken back as ``send(to:context:)``
    ///   says), `refused` (an IoT-only or unallocated segment), or `senderFailed` (the gateway did not confirm the
    ///   message; the attempt counted, but for one that never reached it, whose counts on the number, the session and
    ///   all requests are taken back).
    /// - Throws: As ``send(to:context:)``.
    package func send(to number: PhoneNumber, context: SMSContext) async throws -> SMSSendResult {
        let now = clock.now()
        let result = try await decideAndSend(to: number, context: context, at: now)
        emit(.send(result, number: number, session: context.session), at: now)
        return result
    }

    private func decideAndSend(to number: PhoneNumber, context: SMSContext, at now: Date) async throws -> SMSSendResult {
        if let refusal = rules.refusal(for: number) { return .refused(refusal) }
        let request = context.request(for: number)
        let counters = rules.sendCounters(for: request)
        let slot = SMSCodeKey(number: number, session: context.session)
        var (code, record) = rules.issue(to: number, session: context.session, key: keys.signing, at: now)
        var decidedAt = now  // the instant the send is counted at
        var captchaSolved = false  // the send passed a captcha rule with a solved captcha
        let rules = self.rules
        var (decision, replaced) = try await admit(record, request, counters: counters, slot: slot, captchaPassed: false, at: now)
        if case .captcha(let rule, let freesAt) = decision {
            // A server that checks no captcha asks for none: the rule is a wait, told as one.
            guard captcha != nil else { return .limited(rule: rule, retryAfter: freesAt) }
            guard let token = context.captcha else { return .captchaRequired(rule: rule, rejected: false) }
            switch try await checkCaptcha(token, request, context: context, number: number, at: now) {
            case .solved:
                break
            case .waits(let rule, let until):
                return .limited(rule: rule, retryAfter: until)
            case .rejected, .unchecked:
                return .captchaRequired(rule: rule, rejected: true)
            }
            // The captcha provider took its time: the send is decided, and its code issued, at the time it returns.
            let solvedAt = clock.now()
            decidedAt = solvedAt
            captchaSolved = true
            (code, record) = rules.issue(to: number, session: context.session, key: keys.signing, at: solvedAt)
            (decision, replaced) = try await admit(record, request, counters: counters, slot: slot, captchaPassed: true, at: solvedAt)
        }
        switch decision {
        case .captcha(let rule, _):
            return .captchaRequired(rule: rule, rejected: false)
        case .limited(let rule, let retryAfter):
            return .limited(rule: rule, retryAfter: retryAfter)
        case .admit(let resendAfter):
            var handedOver = false  // whether the sender was called: a caller gone before then sends nothing
            do {
                try Task.checkCancellation()
                handedOver = true
                try await sender.send(SMSMessage(number: number, code: code, expiresAt: record.expiresAt, session: context.session))
            } catch {
                let message = PhoneNumber.maskingNumbers(in: Secret.scrub(String(describing: error), of: [code]), limit: 200)
                // A caller gone before the sender was called is no word on the gateway.
                if handedOver { emit(.providerFailed(provider: "sender", number: number, message: message), at: now) }
                // A message the gateway may have taken (no answer in time, an answer that cannot be read, a call whose
                // caller went away once it had left) keeps its code: withdrawn, a code that arrives anyway would not
                // verify, and the user would pay for a second message. One the gateway refused, or that never left, is
                // withdrawn, and the code it replaced (the user may hold it from an earlier send in the session) is the
                // session's again until its own expiry; one that never left is no send to its number either: its counts
                // on the number, the session and all requests are taken back, the requester's address and device keep
                // theirs (the gateway refusing it counted it, as gateways count every submission). A send that the
                // gateway's own flow control refused (`throttled`) gives back its counts on the number and its lane
                // only, when a returning owner sent it or a captcha was solved for it: a gateway hour that a stranger
                // filled must not spend the number's daily room with every try (an owner's, with a lane of its own or
                // without, which meets the number's captcha rules by then), while its login session's, its address's
                // and the global counts still bound its tries; a captcha-free try stays counted, so strangers' tries
                // from fresh addresses meet the number's captcha rules as delivered sends do.
                // A caller gone before the sender was called is a message that never left. (One gone after, while the
                // sender or its transport had not sent anything yet, stays a message that may have left: a transport
                // reports the cancellation, not whether the request had gone.)
                let mayHaveReached = handedOver && (error is CancellationError || ((error as? GatewayError)?.mayHaveReachedVendor ?? false))
                let throttled = (error as? SMSDeliveryError)?.reason == .throttled && (context.returningOwner || captchaSolved)
                if !mayHaveReached {
                    let unsent: SMSCodeRules.Unsent? = !handedOver || error is GatewayError ? .neverLeft : throttled ? .throttled : nil
                    let id = record.id, countedAt = decidedAt, replaced = replaced, answeredAt = clock.now(), store = self.store
                    // Written whatever became of the caller meanwhile (as a captcha's take-back is): skipped, the unsent
                    // code would stand in place of the one the user holds, and its counts with it.
                    try await writeDespiteCancellation {
                        try await store.update(counters: unsent == nil ? [] : counters, code: slot, at: now) { state in
                            rules.takeBack(&state, id: id, restoring: replaced, request, countedAt: countedAt, unsent, at: answeredAt)
                        }
                    }
                }
                if !handedOver { throw error }
                switch (error as? SMSDeliveryError)?.reason {
                case .numberRejected: return .refused(SMSRefusal(kind: .gatewayRejected, message: message))
                // The gateway's own minute holds a throttled send back (1 a minute per number at Aliyun and Tencent),
                // whether or not its counts went back.
                case .throttled: return .limited(rule: "gateway", retryAfter: now.addingTimeInterval(60))
                case .failed, nil: return .senderFailed(retryAfter: resendAfter)
                }
            }
            return .sent(expiresAt: record.expiresAt, resendAfter: resendAfter)
        }
    }

    /// Decides a send in one store update and, when it is admitted, counts it and installs its code. An update that may
    /// have been written though it failed (the connection lost after the commit) and that admitted the send is taken
    /// back as a message that never left (``SMSCodeRules/takeBack(_:id:restoring:_:countedAt:_:at:)``: nothing changes
    /// unless it landed), from what its last run computed in this process: else the code the user holds would answer
    /// `wrong` and the number's minute refuse the retry (an attacker's read). A take-back that fails leaves it counted.
    /// - Returns: The decision, and the code record the update found for the number and session (which an admitted send
    ///   replaced, and which a withdrawal restores).
    /// - Throws: ``StoreError`` from the update.
    private func admit(
        _ record: SMSCodeRecord, _ request: SMSPolicy.Request, counters: [SMSPolicy.Counter], slot: SMSCodeKey, captchaPassed: Bool, at now: Date
    ) async throws -> (SMSPolicy.SendDecision, replaced: SMSCodeRecord?) {
        let rules = self.rules, store = self.store
        let lastRun = LockedValue<(admitted: Bool, replaced: SMSCodeRecord?)>((false, nil))
        do {
            return try await store.update(counters: counters, code: slot, at: now) { state in
                let found = state.code, decision = rules.admit(&state, request, captchaPassed: captchaPassed, record: record, at: now)
                lastRun.withLock { if case .admit = decision { $0 = (true, found) } else { $0 = (false, found) } }
                return (decision, found)
            }
        } catch let error as StoreError where error.writeMayHaveGoneIn && lastRun.withLock({ $0.admitted }) {
            let replaced = lastRun.withLock { $0.replaced }, id = record.id, answeredAt = clock.now()
            _ = try? await writeDespiteCancellation {
                try await store.update(counters: counters, code: slot, at: now) { state in
                    rules.takeBack(&state, id: id, restoring: replaced, request, countedAt: now, .neverLeft, at: answeredAt)
                }
            }
            throw error
        }
    }

    /// Verifies the code a client typed.
    /// - Parameters:
    ///   - code: The code, as typed.
    ///   - number: The number it was sent to.
    ///   - context: Who asks; its session must be the one the code was sent for (the code of another
    ///     session is not this verify's); its captcha token is checked when a rule asks for one.
    /// - Returns: `verified` with the ``SMSVerdict`` a login session's SMS step takes, or `wrong`,
    ///   `expired`, `tooManyAttempts`, `noCode`, `throttled`, `captchaRequired`, `locked` (a policy with
    ///   a lock rule).
    /// - Throws: ``StoreError`` when the store fails (nothing was counted); `CancellationError` for a caller gone while
    ///   its captcha was checked (the check counted once it may have reached the provider).
    /// - Complexity: One HMAC-SHA-256 and one store update (two when a captcha came and was needed).
    public func verify(_ code: Secret, for number: PhoneNumber, context: SMSContext) async throws -> SMSVerifyResult {
        let now = clock.now()
        let request = context.request(for: number)
        let rules = self.rules
        let keys = verifyKeys
        let counters = rules.verifyCounters(for: request)
        let slot = SMSCodeKey(number: number, session: context.session)
        let checksCaptchas = self.checksCaptchas
        var result = try await store.update(counters: counters, code: slot, at: now) { state in
            rules.verify(&state, candidate: code, number: number, request, keys: keys, checksCaptchas: checksCaptchas, at: now)
        }
        if case .captchaRequired(let rule, _) = result, let token = context.captcha {
            switch try await checkCaptcha(token, request, context: context, number: number, at: now) {
            case .solved:
                // Decided at the time the captcha provider answered: a code that expired meanwhile is expired.
                let solvedAt = clock.now()
                result = try await store.update(counters: counters, code: slot, at: solvedAt) { state in
                    rules.verify(&state, candidate: code, number: number, request, keys: keys, captchaPassed: true, at: solvedAt)
                }
            case .waits(let rule, let until):
                result = .throttled(rule: rule, retryAfter: until)
            case .rejected, .unchecked:
                result = .captchaRequired(rule: rule, rejected: true)
            }
        }
        emit(.verify(result, number: number, session: context.session, readAsCode: SMSCodeRules.readsAsCode(code)), at: now)
        return result
    }

    /// `SMSCodeService(7 rules)`: never the key, nor what the sender or captcha verifier hold.
    public var description: String { "SMSCodeService(\(rules.policy.rules.count) rules)" }

    /// A mirror showing only the rules, so `dump` prints no key and nothing of the providers.
    public var customMirror: Mirror { Mirror(self, children: ["rules": rules.policy.rules.map(\.description)], displayStyle: .struct) }

    func emit(_ event: SMSEvent, at now: Date) {
        events.receive(OneTapEvent(at: now, .sms(event)))
    }
}
