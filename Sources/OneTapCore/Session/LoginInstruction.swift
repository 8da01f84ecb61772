/// What happens next in a login: the machine's answer to a start or a report.
public enum LoginInstruction: Sendable, CustomStringConvertible {
    /// The app runs this one-tap flow: attempt 1 first, a higher attempt to retry.
    case run(LoginFlow, attempt: Int)
    /// The app shows the SMS page; the server sends and verifies the code.
    case sms
    /// The server exchanges this credential's token for the number now, then reports the answer. The
    /// credential is the one the success report carried; it is never stored in the session and never
    /// sent back to the app.
    case exchange(CarrierCredential)
    /// The login is over.
    case done(Decision.Ending, flow: LoginFlow?, verified: VerifiedLogin?)

    /// `run`, `sms`, `exchange` or `done`: what the CLI and the app's JSON call it.
    package var next: String {
        switch self {
        case .run: "run"
        case .sms: "sms"
        case .exchange: "exchange"
        case .done: "done"
        }
    }

    /// `run mobile (attempt 1)`, `sms`, `exchange mobile`, `done success via mobile`; never a token.
    public var description: String {
        switch self {
        case .run(let flow, let attempt): "run \(flow) (attempt \(attempt))"
        case .sms: "sms"
        case .exchange(let credential): "exchange \(credential.flow)"
        case .done(let ending, let flow, _): "done \(ending)\(flow.map { " via \($0)" } ?? "")"
        }
    }
}
