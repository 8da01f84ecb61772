#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import OneTap

/// A ``TokenStore`` wrapper that fails on demand: on read, on write, on remove, or by reporting a stale
/// version (a conflict) the next time, to test that a token is never lost and that callers get a clear
/// error.
public final class FaultyTokenStore: TokenStore {
    /// Which operation to fail.
    public enum Operation: Hashable, Sendable {
        /// ``TokenStore/load(_:)``.
        case load
        /// ``TokenStore/save(_:replacing:dueAt:)``.
        case save
        /// ``TokenStore/remove(_:replacing:)``.
        case remove
        /// ``TokenStore/accounts(dueBefore:limit:)``.
        case accounts
    }

    private let base: any TokenStore
    private let failures = LockedValue<[Operation: Int]>([:])
    private let conflicts = LockedValue(0)

    /// Wraps a store.
    /// - Parameter base: The store that does the real work.
    public init(_ base: any TokenStore) { self.base = base }

    /// Makes the next `count` calls of `operation` fail with an `io` error (disk full).
    /// - Parameters:
    ///   - operation: Which call to fail.
    ///   - count: How many calls in a row.
    public func fail(_ operation: Operation, times count: Int = 1) {
        failures.withLock { $0[operation, default: 0] += count }
    }

    /// Makes the next `count` saves report a conflict, as if another instance had written first.
    /// - Parameter count: How many saves in a row.
    public func conflict(times count: Int = 1) {
        conflicts.withLock { $0 += count }
    }

    private func check(_ operation: Operation, _ account: AccountID?) throws {
        let fails = failures.withLock { failures -> Bool in
            guard let left = failures[operation], left > 0 else { return false }
            failures[operation] = left - 1
            return true
        }
        if fails {
            throw TokenStoreError(.io, account: account, message: "injected \(operation) failure: No space left on device")
        }
    }

    /// Reads an account's token (``TokenStore/load(_:)``).
    /// - Parameter account: The account.
    /// - Returns: The token and its version, or nil.
    /// - Throws: ``TokenStoreError``.
    public func load(_ account: AccountID) async throws -> StoredToken? {
        try check(.load, account)
        return try await base.load(account)
    }

    /// Writes a token if the stored version is still `expected` (``TokenStore/save(_:replacing:dueAt:)``).
    /// - Parameters:
    ///   - token: The token.
    ///   - expected: The version read, or nil when none should be stored.
    ///   - dueAt: When the token needs attention.
    /// - Returns: The new version.
    /// - Throws: ``TokenStoreError`` of kind `conflict` or `io`.
    public func save(_ token: AccessToken, replacing expected: TokenVersion?, dueAt: Date) async throws -> TokenVersion {
        try check(.save, token.account)
        let conflict = conflicts.withLock { count -> Bool in
            guard count > 0 else { return false }
            count -= 1
            return true
        }
        if conflict { throw TokenStoreError(.conflict, account: token.account, message: "injected conflict") }
        return try await base.save(token, replacing: expected, dueAt: dueAt)
    }

    /// Removes an account's token (``TokenStore/remove(_:replacing:)``).
    /// - Parameters:
    ///   - account: The account.
    ///   - expected: The version read, or nil to remove whatever is stored.
    /// - Returns: Whether a token was removed.
    /// - Throws: ``TokenStoreError`` of kind `conflict` or `io`.
    @discardableResult
    public func remove(_ account: AccountID, replacing expected: TokenVersion?) async throws -> Bool {
        try check(.remove, account)
        return try await base.remove(account, replacing: expected)
    }

    /// Accounts due before an instant, soonest first (``TokenStore/accounts(dueBefore:limit:)``).
    /// - Parameters:
    ///   - instant: The instant.
    ///   - limit: The most accounts to return.
    /// - Returns: The accounts.
    /// - Throws: ``TokenStoreError`` of kind `io`.
    public func accounts(dueBefore instant: Date, limit: Int) async throws -> [AccountID] {
        try check(.accounts, nil)
        return try await base.accounts(dueBefore: instant, limit: limit)
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
