/// How an app session last logged in (kept in its ``AppSessionRecord``), for the login page's "last time
/// you used …" hint (seed 000: 提示用户上次在本机登录方式 && 账号). The number is kept masked only: the full number is never stored with it.
public struct LastLoginHint: Hashable, Sendable, CustomStringConvertible {
    /// The flow that logged in: a one-tap flow or SMS.
    public let flow: LoginFlow
    /// The number with its middle four digits hidden, `138****8000`.
    public let maskedNumber: String?
    /// When (to the millisecond, as stored).
    public let at: Date

    /// Creates a hint from a login.
    /// - Parameters:
    ///   - flow: The flow that logged in.
    ///   - number: The number it logged in with, if known (only its masked form is kept).
    ///   - at: When (kept to the millisecond).
    package init(flow: LoginFlow, number: PhoneNumber?, at: Date) {
        self.flow = flow
        maskedNumber = number?.masked
        self.at = at.roundedToMilliseconds
    }

    /// Whether the last login was one-tap (else SMS).
    package var wasOneTap: Bool { flow.isOneTap }

    /// `one-tap (mobile) 138****8000`.
    public var description: String {
        "\(flow.isOneTap ? "one-tap (\(flow))" : "sms")\(maskedNumber.map { " \($0)" } ?? "")"
    }
}
