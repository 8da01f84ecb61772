/// Refreshed tokens the store failed to write, kept in this vault's memory until a write lands: the carrier
/// may have rotated the refresh token, so the stored one may be dead, and a refreshed token thrown away would
/// make the account log in again. Each is kept over the stored version it replaces; the next refresh of the
/// account writes it before any carrier call, and a caller on an expired stored token is served it meanwhile.
/// A logout, a login's new token or another writer's new token forgets it; another writer's version that holds
/// a token it replaced does not: the very stored token (an instance that could not see it re-saved that token: its
/// refresh was refused), or the newer token kept in memory that its refresh started from (whose write landed unseen).
struct UnsavedTokens: Sendable {
    private var kept: [AccountID: (token: AccessToken, over: TokenVersion, replaced: AccessToken, basis: AccessToken?)] = [:]

    /// Keeps a token that replaces the stored one.
    /// - Parameters:
    ///   - token: The refreshed token.
    ///   - current: The stored token and version it replaces.
    ///   - basis: The token its refresh started from when that was a newer one kept in memory over `current` (a
    ///     write of it whose outcome was unknown may have landed): found stored, it is replaced too.
    mutating func keep(_ token: AccessToken, over current: StoredToken, alsoReplacing basis: AccessToken? = nil) {
        kept[token.account] = (token, current.version, current.token, basis)
    }

    /// The kept token of an account, when it replaces the version stored now. One kept under an older version is
    /// forgotten when someone wrote another token since; when the newer version holds the very token the kept one
    /// replaced (another instance, which could not see the kept token, had its refresh with the old refresh token
    /// refused and re-saved the token to move its due date), it is kept over the newer version instead: its refresh
    /// token may be the only one the carrier still takes. A caller's older view (read before the version the token
    /// was kept over) gets nothing and forgets nothing: versions only grow.
    /// - Parameters:
    ///   - account: The account.
    ///   - stored: The token and version stored now, as the caller read them.
    /// - Returns: The token, or nil.
    mutating func token(for account: AccountID, over stored: StoredToken) -> AccessToken? {
        guard let entry = kept[account] else { return nil }
        guard entry.over == stored.version else {
            guard stored.version > entry.over else { return nil }
            guard TokenRefresh.isReplaced(stored.token, entry.replaced, entry.basis) else {
                kept[account] = nil
                return nil
            }
            kept[account] = (entry.token, stored.version, entry.replaced, entry.basis)
            return entry.token
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
