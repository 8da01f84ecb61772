extension SMSPolicy {
    /// A send's fate under the policy.
    package enum SendDecision: Hashable, Sendable {
        /// Go ahead; the next send for this number is admitted from `resendAfter`.
        case admit(resendAfter: Date)
        /// A captcha is needed (the rule's id). `freesAt` is when no captcha rule of the named one's side would ask for
        /// one any more (the requester's own rules when it is one of them, else every rule): what a server that checks
        /// no captcha answers as a wait.
        case captcha(rule: String, freesAt: Date)
        /// Refused until `retryAfter` (the rule's id).
        case limited(rule: String, retryAfter: Date)
    }

    /// Decides a send.
    /// - Parameters:
    ///   - request: The send's keys.
    ///   - events: Every counter's events, oldest first (missing counters hold none).
    ///   - captchaPassed: Whether a valid captcha came with the send.
    ///   - now: The time.
    /// - Returns: The decision: locks first, then hard limits, then captchas: the first full rule of the requester's own
    ///   keys (its address blocks, its device), else the first of another (the number's, every request's), so an
    ///   answer tells a requester about another's sends only when its own would not have stopped it.
    /// - Complexity: O(*r* · log *e*) for *r* rules and *e* events per counter; no allocation when the
    ///   lists are sorted.
    package func decideSend(_ request: Request, events: [Counter: [Date]], captchaPassed: Bool, at now: Date) -> SendDecision {
        if let (rule, until) = lock(request, events: events, at: now) { return .limited(rule: rule, retryAfter: until) }
        var captcha = CaptchaAsk()
        var resendAfter = now
        var lists = ListsByKey()
        for rule in limits where rule.counts == .sends {
            let list = lists.list(rule.key, request: request, events: events)
            let (held, from) = SlidingWindow.events(list, rule.windowSeconds, now: now)
            let count = held.count - from
            if count >= rule.limit {
                switch rule.over {
                case .limit, .lock:
                    return .limited(rule: rules[rule.rule].id, retryAfter: SlidingWindow.freesAPlace(held, limit: rule.limit, rule.windowSeconds, now: now))
                case .captcha:
                    guard !captchaPassed else { break }
                    captcha.holds(
                        rules[rule.rule].id, isTheRequestersOwn: rule.key.isTheRequestersOwn,
                        freesAt: SlidingWindow.freesAPlace(held, limit: rule.limit, rule.windowSeconds, now: now))
                case .delay, .singleTry:
                    break  // rules on wrong codes only: the table refuses them on sends
                }
            } else if rule.over == .limit, count + 1 >= rule.limit {
                // Once this send is counted the window is full: the next send waits for its oldest to leave.
                // (`now` itself is the newest; among the held, the oldest that stays is at held.count + 1 - limit.)
                let oldest: Date
                if let last = held.last, last > now {
                    // A clock went back: `now` is not the newest, so place it among the held.
                    let counted = (Array(held[from...]) + [now]).sorted()
                    oldest = counted[counted.count - rule.limit]
                } else {
                    oldest = rule.limit == 1 ? now : held[held.count + 1 - rule.limit]
                }
                resendAfter = max(resendAfter, oldest.addingTimeInterval(rule.windowSeconds))
            }
        }
        if let (rule, freesAt) = captcha.asked { return .captcha(rule: rule, freesAt: freesAt) }
        return .admit(resendAfter: resendAfter)
    }

    /// Each key's send list, sorted, looked up once per decision however many rules count it.
    private struct ListsByKey {
        private var lists: (
            number: [Date]?, numberSession: [Date]?, numberLane: [Date]?, ip: [Date]?, ip56: [Date]?, ip48: [Date]?, device: [Date]?, session: [Date]?,
            global: [Date]?, globalLane: [Date]?
        ) = (nil, nil, nil, nil, nil, nil, nil, nil, nil, nil)

        mutating func list(_ key: Key, request: Request, events: [Counter: [Date]]) -> [Date] {
            func fetch() -> [Date] {
                SlidingWindow.sorted(SMSPolicy.events(.sends, key, of: request, in: events))
            }
            func cached(_ slot: inout [Date]?) -> [Date] {
                if let slot { return slot }
                let list = fetch()
                slot = list
                return list
            }
            switch key {
            case .number: return cached(&lists.number)
            case .numberSession: return cached(&lists.numberSession)
            case .numberLane: return cached(&lists.numberLane)
            case .ip: return cached(&lists.ip)
            case .ip56: return cached(&lists.ip56)
            case .ip48: return cached(&lists.ip48)
            case .device: return cached(&lists.device)
            case .session: return cached(&lists.session)
            case .global: return cached(&lists.global)
            case .globalLane: return cached(&lists.globalLane)
            }
        }
    }

    /// Whether a lock rule holds the request's keys now.
    /// - Parameters:
    ///   - request: The keys.
    ///   - events: Every counter's events.
    ///   - now: The time.
    /// - Returns: The rule's id and when the lock ends, or nil.
    package func lock(_ request: Request, events: [Counter: [Date]], at now: Date) -> (rule: String, until: Date)? {
        guard hasLockRules else { return nil }
        for rule in limits where rule.over == .lock {
            guard let lockSeconds = rule.lockSeconds else { continue }
            let held = SlidingWindow.sorted(Self.events(rule.counts, rule.key, of: request, in: events))
            // The lock starts at the event that brought a window's count to the limit.
            guard held.count >= rule.limit else { continue }
            for index in stride(from: held.count - 1, through: rule.limit - 1, by: -1) {
                let reached = held[index]
                let first = held[index - (rule.limit - 1)]
                guard reached.timeIntervalSince(first) < rule.windowSeconds else { continue }
                let until = reached.addingTimeInterval(lockSeconds)
                if now < until { return (rules[rule.rule].id, until) }
                break
            }
        }
        return nil
    }
}
