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

    /// What a login keeps of a one-tap token, and what binds an exchange answer to it: the SHA-256 of
    /// the token's UTF-8 (never the token).
    /// - Parameter token: A one-tap token.
    /// - Returns: Its digest.
    package static func digest(of token: Secret) -> SHA256Digest {
        SHA256.hash(token.reveal().utf8)
    }

    /// The SHA-256 of this credential's token (``digest(of:)``).
    package var tokenDigest: SHA256Digest { Self.digest(of: token) }

    /// `CarrierCredential(mobile, token <redacted>, uniqueid present)`.
    public var description: String {
        "CarrierCredential(\(flow), token <redacted>\(refreshToken == nil ? "" : ", refresh <redacted>"), uniqueid \(uniqueID == nil ? "none" : "present"))"
    }
}
