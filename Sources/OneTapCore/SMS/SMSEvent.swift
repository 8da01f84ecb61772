/// What the SMS code service did, for logs and abuse dashboards: every send and verify answer, with the
/// number masked (`138****8000`). Never a code, a captcha token, a device id or the key.
package enum SMSEvent: Hashable, Sendable, CustomStringConvertible {
    /// A send was answered. `number` is nil when the text was no number at all.
    case send(SMSSendResult, number: PhoneNumber?, session: LoginSessionID?)
    /// A verify was answered. `readAsCode` is false when the text typed did not read as a code (a letter, a digit
    /// short): its `wrong` spent no try and counted toward no rule, and is told as `verify-not-a-code`.
    case verify(SMSVerifyResult, number: PhoneNumber, session: LoginSessionID?, readAsCode: Bool = true)
    /// The SMS gateway failed (what it said, with the code removed), or the captcha verifier did (`number` is nil
    /// for a login start's captcha).
    case providerFailed(provider: String, number: PhoneNumber?, message: String)
    /// The service was made without a captcha verifier over a policy with captcha rules (their ids): a send
    /// or verify such a rule holds back can only wait for its window to pass.
    case captchaMissing(rules: [String])

    /// The event's name: `send-` or `verify-` and the result's name (`send-limited`,
    /// `verify-wrong-code`), `verify-not-a-code` (text that does not read as a code: no try spent), `provider-failed`
    /// or `captcha-missing`.
    package var name: String {
        switch self {
        case .send(let result, _, _): "send-" + result.name
        case .verify(.wrong, _, _, readAsCode: false): "verify-not-a-code"
        case .verify(let result, _, _, _): "verify-" + result.name
        case .providerFailed: "provider-failed"
        case .captchaMissing: "captcha-missing"
        }
    }

    /// `send-limited 138****8000: limited by number-minute until …`. A number in free text (a refusal that quotes
    /// what the client typed, a provider's message) is masked too.
    package var description: String {
        switch self {
        case .send(.refused(let refusal), let number, _):
            "\(name) \(number?.masked ?? "(no number)"): refused: \(refusal.kind): \(PhoneNumber.maskingNumbers(in: refusal.eventMessage))"
        case .send(let result, let number, _): "\(name) \(number?.masked ?? "(no number)"): \(PhoneNumber.maskingNumbers(in: "\(result)"))"
        case .verify(let result, let number, _, _): "\(name) \(number.masked): \(result)"
        case .providerFailed(let provider, let number, let message):
            "provider-failed \(provider) \(number?.masked ?? "(no number)"): \(PhoneNumber.maskingNumbers(in: message))"
        case .captchaMissing(let rules):
            "captcha-missing: the policy's captcha rules (\(rules.joined(separator: ", "))) have no CaptchaVerifier to pass them: "
                + "what they hold back waits for their window (give SMSCodeService a captcha verifier)"
        }
    }

    /// Writes the event's members into the event line being written: `event`, then
    /// `{"number":"138****8000","rule":"number-minute","until":"…"}` and the like (instants as ISO 8601).
    /// - Parameter writer: The writer, inside an object.
    package func writeMembers(to writer: inout JSONWriter) {
        writer.member("event", name)
        switch self {
        case .send(let result, let number, let session):
            writer.member("number", number?.masked)
            writer.member("session", session?.text)
            switch result {
            case .sent(let expiresAt, let resendAfter):
                writer.member("expiresAt", expiresAt.iso8601)
                writer.member("resendAfter", resendAfter.iso8601)
            case .captchaRequired(let rule, let rejected):
                writer.member("rule", rule)
                writer.member("rejected", rejected)
            case .limited(let rule, let retryAfter):
                writer.member("rule", rule)
                writer.member("until", retryAfter.iso8601)
            case .refused(let refusal):
                writer.member("reason", refusal.kind.id)
                writer.member("message", PhoneNumber.maskingNumbers(in: refusal.eventMessage))
            case .senderFailed(let retryAfter):
                writer.member("until", retryAfter.iso8601)
            }
        case .verify(let result, let number, let session, _):
            writer.member("number", number.masked)
            writer.member("session", session?.text)
            switch result {
            case .wrong(let left):
                writer.member("attemptsLeft", left)
            case .locked(let rule, let until), .throttled(let rule, let until):
                writer.member("rule", rule)
                writer.member("until", until.iso8601)
            case .captchaRequired(let rule, let rejected):
                writer.member("rule", rule)
                writer.member("rejected", rejected)
            case .verified, .expired, .tooManyAttempts, .noCode: break
            }
        case .providerFailed(let provider, let number, let message):
            writer.member("provider", provider)
            writer.member("number", number?.masked)
            writer.member("message", PhoneNumber.maskingNumbers(in: message))
        case .captchaMissing(let rules):
            writer.member("rules", strings: rules)
        }
    }
}
