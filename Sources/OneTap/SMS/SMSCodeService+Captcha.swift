import Foundation

// A captcha token's check: the one place a send, a verify and a login start ask the captcha provider, and the
// rejected-captcha counters that bound how often one requester makes it answer.

extension SMSCodeService {
    /// What came of a captcha token.
    package enum CaptchaCheck: Equatable {
        /// Solved.
        case solved
        /// Not checked yet: past the rejected captchas its own keys sent, the requester waits until then.
        case waits(rule: String, until: Date)
        /// The provider answered that it is not solved, or answered with an error (a vendor's error code for a made-up
        /// or replayed token, a token refused before sending, a verifier's own error: said by a `provider-failed`
        /// event): counted against the requester's own keys.
        case rejected
        /// Not judged: no verifier, or the provider was down or misconfigured (a ``GatewayError`` that it could not be
        /// reached, sent nothing, timed out, lost the answer to a request it got twice, answered 5xx, or is
        /// misconfigured; or it answered a code that says the fault is its own or the account's, a ``ProviderFault``: a
        /// `provider-failed` event), which is no word on the token; nothing is counted.
        case unchecked
    }

    /// Checks a token with the captcha provider, unless the requester's rejected captchas make it wait, and
    /// counts a rejection. The one place a send, a verify and a login start ask the provider: the rejected-captcha
    /// counters are read here (and by ``startCaptchaWait(context:)``) only, in counters-only updates, off the path of
    /// every request that brings no token.
    func checkCaptcha(_ token: Secret, _ request: SMSPolicy.Request, context: SMSContext, number: PhoneNumber?, at now: Date) async throws -> CaptchaCheck {
        guard let captcha else { return .unchecked }
        let rules = self.rules
        let counters = rules.captchaCounters(for: request)
        // The check is counted as rejected in the update that finds no wait, before the provider is asked, so checks
        // that race each see the ones before them (read apart, every one of a burst found no wait and reached the
        // provider: an attacker's read); a token that passes, or that the provider never judged, is taken back.
        if let wait = try await store.update(counters: counters, code: nil, at: now, { state in rules.reserveCaptchaCheck(&state, request, at: now) }) {
            return .waits(rule: wait.rule, until: wait.until)
        }
        // Taken back even for a caller that went away meanwhile. A store that fails to take it back leaves it counted
        // (the side that bounds the provider); the check's answer stands.
        let store = self.store
        let takeBack = { @Sendable () async in
            do {
                try await writeDespiteCancellation { try await store.update(counters: counters, code: nil, at: now) { state in rules.uncountRejectedCaptcha(&state, request, at: now) } }
            } catch {
                // Counted once too often: a wait comes one check sooner for these keys, within the rule's hour.
            }
        }
        // A caller gone before the provider was asked: nothing reached it, so nothing stays counted.
        if Task.isCancelled {
            await takeBack()
            throw CancellationError()
        }
        let solved: Bool
        do {
            solved = try await captcha.verify(token, context: context)
        } catch where CallerCancellation.reads(error) {
            // A caller gone while the provider was asked is no word on the token nor on the provider: no event, and the
            // check stays counted (it may have reached the provider, the side that bounds what one address makes it do).
            throw CancellationError()
        } catch {
            let message = Secret.scrub(String(describing: error), of: [token])
            emit(.providerFailed(provider: "captcha", number: number, message: PhoneNumber.maskingNumbers(in: message, limit: 200)), at: now)
            // A token the provider answers with an error (a made-up or replayed one) costs it a call as a refused
            // one does: rejected, and it stays counted; a provider that is down or misconfigured is no word on the token.
            guard Self.providerDown(error) else { return .rejected }
            await takeBack()
            return .unchecked
        }
        guard solved else { return .rejected }
        await takeBack()
        return .solved
    }

    /// Whether this service checks captcha tokens (it was given a ``CaptchaVerifier``).
    package var checksCaptchas: Bool { captcha != nil }

    /// Checks the captcha a login start brought past a login quota's captcha rule (`LoginServer.start`): the same
    /// check as a send's, counted the same way at the requester's own keys (its address blocks, its device at its
    /// address: the policy's `rejected-captchas` rules, which count per nothing else), with no number.
    /// - Parameters:
    ///   - token: The captcha's token.
    ///   - context: The start's address, device and login session.
    /// - Returns: `solved`; `waits` when the requester's rejected captchas make it wait; `rejected` (refused, or a
    ///   verifier's error that is no fault of the provider's); or `unchecked` (no verifier, a provider down or at fault).
    /// - Throws: ``StoreError`` when the store fails (the token was not checked); `CancellationError` for a caller
    ///   gone before or while the provider was asked (counted only once it may have reached the provider).
    package func checkStartCaptcha(_ token: Secret, context: SMSContext) async throws -> CaptchaCheck {
        try await checkCaptcha(token, Self.startRequest(context), context: context, number: nil, at: clock.now())
    }

    /// A login start's keys for the rejected-captcha rules: its address and device, and no number.
    private static func startRequest(_ context: SMSContext) -> SMSPolicy.Request {
        SMSContext.request(digits: SMSPolicy.notGiven, ip: context.ip, device: context.device, session: context.session)
    }

    /// The wait a login start's captcha check would meet now (the start brought no token yet): so the client is told
    /// when to come back rather than to solve a captcha that will not be checked before then. Nothing is counted.
    /// - Parameter context: The start's address, device and login session.
    /// - Returns: The rule and when its wait ends, or nil.
    /// - Throws: ``StoreError`` when the store fails.
    package func startCaptchaWait(context: SMSContext) async throws -> (rule: String, until: Date)? {
        let request = Self.startRequest(context)
        let counters = rules.captchaCounters(for: request)
        guard !counters.isEmpty else { return nil }
        let rules = self.rules
        let now = clock.now()
        return try await store.update(counters: counters, code: nil, at: now) { state in rules.captchaCheckWait(state, request, at: now) }
    }

    /// Whether a captcha verifier's error says the provider is down or misconfigured, not what it thinks of the token:
    /// it could not be reached, sent nothing, timed out, lost the answer to a request it got twice, answered 5xx, its
    /// configuration is wrong, or it answered a code that says so (a ``ProviderFault``: Tencent's busy or its account's
    /// request frequency limit, GeeTest's runtime error). An answer it throttles with (a bare 429, which no provider's
    /// document ties to the account), or one that does not read (another content type, a body past the bound), stays
    /// counted: junk tokens from one address can bring those about, and counted, they cost that address a wait of at
    /// most a minute. Tencent's documented account-wide limit counts against no one (counted, a flood from elsewhere
    /// charged every neighbour checked meanwhile); while it holds, one address's junk tickets go uncounted too, bounded
    /// by its captcha checks in flight.
    /// - Parameter error: What the verifier threw.
    /// - Returns: Whether it is the provider's trouble.
    private static func providerDown(_ error: any Error) -> Bool {
        if let fault = error as? any ProviderFault { return fault.isProviderFault }
        guard let error = error as? GatewayError else { return false }
        switch error.kind {
        case .unreachable, .notSent, .timedOut, .sentTwice, .misconfigured: return true
        case .httpStatus(let status): return status >= 500
        case .bodyTooLarge, .malformedBody, .refusedCredential, .wrongContentType: return false
        }
    }
}
