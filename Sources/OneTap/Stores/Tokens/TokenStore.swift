/// A stored record's version, for compare-and-swap writes: each write of an account makes a greater one.
public struct TokenVersion: Hashable, Sendable, Comparable, Codable, CustomStringConvertible {
    /// The version number, from 1.
    public let value: UInt64

    /// Creates a version.
    /// - Parameter value: The number.
    public init(_ value: UInt64) { self.value = value }

    /// Orders values by their numbers (stable, for sorting).
    /// - Parameters:
    ///   - lhs: A version.
    ///   - rhs: Another.
    /// - Returns: Whether `lhs` is the older.
    public static func < (lhs: TokenVersion, rhs: TokenVersion) -> Bool { lhs.value < rhs.value }
    /// A readable form, for messages and logs.
    public var description: String { "v\(value)" }

    /// The version after this one (the largest version stays the largest).
    package var next: TokenVersion { TokenVersion(value < .max ? value + 1 : value) }
}

/// A token as a store holds it, with its version.
public struct StoredToken: Hashable, Sendable, CustomStringConvertible {
    /// The token.
    public let token: AccessToken
    /// Its version.
    public let version: TokenVersion

    /// Creates a stored token.
    /// - Parameters:
    ///   - token: The token.
    ///   - version: Its version.
    public init(token: AccessToken, version: TokenVersion) {
        self.token = token
        self.version = version
    }

    /// A readable form, for messages and logs.
    public var description: String { "\(token) \(version)" }
}

/// Where tokens live, keyed by account, with versions so that several server instances sharing one
/// store (Redis, PostgreSQL, DynamoDB) make one instance's refresh win and the others re-read.
///
/// OneTap ships ``InMemoryTokenStore`` (the default) and ``FileTokenStore``. An adapter for another
/// store proves itself with `TokenStoreConformance` from `OneTapTesting`.
public protocol TokenStore: Sendable {
    /// Reads an account's token.
    /// - Parameter account: The account.
    /// - Returns: The token and its version, or nil when none is stored.
    /// - Throws: ``StoreError`` (`corrupt`, `insecure`, `io`; `timeout` when a store that moves a damaged record aside waits past its
    ///   time limit for the lock writers hold).
    func load(_ account: AccountID) async throws -> StoredToken?

    /// Writes a token if the stored version is still `expected` (compare-and-swap).
    ///
    /// A store never hands out a version an account had before, even after a removal: a write based on a
    /// token read before a logout must conflict with a token stored after it.
    /// - Parameters:
    ///   - token: The token; its ``AccessToken/account`` is the key.
    ///   - expected: The version the caller read, or nil when it expects no token to be stored.
    ///   - dueAt: When the token needs attention (``TokenPolicy/dueAt(_:)``), for ``accounts(dueBefore:limit:)``.
    /// - Returns: The new version.
    /// - Throws: ``StoreError`` of kind `too-large` when the token's record would exceed
    ///   ``TokenRecordLimit/bytes`` (check with ``TokenRecordLimit/check(_:)`` before anything else),
    ///   `conflict` when the stored version differs (nothing is written), or `io` when the write failed
    ///   (the previous token stays whole).
    func save(_ token: AccessToken, replacing expected: TokenVersion?, dueAt: Date) async throws -> TokenVersion

    /// Removes an account's token.
    /// - Parameters:
    ///   - account: The account.
    ///   - expected: The version the caller read, or nil to remove whatever is stored.
    /// - Returns: Whether a token was removed.
    /// - Throws: ``StoreError`` of kind `conflict` when the stored version differs, or `io`.
    @discardableResult
    func remove(_ account: AccountID, replacing expected: TokenVersion?) async throws -> Bool

    /// Lists accounts whose tokens are due (stale or expired) before an instant, soonest first, without
    /// scanning every account.
    /// - Parameters:
    ///   - instant: The instant.
    ///   - limit: The most accounts to return.
    /// - Returns: Up to `limit` accounts with `dueAt < instant`, ordered by `dueAt`.
    /// - Throws: ``StoreError`` of kind `io`.
    func accounts(dueBefore instant: Date, limit: Int) async throws -> [AccountID]

    /// Runs `body` holding this account's refresh lock, when the store has one that reaches other
    /// processes (``FileTokenStore`` uses `flock`, PostgreSQL a lease row): one refresh at a time, so no two
    /// carrier calls carry one refresh token. The default just runs `body`.
    /// - Parameters:
    ///   - account: The account.
    ///   - body: The refresh.
    /// - Returns: What `body` returns.
    /// - Throws: ``StoreError`` of kind `timeout` when another holds the lock past the store's time-out
    ///   (`body` does not run), or what `body` throws.
    func withRefreshLock<T: Sendable>(for account: AccountID, _ body: @Sendable () async throws -> T) async throws -> T
}

extension TokenStore {
    /// Runs `body` with no lock: stores without a cross-process lock rely on compare-and-swap alone.
    /// - Parameters:
    ///   - account: The account (not read).
    ///   - body: The refresh.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    public func withRefreshLock<T: Sendable>(for account: AccountID, _ body: @Sendable () async throws -> T) async throws -> T {
        try await body()
    }
}

/// Accounts ordered by when their tokens fall due, kept in minute buckets so that inserting, moving and
/// listing the due ones never scans every account.
struct DueIndex: Sendable {
    private var buckets: [Int64: Set<AccountID>] = [:]
    /// The bucket keys, sorted.
    private var keys: [Int64] = []
    private var due: [AccountID: Date] = [:]

    private static func bucket(_ date: Date) -> Int64 {
        let minutes = (date.timeIntervalSince1970 / 60).rounded(.down)
        return minutes.isFinite ? Int64(max(min(minutes, 1e15), -1e15)) : 0
    }

    /// Sets or moves an account's due time.
    /// - Complexity: O(log *b* + *b*) for a new bucket (*b* buckets, at most one per minute of the next
    ///   token lifetime), O(1) otherwise.
    mutating func set(_ account: AccountID, dueAt: Date) {
        remove(account)
        let key = Self.bucket(dueAt)
        if buckets[key] == nil {
            let position = insertionPoint(key)
            keys.insert(key, at: position)
        }
        buckets[key, default: []].insert(account)
        due[account] = dueAt
    }

    /// Forgets an account.
    mutating func remove(_ account: AccountID) {
        guard let old = due.removeValue(forKey: account) else { return }
        let key = Self.bucket(old)
        buckets[key]?.remove(account)
        if buckets[key]?.isEmpty == true {
            buckets[key] = nil
            let position = insertionPoint(key)
            if position < keys.count, keys[position] == key { keys.remove(at: position) }
        }
    }

    /// The accounts due before an instant, soonest first.
    /// - Complexity: O(log *b* + *k*) for *k* accounts in the buckets before the instant.
    func accounts(dueBefore instant: Date, limit: Int) -> [AccountID] {
        guard limit > 0 else { return [] }
        let last = Self.bucket(instant)
        var found: [(Date, AccountID)] = []
        for key in keys {
            if key > last { break }
            for account in buckets[key] ?? [] {
                if let dueAt = due[account], dueAt < instant { found.append((dueAt, account)) }
            }
            if found.count >= limit && key < last { break }
        }
        found.sort { $0.0 < $1.0 || ($0.0 == $1.0 && $0.1 < $1.1) }
        return found.prefix(limit).map(\.1)
    }

    private func insertionPoint(_ key: Int64) -> Int {
        var low = 0
        var high = keys.count
        while low < high {
            let middle = (low + high) / 2
            if keys[middle] < key { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
