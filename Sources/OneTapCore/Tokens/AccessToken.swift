/// A carrier access token (Tianyi's `accessToken` lives a month) with what is needed to keep it alive.
///
/// Its value and refresh token are ``Secret``s: `description`, `String(reflecting:)`, `dump` and every
/// event show `<redacted>`; only ``Secret/reveal()`` returns them. Times are kept to the millisecond, so a
/// token survives a round trip through any store unchanged.
public struct AccessToken: Hashable, Sendable, CustomStringConvertible, CustomReflectable {
    /// The token.
    public let value: Secret
    /// The refresh token, if the carrier gave one.
    public let refreshToken: Secret?
    /// The flow (carrier product) that issued it.
    public let flow: LoginFlow
    /// The account it belongs to.
    public let account: AccountID
    /// When this process received it (local receipt time, not the carrier's clock).
    public let issuedAt: Date
    /// When it stops working.
    public let expiresAt: Date

    /// Creates a token with an explicit expiry.
    /// - Parameters:
    ///   - value: The token.
    ///   - refreshToken: The refresh token, if any; an empty one counts as none.
    ///   - flow: The flow that issued it.
    ///   - account: The account it belongs to.
    ///   - issuedAt: When it was received.
    ///   - expiresAt: When it stops working.
    public init(value: Secret, refreshToken: Secret?, flow: LoginFlow, account: AccountID, issuedAt: Date, expiresAt: Date) {
        self.value = value
        self.refreshToken = refreshToken.flatMap { $0.isEmpty ? nil : $0 }
        self.flow = flow
        self.account = account
        self.issuedAt = Self.milliseconds(issuedAt)
        self.expiresAt = Self.milliseconds(expiresAt)
    }

    /// Creates a token from what a provider returned: the lifetime comes from its `expiresIn` /
    /// `atExpiresIn` when it gave one, else from the policy's default (30 days).
    /// - Parameters:
    ///   - value: The token.
    ///   - refreshToken: The refresh token, if any.
    ///   - flow: The flow that issued it.
    ///   - account: The account it belongs to.
    ///   - receivedAt: When it was received (the injected clock's now).
    ///   - expiresIn: The provider's lifetime, if it gave one.
    ///   - policy: Supplies the default lifetime.
    public init(
        value: Secret, refreshToken: Secret?, flow: LoginFlow, account: AccountID, receivedAt: Date, expiresIn: ExpiresIn?,
        policy: TokenPolicy = TokenPolicy()
    ) {
        let lifetime = policy.lifetime(given: expiresIn)
        self.init(
            value: value, refreshToken: refreshToken, flow: flow, account: account, issuedAt: receivedAt,
            expiresAt: receivedAt.addingTimeInterval(lifetime))
    }

    /// How long the token lives: `expiresAt - issuedAt`, in seconds.
    @inlinable
    package var lifetime: TimeInterval { expiresAt.timeIntervalSince(issuedAt) }

    /// The same token with another value, refresh token and expiry (a refresh's rotation).
    package func rotated(value: Secret, refreshToken: Secret?, issuedAt: Date, expiresAt: Date) -> AccessToken {
        AccessToken(
            value: value, refreshToken: refreshToken ?? self.refreshToken, flow: flow, account: account, issuedAt: issuedAt,
            expiresAt: expiresAt)
    }

    /// `AccessToken(tianyi, account 42, issued …, expires …, value <redacted>, refresh <redacted>)`.
    public var description: String {
        "AccessToken(\(flow), account \(account), issued \(issuedAt), expires \(expiresAt), value <redacted>, refresh \(refreshToken == nil ? "none" : "<redacted>"))"
    }

    /// A mirror without the secrets, so `dump` shows the metadata only.
    public var customMirror: Mirror {
        Mirror(self, children: [
            "flow": flow, "account": account, "issuedAt": issuedAt, "expiresAt": expiresAt,
            "value": "<redacted>", "refreshToken": refreshToken == nil ? "none" : "<redacted>",
        ], displayStyle: .struct)
    }

    /// A date rounded to the millisecond since 1970, the precision every store keeps.
    static func milliseconds(_ date: Date) -> Date {
        let value = (date.timeIntervalSince1970 * 1000).rounded()
        guard value.isFinite else { return date }
        return Date(timeIntervalSince1970: value / 1000)
    }
}
