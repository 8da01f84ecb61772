/// A carrier's one-tap login behind one protocol, whichever SDK it wraps: China Mobile's (号码认证 /
/// 统一认证 SDK `getTokenExp` / `loginExplicitly`), China Telecom's Tianyi (天翼账号, `EAccount` / CtAuth
/// SDK) or China Unicom's (联通认证 SDK). The integrator wraps the real SDK; `OneTapTesting` ships a
/// scriptable mock. ``LoginProviders`` says which flow each provider serves.
public protocol OneTapProvider: Sendable {
    /// Runs the one-tap login (the SDK shows its authorization page).
    /// - Returns: What the SDK answered: a token on success, else its error code.
    /// - Throws: Anything; a throw is a provider fault and the coordinator falls back.
    func login() async throws -> OneTapResult
}

/// A one-tap SDK's answer: its result code (China Mobile's success is 103000, Tianyi's and Unicom's 0) and,
/// on success, the token with what the SDK gave beside it. Each SDK fills what it has: China Mobile a
/// `token`, its `uniqueid` and the masked number; Tianyi an `accessToken` (as ``token``), a refresh token
/// and the lifetime from `expiresIn` / `atExpiresIn`; Unicom an access code (as ``token``) and its lifetime.
public struct OneTapResult: Sendable, CustomStringConvertible {
    /// The result code.
    public let resultCode: ResultCode
    /// The token to exchange (on success): China Mobile's token, Tianyi's access token, Unicom's access code.
    public let token: Secret?
    /// The refresh token, if the SDK gave one (Tianyi).
    public let refreshToken: Secret?
    /// The token's lifetime, if given.
    public let expiresIn: ExpiresIn?
    /// The SDK's `uniqueid` (China Mobile, on success; seed 002 requires it).
    public let uniqueID: String?
    /// The masked number the page showed, e.g. `138****8000`.
    public let maskedNumber: String?

    /// Creates a result.
    /// - Parameters:
    ///   - resultCode: The result code.
    ///   - token: The token, on success.
    ///   - refreshToken: The refresh token, if any.
    ///   - expiresIn: The lifetime, if given.
    ///   - uniqueID: The `uniqueid`, on success.
    ///   - maskedNumber: The masked number, if known.
    public init(
        resultCode: ResultCode, token: Secret? = nil, refreshToken: Secret? = nil, expiresIn: ExpiresIn? = nil, uniqueID: String? = nil,
        maskedNumber: String? = nil
    ) {
        self.resultCode = resultCode
        self.token = token
        self.refreshToken = refreshToken
        self.expiresIn = expiresIn
        self.uniqueID = uniqueID
        self.maskedNumber = maskedNumber
    }

    /// `OneTapResult(103000, token <redacted>, uniqueid present, expiresIn none)`.
    public var description: String {
        "OneTapResult(\(resultCode), token \(token == nil ? "none" : "<redacted>"), uniqueid \(uniqueID == nil ? "none" : "present"), expiresIn \(expiresIn.map(\.description) ?? "none"))"
    }

    /// The credential a success carries for the exchange, or nil without a token.
    /// - Parameter flow: The one-tap flow that answered.
    /// - Returns: The credential.
    func credential(for flow: LoginFlow) -> CarrierCredential? {
        token.map { CarrierCredential(flow: flow, token: $0, refreshToken: refreshToken, uniqueID: uniqueID, maskedNumber: maskedNumber, expiresIn: expiresIn) }
    }
}
