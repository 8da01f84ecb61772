extension SMSPolicy {
    /// A verify's fate under the policy, before any code is compared.
    package enum VerifyDecision: Hashable, Sendable {
        /// Compare the code; with `singleTry`, a wrong one kills it (a `single-try` rule holds).
        case compare(singleTry: Bool)
        /// A captcha is needed first (the rule's id): a step up, never a lock. `freesAt` is when no captcha rule of the
        /// named one's side would ask for one any more (the requester's own rules when it is one of them, else every
        /// rule): what a server that checks no captcha answers as a wait.
        case captcha(rule: String, freesAt: Date)
        /// Wait until `retryAfter` (a `limit` or `delay` rule on the request's own keys).
        case throttled(rule: String, retryAfter: Date)
        /// A `lock` rule holds until `until` (a policy of an earlier version).
        case locked(rule: String, until: Date)
    }

    /// Decides whether a verify may compare its code.
    ///
    /// Locks first, then `limit` and `delay` rules (which hold the keys that guessed: the session, the
    /// address, the device), then `captcha` and `single-try` rules (a step up the owner can pass).
    /// - Parameters:
    ///   - request: The verify's keys.
    ///   - events: Every counter's events (missing counters hold none).
    ///   - captchaPassed: Whether a valid captcha came with the verify.
    ///   - now: The time.
    /// - Returns: The decision.
    /// - Complexity: O(*r* · log *e*) for *r* rules and *e* events per counter.
    package func decideVerify(_ request: Request, events: [Counter: [Date]], captchaPassed: Bool, at now: Date) -> VerifyDecision {
        if let (rule, until) = lock(request, events: events, at: now) { return .locked(rule: rule, until: until) }
        var captcha = CaptchaAsk()
        var singleTry = false
        for rule in limits where rule.counts == .failedVerifies || rule.counts == .failedVerifySessions {
            let list = Self.events(rule.counts, rule.key, of: request, in: events)
            let (held, from) = SlidingWindow.events(list, rule.windowSeconds, now: now)
            let count = held.count - from
            guard count >= rule.limit else { continue }
            switch rule.over {
            case .limit:
                return .throttled(rule: rules[rule.rule].id, retryAfter: SlidingWindow.freesAPlace(held, limit: rule.limit, rule.windowSeconds, now: now))
            case .delay:
                let until = rule.delayEnds(after: held[held.count - 1], count: count)
                if now < until { return .throttled(rule: rules[rule.rule].id, retryAfter: until) }
            case .captcha, .singleTry:
                if rule.over == .singleTry { singleTry = true }
                captcha.holds(
                    rules[rule.rule].id, isTheRequestersOwn: rule.key.isTheRequestersOwn,
                    freesAt: SlidingWindow.freesAPlace(held, limit: rule.limit, rule.windowSeconds, now: now))
            case .lock:
                break  // decided above
            }
        }
        if !captchaPassed, let (rule, freesAt) = captcha.asked { return .captcha(rule: rule, freesAt: freesAt) }
        return .compare(singleTry: singleTry)
    }

    /// How long the requester waits before its captcha token is checked: after the rejected captchas its own keys
    /// sent past a rule's limit, 2^(count − limit) seconds after the newest, at most the rule's longest wait. A
    /// wait, never a refusal; but the address's, so a stranger who sends a junk token each time it ends keeps a
    /// neighbour's checks waiting: the trade-off for bounding the provider calls one address causes.
    /// - Parameters:
    ///   - request: The send's or verify's keys.
    ///   - events: The counters' events.
    ///   - now: The time.
    /// - Returns: The rule and the time the check may be made, or nil for now.
    package func captchaCheckWait(_ request: Request, events: [Counter: [Date]], at now: Date) -> (rule: String, until: Date)? {
        var latest: (rule: String, until: Date)? = nil
        for rule in limits where rule.counts == .rejectedCaptchas {
            let list = Self.events(rule.counts, rule.key, of: request, in: events)
            let (held, from) = SlidingWindow.events(list, rule.windowSeconds, now: now)
            let count = held.count - from
            guard count >= rule.limit else { continue }
            let until = rule.delayEnds(after: held[held.count - 1], count: count)
            let later = latest.map { until > $0.until } ?? true
            if now < until, later { latest = (rules[rule.rule].id, until) }
        }
        return latest
    }

    /// Counts a captcha token the provider rejected at the requester's own keys (``captchaKeys``).
    /// - Parameters:
    ///   - events: The counters' events; changed in place.
    ///   - request: The send's or verify's keys.
    ///   - now: The time.
    package func countRejectedCaptcha(_ events: inout [Counter: [Date]], _ request: Request, at now: Date) {
        for key in captchaKeys {
            let counter = Counter(counts: .rejectedCaptchas, key: key, value: request.value(for: key))
            count(now, in: &events[counter, default: []], of: counter)
        }
    }

    /// Takes back one captcha counted at `now` by ``countRejectedCaptcha(_:_:at:)`` (a check counted before the
    /// provider answered, which it then passed, or which the provider never judged).
    /// - Parameters:
    ///   - events: The counters' events; changed in place.
    ///   - request: The send's or verify's keys.
    ///   - now: The instant it was counted at: an event within a millisecond of it (stores keep whole milliseconds).
    package func uncountRejectedCaptcha(_ events: inout [Counter: [Date]], _ request: Request, at now: Date) {
        Self.uncount(now, in: &events, of: counters(for: request, counting: .rejectedCaptchas))
    }

    /// Counts a wrong code in the verify's counters: every failed-verify counter, and each
    /// guessing-sessions counter when the session had no wrong code for the number in that rule's window
    /// before this one.
    /// - Parameters:
    ///   - events: The counters' events; changed in place.
    ///   - request: The verify's keys.
    ///   - now: The time.
    package func countWrongCode(_ events: inout [Counter: [Date]], _ request: Request, at now: Date) {
        let own = Counter(counts: .failedVerifies, key: .numberSession, value: request.value(for: .numberSession))
        let before = events[own] ?? []
        for (counts, key) in verifyCounters {
            let counter = Counter(counts: counts, key: key, value: request.value(for: key))
            if counts == .failedVerifySessions {
                let window = rules.reduce(0.0) { $1.counts == counts && $1.key == key ? max($0, $1.windowSeconds) : $0 }
                let (held, from) = SlidingWindow.events(before, window, now: now)
                guard from == held.count else { continue }  // the session already guessed within the window
            }
            count(now, in: &events[counter, default: []], of: counter)
        }
    }
}
