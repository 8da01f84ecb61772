/// The SMS gateway behind a protocol: Aliyun, Tencent Cloud, a carrier's own. OneTap decides whether a
/// code may go out and makes it; the sender only delivers it.
public protocol SMSSender: Sendable {
    /// Delivers a code. Return once the gateway accepted the message; throw when it did not (the code is
    /// then withdrawn, and the session's earlier code, if alive, verifies again), or when its answer did not come
    /// or cannot be read: a ``GatewayError`` that says the request may have reached the gateway (`timed-out`, an unreadable answer, an HTTP error status) keeps
    /// the code, so a message that arrives anyway still verifies, and so does a `CancellationError` (the
    /// caller went away; the request may have left). Put the gateway's own time limit on the call. A
    /// ``GatewayError`` that says the request never reached the gateway (`not-sent`, `misconfigured`,
    /// `refused-credential`) also takes back the send's counts on the number, the session and all requests: throw
    /// those kinds only for what no client controls (a host that does not resolve, a key that is wrong), never for
    /// something in the message.
    /// - Parameter message: The number, the code and its expiry.
    /// - Throws: ``SMSDeliveryError`` when the gateway answered and did not take the message: `numberRejected`
    ///   makes the answer `refused` (`gateway-rejected`), `throttled` (the gateway's own flow control: nothing went to
    ///   the number; a returning owner's send then gives back its counts on the number and its lane) makes it
    ///   `limited` by rule `gateway`,
    ///   `failed` makes it `senderFailed`; anything else is `senderFailed` too. The error's text is scrubbed of the
    ///   code before it reaches an event.
    func send(_ message: SMSMessage) async throws
}

/// One code to deliver.
public struct SMSMessage: Hashable, Sendable, CustomStringConvertible {
    /// The number.
    public let number: PhoneNumber
    /// The six digits: put them in the template, hand them to nothing else.
    public let code: Secret
    /// When the code stops verifying (the template's "valid for 5 minutes").
    public let expiresAt: Date
    /// The login session it is for.
    public let session: LoginSessionID?

    package init(number: PhoneNumber, code: Secret, expiresAt: Date, session: LoginSessionID?) {
        self.number = number
        self.code = code
        self.expiresAt = expiresAt
        self.session = session
    }

    /// `SMSMessage(138****8000, code <redacted>, expires …)`.
    public var description: String { "SMSMessage(\(number.masked), code <redacted>, expires \(expiresAt.iso8601))" }
}

/// Checks a captcha a client solved (Aliyun Captcha, Tencent Captcha, hCaptcha): the second step of a
/// send that a captcha rule held back.
public protocol CaptchaVerifier: Sendable {
    /// Checks a captcha token with its provider. Tokens must be single use at the provider.
    /// - Parameters:
    ///   - token: What the captcha widget gave the client.
    ///   - context: The send's context (its address, for providers that bind tokens to one).
    /// - Returns: Whether the captcha was solved.
    /// - Throws: Anything; a throw counts as not solved.
    func verify(_ token: Secret, context: SMSContext) async throws -> Bool
}

/// Sends nothing: for replaying traffic against a policy (`onetap sms`), where every admitted send
/// counts as delivered.
package struct DryRunSMSSender: SMSSender {
    package init() {}
    package func send(_ message: SMSMessage) async throws {}
}

/// Takes every captcha token as solved: for replays whose input says a valid captcha came.
package struct AcceptingCaptchaVerifier: CaptchaVerifier {
    package init() {}
    package func verify(_ token: Secret, context: SMSContext) async throws -> Bool { true }
}
