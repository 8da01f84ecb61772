/// China Unicom's one-tap login (联通认证 SDK), behind a protocol.
public protocol UnicomOneTapProvider: Sendable {
    /// Runs the one-tap login.
    /// - Returns: What the SDK answered: an access code on success, else its error code.
    /// - Throws: Anything; a throw is a provider fault and the coordinator falls back.
    func login() async throws -> UnicomOneTapResult
}

/// Unicom's answer: result code 0 with an access code.
public struct UnicomOneTapResult: Sendable, CustomStringConvertible {
    /// The result code (0 is success).
    public let resultCode: ResultCode
    /// The access code (on success).
    public let accessCode: Secret?
    /// The lifetime, if given.
    public let expiresIn: ExpiresIn?

    /// Creates a result.
    /// - Parameters:
    ///   - resultCode: The result code.
    ///   - accessCode: The access code, on success.
    ///   - expiresIn: The lifetime, if given.
    public init(resultCode: ResultCode, accessCode: Secret? = nil, expiresIn: ExpiresIn? = nil) {
        self.resultCode = resultCode
        self.accessCode = accessCode
        self.expiresIn = expiresIn
    }

    /// `UnicomOneTapResult(0, accessCode <redacted>)`.
    public var description: String {
        "UnicomOneTapResult(\(resultCode), accessCode \(accessCode == nil ? "none" : "<redacted>"))"
    }
}
