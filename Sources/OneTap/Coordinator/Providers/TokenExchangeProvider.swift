/// The server side of a one-tap login: exchanges the carrier token for the verified phone number (China
/// Mobile's `getMobile`, Tianyi's user-info API) and the app's account. The integrator's adapter; the
/// library ships no network code.
public protocol TokenExchangeProvider: Sendable {
    /// Exchanges a carrier credential.
    /// - Parameter credential: What the one-tap flow produced.
    /// - Returns: The verified number and account.
    /// - Throws: Anything; a throw is treated like a failed flow and the coordinator falls back.
    func exchange(_ credential: CarrierCredential) async throws -> VerifiedLogin
}

/// What a successful flow produced.
public struct CarrierCredential: Sendable, CustomStringConvertible {
    /// The flow.
    public let flow: LoginFlow
    /// The carrier token (China Mobile's token, Tianyi's accessToken, Unicom's access code, or the SMS
    /// session).
    public let token: Secret
    /// Tianyi's refresh token, when it gave one.
    public let refreshToken: Secret?
    /// China Mobile's `uniqueid`.
    public let uniqueID: String?
    /// The masked number shown to the user.
    public let maskedNumber: String?
    /// The token's lifetime, when the provider gave one.
    public let expiresIn: ExpiresIn?
    /// The number SMS login verified.
    public let phoneNumber: PhoneNumber?

    /// Creates a credential.
    /// - Parameters:
    ///   - flow: The flow.
    ///   - token: The carrier token.
    ///   - refreshToken: A refresh token, if any.
    ///   - uniqueID: China Mobile's `uniqueid`.
    ///   - maskedNumber: The masked number.
    ///   - expiresIn: The lifetime.
    ///   - phoneNumber: The number SMS verified.
    public init(
        flow: LoginFlow, token: Secret, refreshToken: Secret? = nil, uniqueID: String? = nil, maskedNumber: String? = nil,
        expiresIn: ExpiresIn? = nil, phoneNumber: PhoneNumber? = nil
    ) {
        self.flow = flow
        self.token = token
        self.refreshToken = refreshToken
        self.uniqueID = uniqueID
        self.maskedNumber = maskedNumber
        self.expiresIn = expiresIn
        self.phoneNumber = phoneNumber
    }

    /// `CarrierCredential(mobile, token <redacted>, uniqueid present)`.
    public var description: String {
        "CarrierCredential(\(flow), token <redacted>\(refreshToken == nil ? "" : ", refresh <redacted>"), uniqueid \(uniqueID == nil ? "none" : "present"))"
    }
}

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
    public init(phoneNumber: PhoneNumber, account: AccountID? = nil) {
        self.phoneNumber = phoneNumber
        self.account = account
    }

    /// `VerifiedLogin(138****8000, account 42)`.
    public var description: String { "VerifiedLogin(\(phoneNumber.masked), account \(account.map(\.rawValue) ?? "none"))" }
}

/// The providers a coordinator can call. A flow whose provider is missing is skipped.
public struct LoginProviders: Sendable {
    /// China Mobile one-tap.
    public var mobile: (any MobileOneTapProvider)?
    /// China Telecom Tianyi one-tap.
    public var tianyi: (any TianyiOneTapProvider)?
    /// China Unicom one-tap.
    public var unicom: (any UnicomOneTapProvider)?
    /// SMS login.
    public var sms: (any SMSLoginProvider)?
    /// The server-side exchange of a carrier token for the verified number; nil to skip it.
    public var exchange: (any TokenExchangeProvider)?

    /// Creates a provider set.
    /// - Parameters:
    ///   - mobile: China Mobile one-tap.
    ///   - tianyi: Tianyi one-tap.
    ///   - unicom: Unicom one-tap.
    ///   - sms: SMS login.
    ///   - exchange: The token exchange.
    public init(
        mobile: (any MobileOneTapProvider)? = nil, tianyi: (any TianyiOneTapProvider)? = nil, unicom: (any UnicomOneTapProvider)? = nil,
        sms: (any SMSLoginProvider)? = nil, exchange: (any TokenExchangeProvider)? = nil
    ) {
        self.mobile = mobile
        self.tianyi = tianyi
        self.unicom = unicom
        self.sms = sms
        self.exchange = exchange
    }
}
