/// The answer to "send me a code".
public enum SMSSendResult: Hashable, Sendable, CustomStringConvertible {
    /// A code went out: it verifies until `expiresAt`; the next send for this number is admitted from
    /// `resendAfter` (show a count-down).
    case sent(expiresAt: Date, resendAfter: Date)
    /// The rule `rule` wants a captcha first: ask the user to solve one and send again with its token.
    /// `rejected` is true when a token came and the captcha verifier turned it down.
    case captchaRequired(rule: String, rejected: Bool)
    /// The rule `rule` refuses sends until `retryAfter`.
    case limited(rule: String, retryAfter: Date)
    /// The number cannot be sent a code.
    case refused(SMSRefusal)
    /// The SMS gateway did not confirm the message: it refused it, or its answer did not come or could not
    /// be read. A message it may have taken keeps its code (one that arrives still verifies); a refused one
    /// is withdrawn, and the code it replaced in the session, if still alive, verifies again. The attempt counts
    /// toward the limits (gateways count every submission), but for one that never reached the gateway (its counts on the number, the session and all requests are taken back; the
    /// requester's address and device keep theirs), and the user may ask again from `retryAfter`.
    case senderFailed(retryAfter: Date)

    /// The result's name: `sent`, `captcha-required`, `limited`, `refused`, `sender-failed`.
    package var name: String {
        switch self {
        case .sent: "sent"
        case .captchaRequired: "captcha-required"
        case .limited: "limited"
        case .refused: "refused"
        case .senderFailed: "sender-failed"
        }
    }

    /// `limited by number-minute until 2026-12-01T10:01:00.000Z`.
    public var description: String {
        switch self {
        case .sent(let expiresAt, let resendAfter): "sent, expires \(expiresAt.iso8601), resend after \(resendAfter.iso8601)"
        case .captchaRequired(let rule, let rejected): "captcha-required by \(rule)\(rejected ? " (the captcha was rejected)" : "")"
        case .limited(let rule, let retryAfter): "limited by \(rule) until \(retryAfter.iso8601)"
        case .refused(let refusal): "refused: \(refusal)"
        case .senderFailed(let retryAfter): "sender-failed, the gateway did not confirm the message; retry after \(retryAfter.iso8601)"
        }
    }
}

/// The answer to "here is the code I got".
public enum SMSVerifyResult: Hashable, Sendable, CustomStringConvertible {
    /// The right code, in time, the first time: the proof a login session's SMS step takes.
    case verified(SMSVerdict)
    /// Not the code; `attemptsLeft` more wrong codes kill it (0: the next verify answers `tooManyAttempts`).
    case wrong(attemptsLeft: Int)
    /// The code's five minutes are over: send a new one.
    case expired
    /// The code took five wrong codes and is dead: send a new one.
    case tooManyAttempts
    /// No code is out for this number (none was sent, it was used, replaced or removed), or it was sent
    /// for another login session.
    case noCode
    /// Too many wrong codes for this number: the rule `rule` locks verification until `until` (only a
    /// policy with a `lock` rule; the default has none).
    case locked(rule: String, until: Date)
    /// Too many wrong codes from this login session (the built-in policy's `session-guesses`; a replacement
    /// policy's delay or limit rules on other keys too), or the captcha checks of its address waiting (the rule
    /// `rule`): try again from `retryAfter`. Nothing was compared. It holds the keys that guessed, never the number,
    /// but on a server with no ``CaptchaVerifier``, where a captcha rule on the number is told as the wait it is.
    case throttled(rule: String, retryAfter: Date)
    /// Too many wrong codes from this address or device id, or the number is under attack (guessed at from many
    /// sessions, or past its daily bound): the rule `rule` wants a solved captcha with the verify. Nothing was
    /// compared. `rejected` is true when a token came and the captcha verifier turned it down.
    case captchaRequired(rule: String, rejected: Bool)

    /// The result's name: `verified`, `wrong-code`, `expired`, `too-many-attempts`, `no-code`, `locked`,
    /// `throttled`, `captcha-required`.
    package var name: String {
        switch self {
        case .verified: "verified"
        case .wrong: "wrong-code"
        case .expired: "expired"
        case .tooManyAttempts: "too-many-attempts"
        case .noCode: "no-code"
        case .locked: "locked"
        case .throttled: "throttled"
        case .captchaRequired: "captcha-required"
        }
    }

    /// `wrong-code, 4 attempts left`.
    public var description: String {
        switch self {
        case .verified(let verdict): "verified \(verdict.phoneNumber.masked)"
        case .wrong(let left): "wrong-code, \(left) attempt\(left == 1 ? "" : "s") left"
        case .expired: "expired"
        case .tooManyAttempts: "too-many-attempts"
        case .noCode: "no-code"
        case .locked(let rule, let until): "locked by \(rule) until \(until.iso8601)"
        case .throttled(let rule, let retryAfter): "throttled by \(rule) until \(retryAfter.iso8601)"
        case .captchaRequired(let rule, let rejected): "captcha-required by \(rule)\(rejected ? " (the captcha was rejected)" : "")"
        }
    }
}
