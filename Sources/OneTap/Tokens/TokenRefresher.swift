/// Exchanges a refresh token for a new access token: the integrator's adapter over the carrier's
/// refresh API (Tianyi's `refreshToken.do`). OneTap ships no network code; `OneTapTesting` ships a
/// scriptable mock.
public protocol TokenRefresher: Sendable {
    /// Refreshes a token.
    /// - Parameter token: The current token (with its refresh token).
    /// - Returns: What the carrier answered.
    /// - Throws: ``TokenRefreshError``: `final` when the carrier says the refresh token is invalid,
    ///   expired or revoked; anything else (network, timeout, 5xx, rate limit, or any other error) is
    ///   treated as transient.
    func refresh(_ token: AccessToken) async throws -> RefreshResponse
}

/// A successful refresh: the new access token, a new refresh token if the carrier rotated it, and the
/// new lifetime.
public struct RefreshResponse: Sendable, CustomStringConvertible {
    /// The new access token.
    public let accessToken: Secret
    /// The new refresh token; nil or empty means "keep the old one".
    public let refreshToken: Secret?
    /// The new lifetime, if the carrier gave one.
    public let expiresIn: ExpiresIn?

    /// Creates a response.
    /// - Parameters:
    ///   - accessToken: The new access token.
    ///   - refreshToken: A new refresh token, or nil to keep the old one.
    ///   - expiresIn: The lifetime, if given.
    public init(accessToken: Secret, refreshToken: Secret? = nil, expiresIn: ExpiresIn? = nil) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresIn = expiresIn
    }

    /// `RefreshResponse(accessToken <redacted>, refreshToken <redacted>, expiresIn 2592000s)`.
    public var description: String {
        "RefreshResponse(accessToken <redacted>, refreshToken \(refreshToken.map { $0.isEmpty ? "empty" : "<redacted>" } ?? "none"), expiresIn \(expiresIn.map(\.description) ?? "none"))"
    }
}

/// Why a refresh failed, classified.
public struct TokenRefreshError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Whether retrying can help: ``ErrorKind/final`` or ``ErrorKind/transient``.
    package typealias Kind = ErrorKind<TokenRefreshError>

    /// Whether retrying can help.
    public let kind: ErrorKind<TokenRefreshError>
    /// The carrier's result code, if it gave one.
    public let code: ResultCode?
    /// What went wrong, without secrets.
    public let message: String

    /// Creates a refresh error.
    /// - Parameters:
    ///   - kind: Final or transient.
    ///   - code: The carrier's code, if any.
    ///   - message: What went wrong (never a token).
    public init(_ kind: ErrorKind<TokenRefreshError>, code: ResultCode? = nil, message: String) {
        self.kind = kind
        self.code = code
        self.message = message
    }

    /// `final refresh failure (code -1): refresh token expired`.
    public var description: String {
        "\(kind) refresh failure\(code.map { " (code \($0))" } ?? ""): \(message)"
    }

    /// Classifies any error a refresher threw: a ``TokenRefreshError`` keeps its kind, everything else is
    /// transient.
    static func classify(_ error: any Error) -> TokenRefreshError {
        if let error = error as? TokenRefreshError { return error }
        if error is CancellationError { return TokenRefreshError(.transient, message: "the refresh was cancelled") }
        return TokenRefreshError(.transient, message: "\(error)")
    }
}

extension ErrorKind where Failure == TokenRefreshError {
    /// The carrier refused the refresh token (invalid, expired, revoked): the user must log in again.
    public static let final = Self("final")
    /// Network, timeout, 5xx, rate limit: keep the token, retry later.
    public static let transient = Self("transient")
}
