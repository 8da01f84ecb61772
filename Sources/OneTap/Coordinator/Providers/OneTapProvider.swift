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
/// on success, the credential the server exchanges for the number, with what the SDK gave beside the
/// token: China Mobile's `uniqueid` and masked number, Tianyi's refresh token and lifetime
/// (`expiresIn` / `atExpiresIn`), Unicom's access code and its lifetime.
public struct OneTapResult: Sendable, CustomStringConvertible {
    /// The result code.
    public let resultCode: ResultCode
    /// The credential (on success), of the flow the provider serves, without a `phoneNumber`: a one-tap
    /// SDK verifies no number on the device, so the coordinator takes one it claims as a provider fault
    /// (the number is the server's exchange's answer).
    public let credential: CarrierCredential?

    /// Creates a result.
    /// - Parameters:
    ///   - resultCode: The result code.
    ///   - credential: The credential, on success: `CarrierCredential(flow: .mobile, token:, uniqueID:,
    ///     maskedNumber:)`, `CarrierCredential(flow: .tianyi, token:, refreshToken:, expiresIn:)`,
    ///     `CarrierCredential(flow: .unicom, token:, expiresIn:)`.
    public init(resultCode: ResultCode, credential: CarrierCredential? = nil) {
        self.resultCode = resultCode
        self.credential = credential
    }

    /// `OneTapResult(103000, CarrierCredential(mobile, token <redacted>, uniqueid present))`.
    public var description: String { "OneTapResult(\(resultCode), \(credential.map(\.description) ?? "no credential"))" }
}
