/// Keeps one user's carrier access token usable: a view of a ``TokenVault`` for one account, with the
/// same guarantees (single flight, never an expired token, rotation in one write, logout wins). It holds
/// no state of its own, so it is a value: copies share the vault. Package: an app holds the vault and
/// its account (every method here is the vault's with the account filled in).
///
/// Run the vault for as long as the app lives, so stale tokens are refreshed in the background:
///
/// ```swift
/// let manager = TokenManager(account: "me", vault: TokenVault(store: try FileTokenStore(directory: path),
///                                                              refresher: MyTianyiRefresher()))
/// Task { try await manager.run() }          // e.g. in the app's root `.task { }`
/// try await manager.store(tokenFromLogin)
/// // on every app open:
/// let token = try await manager.validToken()
/// ```
package struct TokenManager: Sendable {
    /// The account this manager serves.
    package let account: AccountID
    /// The vault doing the work.
    package let vault: TokenVault

    /// Creates a manager over an existing vault.
    /// - Parameters:
    ///   - account: The account.
    ///   - vault: The vault.
    package init(account: AccountID, vault: TokenVault) {
        self.account = account
        self.vault = vault
    }

    /// Creates a manager with its own vault.
    /// - Parameters:
    ///   - account: The account.
    ///   - refresher: The carrier refresh call.
    ///   - store: Where the token lives; in memory by default.
    ///   - policy: When the token turns stale and expires.
    ///   - clock: The time source.
    ///   - backoff: The back-off after transient refresh failures.
    ///   - events: Receives its events (area `token`); standard error by default.
    package init(
        account: AccountID, refresher: any TokenRefresher, store: any TokenStore = InMemoryTokenStore(),
        policy: TokenPolicy = TokenPolicy(), clock: any WallClock = SystemClock(), backoff: RefreshBackoff = RefreshBackoff(),
        events: any EventSink = StandardErrorEventSink.shared
    ) {
        self.init(
            account: account,
            vault: TokenVault(store: store, refresher: refresher, policy: policy, clock: clock, backoff: backoff, events: events))
    }

    /// Runs the vault's refreshes until the task is cancelled (``TokenVault/run()``).
    /// - Throws: ``TokenError`` of kind `already-running` when the vault is running or has run.
    package func run() async throws {
        try await vault.run()
    }

    /// Stores the token a login produced.
    /// - Parameter token: The token (for this manager's account).
    /// - Throws: ``TokenError`` of kind `store-failed`.
    package func store(_ token: AccessToken) async throws {
        try await vault.store(token)
    }

    /// Returns a usable token: a stale one at once (refreshed in the background), an expired one after
    /// its refresh. What the app calls when it opens: a token that turned stale since the last open is
    /// refreshed in the background, so a user who opens the app at least monthly never logs in again.
    /// - Returns: A token that is not expired.
    /// - Throws: As ``TokenVault/validToken(for:)``.
    @inlinable  // no async frame of its own between the caller and the vault
    package nonisolated(nonsending) func validToken() async throws -> AccessToken {
        try await vault.validToken(for: account)
    }

    /// The stored token's state now, or nil when none is stored.
    /// - Returns: fresh, stale, expired, or nil.
    /// - Throws: ``TokenError`` of kind `store-failed`.
    package nonisolated(nonsending) func state() async throws -> TokenState? {
        try await vault.state(for: account)
    }

    /// Logs out: removes the token; a refresh in flight brings nothing back.
    /// - Throws: ``TokenError`` of kind `store-failed`.
    package func logout() async throws {
        try await vault.logout(account)
    }
}
