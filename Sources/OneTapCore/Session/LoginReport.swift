/// What the app (or the server's own exchange) reports to a login session: one event per HTTP request.
public enum LoginReport: Sendable, CustomStringConvertible {
    /// A flow answered with a result code exactly as the SDK gave it, and the credential it returned
    /// with it (a success code needs one: China Mobile's token and uniqueid, Tianyi's or Unicom's code).
    case result(LoginFlow, code: ResultCode, credential: CarrierCredential? = nil)
    /// A flow gave no answer within its time limit (the app measures it: 8 s by default).
    case timeout(LoginFlow)
    /// A flow's provider failed (threw, crashed, answered nonsense): the text says how (never a token).
    case fault(LoginFlow, String)
    /// The app has no provider for the flow (the device-side coordinator reports this).
    case unavailable(LoginFlow)
    /// The user chose SMS ("other login method") without a code saying so.
    case switchToSMS(LoginFlow)
    /// The login was abandoned without a code: the user backed out, gave no number for SMS, or the
    /// caller stopped waiting.
    case cancel(LoginFlow, reason: CancelReason = .user)
    /// The SMS code service verified the number: the only way the SMS step succeeds.
    case smsVerified(SMSVerdict)
    /// The server's exchange of the success report's token answered (or did not), bound to that token.
    /// Only the exchange path makes one (``ExchangeOutcome``); `LoginServer.report(_:to:version:)`, the
    /// entry point for the app's requests, refuses it.
    case exchange(ExchangeOutcome)

    /// The flow the report is about, or nil for an exchange answer (about the token being exchanged).
    package var flow: LoginFlow? {
        switch self {
        case .result(let flow, _, _), .timeout(let flow), .fault(let flow, _), .unavailable(let flow), .switchToSMS(let flow),
            .cancel(let flow, _):
            flow
        case .smsVerified:
            .sms
        case .exchange:
            nil
        }
    }

    /// `result mobile 103000 (credential)`; never a token, and a fault's text as the session keeps it (numbers masked,
    /// cut to 200 characters, no control characters).
    public var description: String {
        switch self {
        case .result(let flow, let code, let credential): "result \(flow) \(code)\(credential == nil ? "" : " (credential)")"
        case .timeout(let flow): "timeout \(flow)"
        case .fault(let flow, let message): "fault \(flow): \(PhoneNumber.maskingNumbers(in: message, limit: 200))"
        case .unavailable(let flow): "unavailable \(flow)"
        case .switchToSMS(let flow): "switch \(flow)"
        case .cancel(let flow, let reason): "cancel \(flow) (\(reason))"
        case .smsVerified(let verdict): "sms verified \(verdict.phoneNumber.masked)"
        case .exchange(let outcome): "exchange \(outcome)"
        }
    }
}

/// The server's exchange of a one-tap token for the number: what came of it. Made and read by the
/// exchange path and the session machine only (a report carries it inside an ``ExchangeOutcome``).
package enum ExchangeAnswer: Hashable, Sendable, CustomStringConvertible {
    /// The exchange answered with a code; on success with the number (and the app's account, if known).
    case answered(ResultCode, phoneNumber: PhoneNumber? = nil, account: AccountID? = nil)
    /// No answer in time: the result is unknown (the carrier may have billed and spent the token).
    case timeout
    /// The call failed before an answer (network, the integrator's adapter threw).
    case fault(String)
    /// The token was older than its lifetime (`Data/token-lifetimes.csv`): not sent.
    case tokenExpired
    /// The token had been exchanged already (by this or another login): not sent again.
    case replayed

    /// `103000`, `timeout`, `fault: …`, `token-expired`, `replayed`.
    package var description: String {
        switch self {
        case .answered(let code, let number, _): "\(code)\(number.map { " \($0.masked)" } ?? "")"
        case .timeout: "timeout"
        case .fault(let message): "fault: \(message)"
        case .tokenExpired: "token-expired"
        case .replayed: "replayed"
        }
    }
}

/// Why a login was abandoned without a code.
public enum CancelReason: String, Hashable, Sendable, CaseIterable, Codable, CustomStringConvertible {
    /// The user backed out (closed the page).
    case user
    /// The user gave no phone number for SMS.
    case noPhoneNumber = "no-phone-number"
    /// The caller stopped waiting (its task was cancelled).
    case caller

    /// The id, e.g. `"no-phone-number"`.
    public var description: String { rawValue }
}
