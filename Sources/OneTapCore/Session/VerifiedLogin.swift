/// Who logged in: the exchange's answer.
public struct VerifiedLogin: Hashable, Sendable, CustomStringConvertible {
    /// The verified phone number.
    public let phoneNumber: PhoneNumber
    /// The app's account for it, if the server has one.
    public let account: AccountID?

    /// Creates a verified login.
    /// - Parameters:
    ///   - phoneNumber: The verified number.
    ///   - account: The account.
    package init(phoneNumber: PhoneNumber, account: AccountID? = nil) {
        self.phoneNumber = phoneNumber
        self.account = account
    }

    /// The login an SMS code proves, for a server that runs `SMSCodeService` on its own (without `LoginServer`, whose
    /// sessions hand out their own): the number the verdict verified, for ``AccountLogin`` and then
    /// `AppSessions.loggedIn(_:as:flow:)`.
    /// - Parameter verdict: What `SMSCodeService.verify` answered `.verified` with (only OneTap makes one).
    public init(_ verdict: SMSVerdict) {
        self.init(phoneNumber: verdict.phoneNumber)
    }

    /// `VerifiedLogin(138****8000, account 42)`.
    public var description: String { "VerifiedLogin(\(phoneNumber.masked), account \(account.map(\.rawValue) ?? "none"))" }
}
