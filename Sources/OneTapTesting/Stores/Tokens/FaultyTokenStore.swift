import OneTap

/// A ``TokenStore`` wrapper that fails on demand, through ``FaultyStore/faults``: on read, on write, on
/// remove, or by reporting a stale version (`.refuse(.conflict, …)` into `[.save]`), to test that a token
/// is never lost and that callers get a clear error.
public typealias FaultyTokenStore = FaultyStore<any TokenStore>

extension FaultyStore: TokenStore where Base == any TokenStore {

    /// Makes the next `count` calls of `operation` fail with an `io` error (disk full).
    /// - Parameters:
    ///   - operation: Which call to fail.
    ///   - count: How many calls in a row.
    package func fail(_ operation: StoreOperation, times count: Int = 1) {
        faults.inject(.refuse(.io, "injected \(operation) failure: No space left on device"), into: [operation], times: count)
    }

    /// Makes the next `count` saves report a conflict, as if another instance had written first.
    /// - Parameter count: How many saves in a row.
    package func conflict(times count: Int = 1) {
        faults.inject(.refuse(.conflict, "injected conflict"), into: [.save], times: count)
    }

    /// Reads an account's token (``TokenStore/load(_:)``).
    /// - Parameter account: The account.
    /// - Returns: The token and its version, or nil.
    /// - Throws: ``StoreError``.
    public func load(_ account: AccountID) async throws -> StoredToken? {
        try await faults.run(.load, subject: .account(account)) { try await base.load(account) }
    }

    /// Writes a token if the stored version is still `expected` (``TokenStore/save(_:replacing:dueAt:)``).
    /// - Parameters:
    ///   - token: The token.
    ///   - expected: The version read, or nil when none should be stored.
    ///   - dueAt: When the token needs attention.
    /// - Returns: The new version.
    /// - Throws: ``StoreError`` of kind `conflict` or `io`.
    public func save(_ token: AccessToken, replacing expected: TokenVersion?, dueAt: Date) async throws -> TokenVersion {
        try await faults.run(.save, subject: .account(token.account)) { try await base.save(token, replacing: expected, dueAt: dueAt) }
    }

    /// Removes an account's token (``TokenStore/remove(_:replacing:)``).
    /// - Parameters:
    ///   - account: The account.
    ///   - expected: The version read, or nil to remove whatever is stored.
    /// - Returns: Whether a token was removed.
    /// - Throws: ``StoreError`` of kind `conflict` or `io`.
    @discardableResult
    public func remove(_ account: AccountID, replacing expected: TokenVersion?) async throws -> Bool {
        try await faults.run(.remove, subject: .account(account)) { try await base.remove(account, replacing: expected) }
    }

    /// Accounts due before an instant, soonest first (``TokenStore/accounts(dueBefore:limit:)``).
    /// - Parameters:
    ///   - instant: The instant.
    ///   - limit: The most accounts to return.
    /// - Returns: The accounts.
    /// - Throws: ``StoreError`` of kind `io`.
    public func accounts(dueBefore instant: Date, limit: Int) async throws -> [AccountID] {
        try await faults.run(.accounts) { try await base.accounts(dueBefore: instant, limit: limit) }
    }

    /// Runs `body` holding the account's refresh lock (``TokenStore/withRefreshLock(for:_:)``).
    /// - Parameters:
    ///   - account: The account.
    ///   - body: The refresh.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    public func withRefreshLock<T: Sendable>(for account: AccountID, _ body: @Sendable () async throws -> T) async throws -> T {
        try await base.withRefreshLock(for: account, body)
    }
}
