#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What the SMS code service did, for logs and abuse dashboards: every send and verify answer, with the
/// number masked (`138****8000`). Never a code, a captcha token, a device id or the key.
public enum SMSEvent: Hashable, Sendable, CustomStringConvertible, Encodable {
    /// A send was answered. `number` is nil when the text was no number at all.
    case send(SMSSendResult, number: PhoneNumber?, session: LoginSessionID?)
    /// A verify was answered.
    case verify(SMSVerifyResult, number: PhoneNumber, session: LoginSessionID?)
    /// The SMS gateway failed (what it said, with the code removed), or the captcha verifier did.
    case providerFailed(provider: String, number: PhoneNumber, message: String)

    /// The event's name: `send-` or `verify-` and the result's name (`send-limited`,
    /// `verify-wrong-code`), or `provider-failed`.
    public var name: String {
        switch self {
        case .send(let result, _, _): "send-" + result.name
        case .verify(let result, _, _): "verify-" + result.name
        case .providerFailed: "provider-failed"
        }
    }

    /// `send-limited 138****8000: limited by number-minute until …`.
    public var description: String {
        switch self {
        case .send(let result, let number, _): "\(name) \(number?.masked ?? "(no number)"): \(result)"
        case .verify(let result, let number, _): "\(name) \(number.masked): \(result)"
        case .providerFailed(let provider, let number, let message): "provider-failed \(provider) \(number.masked): \(message)"
        }
    }

    private enum CodingKeys: String, CodingKey {
        case event, number, session, rule, until, expiresAt, resendAfter, rejected, reason, message, attemptsLeft, provider
    }

    /// Encodes `{"event":"send-limited","number":"138****8000","rule":"number-minute","until":"…"}`.
    /// - Parameter encoder: The encoder.
    /// - Throws: What the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .event)
        switch self {
        case .send(let result, let number, let session):
            try container.encodeIfPresent(number?.masked, forKey: .number)
            try container.encodeIfPresent(session?.text, forKey: .session)
            switch result {
            case .sent(let expiresAt, let resendAfter):
                try container.encode(expiresAt.iso8601, forKey: .expiresAt)
                try container.encode(resendAfter.iso8601, forKey: .resendAfter)
            case .captchaRequired(let rule, let rejected):
                try container.encode(rule, forKey: .rule)
                try container.encode(rejected, forKey: .rejected)
            case .limited(let rule, let retryAfter):
                try container.encode(rule, forKey: .rule)
                try container.encode(retryAfter.iso8601, forKey: .until)
            case .refused(let refusal):
                try container.encode(refusal.kind.id, forKey: .reason)
                try container.encode(refusal.message, forKey: .message)
            case .senderFailed(let retryAfter):
                try container.encode(retryAfter.iso8601, forKey: .until)
            }
        case .verify(let result, let number, let session):
            try container.encode(number.masked, forKey: .number)
            try container.encodeIfPresent(session?.text, forKey: .session)
            switch result {
            case .wrong(let left): try container.encode(left, forKey: .attemptsLeft)
            case .locked(let rule, let until):
                try container.encode(rule, forKey: .rule)
                try container.encode(until.iso8601, forKey: .until)
            case .verified, .expired, .tooManyAttempts, .noCode: break
            }
        case .providerFailed(let provider, let number, let message):
            try container.encode(provider, forKey: .provider)
            try container.encode(number.masked, forKey: .number)
            try container.encode(message, forKey: .message)
        }
    }
}
