/// China Telecom's Tianyi account one-tap login (天翼账号, `EAccount` / CtAuth SDK), behind a protocol.
public protocol TianyiOneTapProvider: Sendable {
    /// Runs the one-tap login.
    /// - Returns: What the SDK answered: an access token on success, else its error code.
    /// - Throws: Anything; a throw is a provider fault and the coordinator falls back.
    func login() async throws -> TianyiOneTapResult
}

/// Tianyi's answer: result code 0 with an `accessToken` (valid about a month) and its lifetime, or an
/// error code such as -8994014.
public struct TianyiOneTapResult: Sendable, CustomStringConvertible {
    /// The result code (0 is success).
    public let resultCode: ResultCode
    /// The access token (on success).
    public let accessToken: Secret?
    /// The refresh token, if the SDK gave one.
    public let refreshToken: Secret?
    /// The lifetime from `expiresIn` / `atExpiresIn`, if given.
    public let expiresIn: ExpiresIn?

    /// Creates a result.
    /// - Parameters:
    ///   - resultCode: The result code.
    ///   - accessToken: The access token, on success.
    ///   - refreshToken: The refresh token, if any.
    ///   - expiresIn: The lifetime, if given.
    public init(resultCode: ResultCode, accessToken: Secret? = nil, refreshToken: Secret? = nil, expiresIn: ExpiresIn? = nil) {
        self.resultCode = resultCode
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresIn = expiresIn
    }

    /// `TianyiOneTapResult(0, accessToken <redacted>, expiresIn 2592000s)`.
    public var description: String {
        "TianyiOneTapResult(\(resultCode), accessToken \(accessToken == nil ? "none" : "<redacted>"), expiresIn \(expiresIn.map(\.description) ?? "none"))"
    }
}
