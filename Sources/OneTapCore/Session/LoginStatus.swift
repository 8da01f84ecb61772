/// What an app may read of its login: where it stands and what to do next, with the verified number
/// masked. `LoginServer.status(_:from:)` answers it to the app session that started the login only.
public struct LoginStatus: Hashable, Sendable, CustomStringConvertible {
    /// The login.
    public let id: LoginSessionID
    /// Its version: send it with the next report.
    public let version: Int
    /// What the app does next: `run`, `exchange`, `sms`, `done` (as ``LoginSession`` says it).
    public let next: String
    /// How it ended, once it did.
    public let ending: Decision.Ending?
    /// The verified number, masked (`138****8000`), once the login succeeded.
    public let maskedNumber: String?
    /// When the login expires.
    public let expiresAt: Date

    init(_ session: LoginSession) {
        id = session.id
        version = session.version
        next = session.next
        ending = session.ending
        maskedNumber = session.verified.map { $0.phoneNumber.masked }
        expiresAt = session.expiresAt
    }

    /// `login q3Vn… v3: done success (138****8000)`.
    public var description: String {
        "login \(id) v\(version): \(next)\(maskedNumber.map { " (\($0))" } ?? "")"
    }
}

extension LoginSession {
    /// What the app may read of the session.
    package var status: LoginStatus { LoginStatus(self) }
}
