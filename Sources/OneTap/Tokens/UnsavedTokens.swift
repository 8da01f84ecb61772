/// Refreshed tokens the store failed to write, kept in this vault's memory until a write lands: the carrier
/// may have rotated the refresh token, so the stored one may be dead, and a refreshed token thrown away would
/// make the account log in again. Each is kept over the stored version it replaces; the next refresh of the
/// account writes it before any carrier call, and a caller on an expired stored token is served it meanwhile.
/// A logout, a login's new token or another writer's version forgets it.
struct UnsavedTokens: Sendable {
    private var kept: [AccountID: (token: AccessToken, over: TokenVersion)] = [:]

    /// Keeps a token that replaces the stored `version`.
    /// - Parameters:
    ///   - token: The refreshed token.
    ///   - version: The stored version it replaces.
    mutating func keep(_ token: AccessToken, over version: TokenVersion) {
        kept[token.account] = (token, version)
    }

    /// The kept token of an account, when it replaces the version stored now; one kept under a newer version
    /// (someone wrote since) is forgotten. A caller's older view (read before another writer's version the token
    /// was kept over) gets nothing and forgets nothing: versions only grow.
    /// - Parameters:
    ///   - account: The account.
    ///   - version: The version stored now, as the caller read it.
    /// - Returns: The token, or nil.
    mutating func token(for account: AccountID, over version: TokenVersion) -> AccessToken? {
        guard let entry = kept[account] else { return nil }
        guard entry.over == version else {
            if version > entry.over { kept[account] = nil }
            return nil
        }
        return entry.token
    }

    /// The accounts with a kept token.
    var accounts: [AccountID] { Array(kept.keys) }

    /// Whether an account has a kept token.
    /// - Parameter account: The account.
    /// - Returns: Whether one is kept.
    func holds(_ account: AccountID) -> Bool { kept[account] != nil }

    /// Forgets an account's kept token.
    /// - Parameter account: The account.
    mutating func forget(_ account: AccountID) {
        kept[account] = nil
    }

    /// Forgets the account's kept token only when it is still `token`: a newer one kept meanwhile (another
    /// refresh of the account whose write failed too) stays.
    /// - Parameters:
    ///   - account: The account.
    ///   - token: The token written or given up.
    mutating func forget(_ account: AccountID, ifStill token: AccessToken) {
        if kept[account]?.token == token { kept[account] = nil }
    }

}
