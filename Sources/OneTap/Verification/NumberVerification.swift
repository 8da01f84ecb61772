/// What ``NumberVerificationService`` answers: the verdict, the gateway's code when it answered, and whether the
/// call was billed (`Data/verification-billing.csv`).
public struct NumberVerification: Hashable, Sendable, CustomStringConvertible {
    /// Why the verdict is what it is.
    package enum Reason: String, Hashable, Sendable {
        /// The gateway answered.
        case answered
        /// The same token with the same number was answered before (the app lost the answer and asked again): the
        /// recorded answer, not sent again, not billed again.
        case replayedAnswer = "replayed-answer"
        /// The caller is over its ``NumberVerificationQuota``: not sent.
        case limited
        /// The quota's counter store failed, so the call was refused (fail closed): not sent.
        case quotaStoreFailed = "quota-store-failed"
        /// The token was older than its lifetime (`Data/token-lifetimes.csv`): not sent.
        case tokenExpired = "token-expired"
        /// The token was claimed before (by this server or another sharing the ledger) with no answer to give back
        /// (another number, a call under way or never recorded, timed out or failed): not sent again.
        case tokenReplayed = "token-replayed"
        /// The provider said the request never left (``ExchangeNotSentError``), or the credential is of no one-tap flow
        /// (the service sends none such): nothing billed.
        case notSent = "not-sent"
        /// No answer within the service's time-out, or the gateway's own: it may have been billed.
        case timedOut = "timeout"
        /// The caller's task was cancelled while the gateway had the token: it may have been billed.
        case cancelled
        /// The provider failed after the request may have left (a malformed answer, a reset): it may have been
        /// billed.
        case fault
    }

    /// The gateway's code exactly as it came; nil when the gateway gave none (the token was not sent, or no
    /// answer came).
    public let code: ResultCode?
    /// `pass`, `reject`, or `unknown` (ask for another proof, such as an SMS code).
    public let verdict: NumberVerdict
    /// Whether the gateway bills this call: `true` or `false` from `Data/verification-billing.csv` when it
    /// answered, `false` when the token was not sent, nil when the request left and no answer came (it may have
    /// been billed; reconcile it with the gateway's bill).
    public let billed: Bool?
    /// Why.
    package let reason: Reason
    /// What failed, for a `fault`, `not-sent` or `quota-store-failed`, or when to try again, for `limited` (never the
    /// token; numbers masked), at most 200 characters.
    package let detail: String?

    /// An answer.
    /// - Parameters:
    ///   - code: The gateway's code.
    ///   - verdict: The verdict.
    ///   - billed: Whether it was billed.
    ///   - reason: Why.
    ///   - detail: What failed.
    package init(code: ResultCode?, verdict: NumberVerdict, billed: Bool?, reason: Reason, detail: String? = nil) {
        self.code = code
        self.verdict = verdict
        self.billed = billed
        self.reason = reason
        self.detail = detail.map { PhoneNumber.maskingNumbers(in: $0, limit: 200) }
    }

    /// `pass 000 (billed)`, `pass 000 (replayed-answer, not billed)`, `unknown (token-replayed, not billed)`,
    /// `unknown (timeout, may be billed)`.
    public var description: String {
        let billing = billed.map { $0 ? "billed" : "not billed" } ?? "may be billed"
        let why = reason == .answered ? "" : "\(reason.rawValue)\(detail.map { ": \($0)" } ?? ""), "
        return "\(verdict.rawValue)\(code.map { " \($0)" } ?? "") (\(why)\(billing))"
    }
}
