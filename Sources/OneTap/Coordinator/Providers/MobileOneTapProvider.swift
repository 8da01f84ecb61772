/// China Mobile's one-tap login (号码认证 / 统一认证 SDK `getTokenExp` / `loginExplicitly`), behind a
/// protocol: the integrator wraps the real SDK; `OneTapTesting` ships a scriptable mock.
public protocol MobileOneTapProvider: Sendable {
    /// Runs the one-tap login (the SDK shows its authorization page).
    /// - Returns: What the SDK answered.
    /// - Throws: Anything; a throw is a provider fault and the coordinator falls back.
    func login() async throws -> MobileOneTapResult
}

/// China Mobile's answer: `resultCode` (103000 is success) with a `token` and the `uniqueid`.
public struct MobileOneTapResult: Sendable, CustomStringConvertible {
    /// The result code.
    public let resultCode: ResultCode
    /// The login token (on success).
    public let token: Secret?
    /// The SDK's `uniqueid` (on success; seed 002 requires it).
    public let uniqueID: String?
    /// The masked number the page showed, e.g. `138****8000`.
    public let maskedNumber: String?

    /// Creates a result.
    /// - Parameters:
    ///   - resultCode: The result code.
    ///   - token: The token, on success.
    ///   - uniqueID: The `uniqueid`, on success.
    ///   - maskedNumber: The masked number, if known.
    public init(resultCode: ResultCode, token: Secret? = nil, uniqueID: String? = nil, maskedNumber: String? = nil) {
        self.resultCode = resultCode
        self.token = token
        self.uniqueID = uniqueID
        self.maskedNumber = maskedNumber
    }

    /// `MobileOneTapResult(103000, token <redacted>, uniqueid present)`.
    public var description: String {
        "MobileOneTapResult(\(resultCode), token \(token == nil ? "none" : "<redacted>"), uniqueid \(uniqueID == nil ? "none" : "present"))"
    }
}
