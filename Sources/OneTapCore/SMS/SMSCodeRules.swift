/// The rules of SMS codes, pure: which numbers may be sent one, how a code is made and stored, what a
/// send does to the counters, and what a verify answers. The SMS code service runs them inside its
/// store's atomic update, so every instance of a server applies the same rules to the same state.
///
/// - A code is six digits from the system's CSPRNG (the caller's generator), drawn without modulo bias; it verifies for five
///   minutes (``lifetime``), once; five wrong codes (``maximumWrongAttempts``) kill it; a new send in
///   the same login session replaces it, a send in another session never does (one live code per
///   number and session, ``SMSCodeKey``). It is stored only as HMAC-SHA-256(key, number ‖ code ‖ code
///   id) and compared in constant time.
/// - No rule locks a number against its owner (NIST SP 800-63B §5.2.2): wrong codes slow down the
///   login session that made them; an address or device id past its hourly wrong codes, a number guessed
///   at from many sessions, or past its daily bound, asks for a captcha, which the owner can solve.
/// - A code verifies while `now < expiresAt`; a clock that reads more than a lifetime before the code
///   was issued (an instance whose clock went back) counts it as expired, so skew never lengthens a
///   code's life past two lifetimes.
/// - Numbers that are not mainland mobile numbers of an allocated segment, and IoT-only segments, are
///   refused before any limit counts.
package struct SMSCodeRules: Sendable {
    /// How long a code verifies: 5 minutes.
    package static let lifetime: Duration = .seconds(300)
    /// How many wrong codes kill a code: 5.
    package static let maximumWrongAttempts = 5
    /// How many digits a code has: 6.
    package static let digits = 6

    /// The limits.
    package let policy: SMSPolicy
    /// The segments, whose kinds tell which numbers cannot take SMS.
    package let segments: NumberSegmentTable

    /// Creates the rules.
    /// - Parameters:
    ///   - policy: The limits; `Data/sms-policy.csv` by default.
    ///   - segments: The number segments; `Data/number-segments.csv` by default.
    package init(policy: SMSPolicy = .builtIn, segments: NumberSegmentTable = .builtIn) {
        self.policy = policy
        self.segments = segments
        var longest = Self.lifetime.seconds
        for rule in policy.rules { longest = max(longest, rule.window.seconds + (rule.lock?.seconds ?? 0)) }
        retention = longest
        sendReadsVerifies = policy.hasLockRules
    }

    /// Whether a send reads the failed-verify counters: only when a lock rule (which also holds sends)
    /// is in the policy.
    private let sendReadsVerifies: Bool

    // MARK: Who may be sent a code

    /// Why a number may not be sent a code, or nil when it may.
    /// - Parameter number: The number.
    /// - Returns: `not-mainland-mobile` for an unallocated segment, `cannot-take-sms` for an IoT-only one.
    package func refusal(for number: PhoneNumber) -> SMSRefusal? {
        guard let segment = segments.segment(for: number) else {
            return SMSRefusal(kind: .notMainlandMobile, message: "\(number.masked) is in no allocated mainland mobile segment")
        }
        if segment.kind == .iot {
            return SMSRefusal(kind: .cannotTakeSMS, message: "\(number.masked) is in \(segment.prefix), an IoT-only segment (物联网业务专用号段) that takes no ordinary SMS")
        }
        return nil
    }

    /// Reads the number a client typed, refusing what is not a mainland mobile number.
    /// - Parameter text: The number as the client sent it (`13800138000`, `+86 138 0013 8000`).
    /// - Returns: The number, or the refusal (`not-mainland-mobile` with the parser's reason: a foreign
    ///   number, a landline, a malformed text).
    package func recipient(_ text: String) -> Result<PhoneNumber, SMSRefusal> {
        let number: PhoneNumber
        do {
            number = try PhoneNumber(text)
        } catch {
            return .failure(SMSRefusal(kind: .notMainlandMobile, message: error.description, eventMessage: "invalid \(error.subject): \(error.reason)"))
        }
        if let refusal = refusal(for: number) { return .failure(refusal) }
        return .success(number)
    }

    // MARK: Codes

    /// A new code for a number: the code (to send) and its record (to store).
    /// - Parameters:
    ///   - number: The number.
    ///   - session: The login session it is for.
    ///   - key: The server's key.
    ///   - now: The time.
    ///   - generator: Where the code and its id come from: the system's CSPRNG (the SMS code service's).
    /// - Returns: The six digits as a secret, and the record holding only their digest.
    package func issue(
        to number: PhoneNumber, session: LoginSessionID?, key: ServerKey, at now: Date, using generator: inout some RandomNumberGenerator
    ) -> (code: Secret, record: SMSCodeRecord) {
        // 64 random bits, redrawn when they fall in the incomplete last run of a million (a chance of
        // 1 in 10^13), so every code is equally likely: no modulo bias.
        let limit = UInt64.max - (UInt64.max % 1_000_000 + 1) % 1_000_000
        var draw = generator.next()
        while draw > limit { draw = generator.next() }
        var rest = draw % 1_000_000
        var digits = [UInt8](repeating: UInt8(ascii: "0"), count: Self.digits)
        for index in stride(from: Self.digits - 1, through: 0, by: -1) {
            digits[index] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
        }
        // The code's id: 64 random bits, unique per number in practice, bound into the digest.
        var id: [UInt8] = []
        id.reserveCapacity(16)
        let word = generator.next()
        for shift in stride(from: 60, through: 0, by: -4) { id.append(Self.hex[Int((word >> UInt64(shift)) & 0xF)]) }
        let idText = String(decoding: id, as: UTF8.self)
        let record = SMSCodeRecord(
            id: idText, number: number, digest: Self.digest(key: key, number: number, code: digits, id: idText), session: session,
            issuedAt: now, expiresAt: now.addingTimeInterval(Self.lifetime.seconds))
        return (Secret(String(decoding: digits, as: UTF8.self)), record)
    }

    private static let hex = Array("0123456789abcdef".utf8)

    /// HMAC-SHA-256(key, "onetap-sms-1" ‖ 0 ‖ number ‖ 0 ‖ code ‖ 0 ‖ id).
    static func digest(key: ServerKey, number: PhoneNumber, code: some Collection<UInt8>, id: String) -> SHA256Digest {
        withMessage(number: number, code: code, id: id) { key.hmac.authenticationCode(for: $0) }
    }

    /// Whether a record's digest is ``digest(key:number:code:id:)`` of a candidate code, in time that does not
    /// depend on where they differ; the message and the code are built on the stack (no allocation).
    /// - Parameters:
    ///   - expected: The record's digest.
    ///   - key: The server key the code may be under.
    ///   - number: The record's number.
    ///   - code: The candidate code's bytes.
    ///   - id: The record's id.
    /// - Returns: Whether the candidate's digest is `expected`.
    static func digest(_ expected: SHA256Digest, matches key: ServerKey, number: PhoneNumber, code: some Collection<UInt8>, id: String) -> Bool {
        withMessage(number: number, code: code, id: id) { message in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { mac in
                key.hmac.authenticationCode(for: message, into: mac)
                return HMACSHA256.constantTimeEquals(UnsafeBufferPointer(mac), expected)
            }
        }
    }

    /// The digest's message, "onetap-sms-1" ‖ 0 ‖ number ‖ 0 ‖ code ‖ 0 ‖ id, in a buffer on the stack.
    private static func withMessage<Result>(
        number: PhoneNumber, code: some Collection<UInt8>, id: String, _ body: (UnsafeBufferPointer<UInt8>) -> Result
    ) -> Result {
        let label: StaticString = "onetap-sms-1"
        let digits = number.digits
        let count = label.utf8CodeUnitCount + digits.utf8.count + code.count + id.utf8.count + 3
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { buffer in
            var end = 0
            func append(_ bytes: some Sequence<UInt8>) {
                for byte in bytes {
                    precondition(end < count, "the SMS digest's message has more bytes than its parts counted")
                    buffer[end] = byte
                    end += 1
                }
            }
            append(UnsafeBufferPointer(start: label.utf8Start, count: label.utf8CodeUnitCount))
            append(CollectionOfOne(0))
            append(digits.utf8)
            append(CollectionOfOne(0))
            append(code)
            append(CollectionOfOne(0))
            append(id.utf8)
            return body(UnsafeBufferPointer(rebasing: buffer[0..<end]))
        }
    }

    // MARK: Counters

    /// The counters a send reads and writes: its send counters (and the failed-verify counters when the
    /// policy has a lock rule, which holds sends too).
    /// - Parameter request: The send's keys.
    /// - Returns: The counters.
    package func sendCounters(for request: SMSPolicy.Request) -> [SMSPolicy.Counter] {
        let sends = policy.counters(for: request, counting: .sends)
        return sendReadsVerifies ? sends + policy.counters(for: request, counting: .failedVerifies) : sends
    }

    /// The counters a verify reads and writes: the failed-verify and guessing-session counters.
    /// - Parameter request: The verify's keys.
    /// - Returns: The counters.
    package func verifyCounters(for request: SMSPolicy.Request) -> [SMSPolicy.Counter] {
        policy.counters(for: request, counting: .failedVerifies)
    }

    /// How long a store keeps what an operation wrote: the longest a rule looks back (window plus
    /// lock), and at least a code's lifetime.
    let retention: Double

    // MARK: Operations on a store's state

    /// Decides a send and, when it is admitted, counts it and installs its code (replacing the previous
    /// one of the same number and session: the state holds the record of the send's ``SMSCodeKey``).
    /// - Parameters:
    ///   - state: The counters and the record of the send's number and session, as the store read them; changed in place.
    ///   - request: The send's keys.
    ///   - captchaPassed: Whether a valid captcha came with it.
    ///   - record: The new code's record.
    ///   - now: The time.
    /// - Returns: The policy's decision.
    package func admit(_ state: inout SMSState, _ request: SMSPolicy.Request, captchaPassed: Bool, record: SMSCodeRecord, at now: Date) -> SMSPolicy.SendDecision {
        let decision = policy.decideSend(request, events: state.events, captchaPassed: captchaPassed, at: now)
        guard case .admit = decision else { return decision }
        for key in policy.sendKeys {
            let counter = SMSPolicy.Counter(counts: .sends, key: key, value: request.value(for: key))
            policy.count(now, in: &state.events[counter, default: []], of: counter)
        }
        state.code = record
        state.keepUntil = max(state.keepUntil, now.addingTimeInterval(retention))
        return decision
    }

    /// The counters a captcha check reads and writes: the requester's rejected captchas (`rejected-captchas`
    /// rules), read only when a token is to be checked, off the path of every other send and verify.
    /// - Parameter request: The send's or verify's keys.
    /// - Returns: The counters.
    package func captchaCounters(for request: SMSPolicy.Request) -> [SMSPolicy.Counter] {
        policy.counters(for: request, counting: .rejectedCaptchas)
    }

    /// Counts a captcha token that did not pass (refused, or answered with an error), at the requester's own keys
    /// (`rejected-captchas` rules).
    /// - Parameters:
    ///   - state: The store's state (a send's or verify's counters); changed in place.
    ///   - request: The request's keys.
    ///   - now: The time.
    package func countRejectedCaptcha(_ state: inout SMSState, _ request: SMSPolicy.Request, at now: Date) {
        policy.countRejectedCaptcha(&state.events, request, at: now)
        state.keepUntil = max(state.keepUntil, now.addingTimeInterval(retention))
    }

    /// Takes back a captcha counted at `now` (``countRejectedCaptcha(_:_:at:)``) that then passed, or that the provider
    /// never judged.
    /// - Parameters:
    ///   - state: The store's state; changed in place.
    ///   - request: The request's keys.
    ///   - now: The instant it was counted at.
    package func uncountRejectedCaptcha(_ state: inout SMSState, _ request: SMSPolicy.Request, at now: Date) {
        policy.uncountRejectedCaptcha(&state.events, request, at: now)
    }

    /// Reserves a captcha check: nil, counting it as rejected until the provider says otherwise, when the requester
    /// may be checked now; else the rule and the time its wait ends (nothing counted). One update, so checks that
    /// race are counted one after another and each sees the ones before it.
    /// - Parameters:
    ///   - state: The store's state; changed in place when the check may be made.
    ///   - request: The request's keys.
    ///   - now: The time.
    /// - Returns: The wait, or nil when the check is reserved.
    package func reserveCaptchaCheck(_ state: inout SMSState, _ request: SMSPolicy.Request, at now: Date) -> (rule: String, until: Date)? {
        if let wait = captchaCheckWait(state, request, at: now) { return wait }
        countRejectedCaptcha(&state, request, at: now)
        return nil
    }

    /// How long the requester waits before its captcha token is checked (``SMSPolicy/captchaCheckWait(_:events:at:)``).
    /// - Parameters:
    ///   - state: The store's state.
    ///   - request: The request's keys.
    ///   - now: The time.
    /// - Returns: The rule and the time the check may be made, or nil for now.
    package func captchaCheckWait(_ state: SMSState, _ request: SMSPolicy.Request, at now: Date) -> (rule: String, until: Date)? {
        policy.captchaCheckWait(request, events: state.events, at: now)
    }

    /// Verifies a code the client sent.
    /// - Parameters:
    ///   - state: The number's failed-verify counters and record, as the store read them; changed in place.
    ///   - candidate: The code as the client typed it.
    ///   - number: The number.
    ///   - request: The verify's keys.
    ///   - key: The server's key.
    ///   - captchaPassed: Whether a valid captcha came with the verify.
    ///   - now: The time.
    /// - Returns: As ``verify(_:candidate:number:_:keys:captchaPassed:at:)``.
    package func verify(
        _ state: inout SMSState, candidate: Secret, number: PhoneNumber, _ request: SMSPolicy.Request, key: ServerKey, captchaPassed: Bool = false,
        at now: Date
    ) -> SMSVerifyResult {
        verify(&state, candidate: candidate, number: number, request, keys: CollectionOfOne(key), captchaPassed: captchaPassed, at: now)
    }

    /// Checks a code against the record of the verify's number and session under each of the server's keys (the ring's: a code
    /// sent before a rotation still verifies; one under a retired key does not), and counts a wrong one.
    /// - Parameters:
    ///   - state: The number's failed-verify counters and record, as the store read them; changed in place.
    ///   - candidate: The code as the client typed it.
    ///   - number: The number.
    ///   - request: The verify's keys.
    ///   - keys: The server's keys, the signing key first.
    ///   - captchaPassed: Whether a valid captcha came with the verify.
    ///   - checksCaptchas: Whether the server checks captchas (its service has a verifier): when not, a captcha or
    ///     single-try rule that wants one is a wait, `throttled` until the named rule's side frees a place (the
    ///     requester's own rules when one of them is named; a rule on the number may then still hold).
    ///   - now: The time.
    /// - Returns: `noCode` when the session holds no code for the number (before any rule is asked); `locked` while
    ///   a lock rule holds, `throttled` while a limit or delay rule holds the request's keys, `captchaRequired` while a
    ///   captcha or single-try rule wants one (nothing is compared); `expired`, `tooManyAttempts`; `verified` (the record is removed: single use)
    ///   or `wrong` (counted against the code and the rules; under a single-try rule it kills the code). A code is
    ///   read as people type it (``withTypedCode(_:_:)``); text that does not read as six digits is `wrong` but
    ///   counts nothing and spends no try.
    /// - Complexity: One HMAC-SHA-256 and a constant-time comparison per key (a handful).
    package func verify(
        _ state: inout SMSState, candidate: Secret, number: PhoneNumber, _ request: SMSPolicy.Request, keys: some Collection<ServerKey>,
        captchaPassed: Bool = false, checksCaptchas: Bool = true, at now: Date
    ) -> SMSVerifyResult {
        // No code of this session's: nothing to compare, so no rule is asked (its answer would tell the session about
        // others' guesses at the number).
        guard var record = state.code, record.number == number else { return .noCode }
        if let bound = record.session, request.session != bound.text { return .noCode }
        let singleTry: Bool
        switch policy.decideVerify(request, events: state.events, captchaPassed: captchaPassed, at: now) {
        case .locked(let rule, let until): return .locked(rule: rule, until: until)
        case .throttled(let rule, let retryAfter): return .throttled(rule: rule, retryAfter: retryAfter)
        case .captcha(let rule, let freesAt):
            return checksCaptchas ? .captchaRequired(rule: rule, rejected: false) : .throttled(rule: rule, retryAfter: freesAt)
        case .compare(let single): singleTry = single
        }
        let lifetime = Self.lifetime.seconds
        if now >= record.expiresAt || now < record.issuedAt.addingTimeInterval(-lifetime) { return .expired }
        if record.wrongAttempts >= Self.maximumWrongAttempts { return .tooManyAttempts }
        let compared = Self.withTypedCode(candidate) { code in
            // Every key is tried, whichever matches, so the time taken does not tell which key a code is under.
            var matched = false
            for key in keys {
                matched = Self.digest(record.digest, matches: key, number: number, code: code, id: record.id) || matched
            }
            return matched
        }
        guard let matched = compared else {
            // Text that does not read as six digits (a letter, a digit short): no code could match it, and a typo
            // costs no try.
            return .wrong(attemptsLeft: Self.maximumWrongAttempts - record.wrongAttempts)
        }
        if matched {
            state.code = nil
            return .verified(SMSVerdict(phoneNumber: number, session: record.session, verifiedAt: now))
        }
        record.wrongAttempts = singleTry ? Self.maximumWrongAttempts : record.wrongAttempts + 1
        state.code = record
        policy.countWrongCode(&state.events, request, at: now)
        state.keepUntil = max(state.keepUntil, now.addingTimeInterval(retention))
        return .wrong(attemptsLeft: Self.maximumWrongAttempts - record.wrongAttempts)
    }
}
