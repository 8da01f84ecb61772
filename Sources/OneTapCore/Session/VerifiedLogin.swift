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

    /// `VerifiedLogin(138****8000, account 42)`.
    public var description: String { "VerifiedLogin(\(phoneNumber.masked), account \(account.map(\.rawValue) ?? "none"))" }
}
