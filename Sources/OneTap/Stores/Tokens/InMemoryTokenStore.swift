/// A token store in this process's memory: the default. Thread-safe; every operation is atomic.
package final class InMemoryTokenStore: TokenStore {
    private struct State: Sendable {
        var tokens: [AccountID: StoredToken] = [:]
        var index = DueIndex()
        /// The last version handed out, store-wide: a version never repeats, even for an account that
        /// was removed and written again, so a write based on a token read before a logout always conflicts.
        var lastVersion = TokenVersion(0)
    }

    private let state = LockedValue(State())

    /// The accounts whose refresh lock is held, each with the refreshes waiting for it, oldest first.
    private struct RefreshLocks: Sendable {
        var waiting: [AccountID: [(id: Int, continuation: CheckedContinuation<Bool, Never>)]] = [:]
        var lastID = 0
    }

    private let refreshLocks = LockedValue(RefreshLocks())

    /// Creates an empty store.
    package init() {}

    /// Runs `body` holding the account's refresh lock (``TokenStore/withRefreshLock(for:_:)``): two vaults of
    /// this process sharing the store refresh an account one at a time, so one refresh token is never sent
    /// twice. Waiters take the lock in the order they asked.
    /// - Parameters:
    ///   - account: The account.
    ///   - body: The refresh.
    /// - Returns: What `body` returns.
    /// - Throws: `CancellationError` when the caller is cancelled while waiting (`body` does not run), or what
    ///   `body` throws.
    package func withRefreshLock<T: Sendable>(for account: AccountID, _ body: @Sendable () async throws -> T) async throws -> T {
        let id = refreshLocks.withLock { locks in
            locks.lastID += 1
            return locks.lastID
        }
        let acquired = await refreshLocks.park { locks, continuation in
            guard locks.waiting[account] != nil else {
                locks.waiting[account] = []  // free: taken at once
                return nil
            }
            locks.waiting[account, default: []].append((id, continuation))
            return []
        } unpark: { locks in
            guard let index = locks.waiting[account]?.firstIndex(where: { $0.id == id }) else { return nil }
            return locks.waiting[account]?.remove(at: index).continuation
        }
        guard acquired else { throw CancellationError() }
        defer { releaseRefreshLock(account) }
        return try await body()
    }

    /// Hands the account's refresh lock to the oldest waiter, or frees it.
    private func releaseRefreshLock(_ account: AccountID) {
        let next = refreshLocks.withLock { locks -> CheckedContinuation<Bool, Never>? in
            guard var queue = locks.waiting[account], !queue.isEmpty else {
                locks.waiting[account] = nil
                return nil
            }
            let first = queue.removeFirst()
            locks.waiting[account] = queue
            return first.continuation
        }
        next?.resume(returning: true)
    }

    /// How many accounts hold a token.
    package var count: Int { state.withLock { $0.tokens.count } }

    /// Reads an account's token (``TokenStore/load(_:)``).
    /// - Parameter account: The account.
    /// - Returns: The token and its version, or nil.
    /// - Throws: ``StoreError``.
    package func load(_ account: AccountID) async throws -> StoredToken? {
        loadNow(account)
    }

    /// The same read, without suspending: what ``TokenVault``'s fresh path calls on this store, so a
    /// fresh token is served with no hop off the caller's executor.
    /// - Parameter account: The account.
    /// - Returns: The token and its version, or nil.
    package func loadNow(_ account: AccountID) -> StoredToken? {
        state.withLock { $0.tokens[account] }
    }

    /// The account's token when `policy` calls it fresh at `now`, judged under the lock with only the token copied
    /// out (`TokenVault.validToken(for:)`'s fast path: no copy and release of the whole stored record).
    /// - Parameters:
    ///   - account: The account.
    ///   - now: The time.
    ///   - policy: When tokens turn stale.
    /// - Returns: The fresh token, or nil (none stored, stale or expired).
    package func freshToken(_ account: AccountID, at now: Date, policy: TokenPolicy) -> AccessToken? {
        state.withLock { state in
            guard let index = state.tokens.index(forKey: account) else { return nil }
            let token = state.tokens.values[index].token
            return policy.state(of: token, at: now) == .fresh ? token : nil
        }
    }

    /// Writes a token if the stored version is still `expected` (``TokenStore/save(_:replacing:dueAt:)``).
    /// - Parameters:
    ///   - token: The token.
    ///   - expected: The version read, or nil when none should be stored.
    ///   - dueAt: When the token needs attention.
    /// - Returns: The new version.
    /// - Throws: ``StoreError`` of kind `too-large` or `conflict`.
    package func save(_ token: AccessToken, replacing expected: TokenVersion?, dueAt: Date) async throws -> TokenVersion {
        try TokenRecordLimit.check(token, dueAt: dueAt)
        return try state.withLock { state throws(StoreError) -> TokenVersion in
            let current = state.tokens[token.account]
            guard current?.version == expected else {
                throw StoreError(
                    .conflict, account: token.account,
                    message: "expected \(expected.map(\.description) ?? "no token"), found \(current.map(\.version.description) ?? "no token")")
            }
            let version = state.lastVersion.next
            state.lastVersion = version
            state.tokens[token.account] = StoredToken(token: token, version: version)
            state.index.set(token.account, dueAt: dueAt)
            return version
        }
    }

    /// Removes an account's token (``TokenStore/remove(_:replacing:)``).
    /// - Parameters:
    ///   - account: The account.
    ///   - expected: The version read, or nil to remove whatever is stored.
    /// - Returns: Whether a token was removed.
    /// - Throws: ``StoreError`` of kind `conflict` or `io`.
    @discardableResult
    package func remove(_ account: AccountID, replacing expected: TokenVersion?) async throws -> Bool {
        try state.withLock { state throws(StoreError) -> Bool in
            guard let current = state.tokens[account] else {
                if expected != nil {
                    throw StoreError(.conflict, account: account, message: "expected \(expected!), found no token")
                }
                return false
            }
            if let expected, expected != current.version {
                throw StoreError(.conflict, account: account, message: "expected \(expected), found \(current.version)")
            }
            state.tokens[account] = nil
            state.index.remove(account)
            return true
        }
    }

    /// Accounts due before an instant, soonest first (``TokenStore/accounts(dueBefore:limit:)``).
    /// - Parameters:
    ///   - instant: The instant.
    ///   - limit: The most accounts to return.
    /// - Returns: The accounts.
    /// - Throws: ``StoreError`` of kind `io`.
    package func accounts(dueBefore instant: Date, limit: Int) async throws -> [AccountID] {
        state.withLock { $0.index.accounts(dueBefore: instant, limit: limit) }
    }
}
