import OneTap

/// The conformance suite of every store protocol, in one place: a store adapter (PostgreSQL, Redis,
/// DynamoDB…) runs the suite of the protocol it implements against itself. The closure's store type
/// picks the suite: one that makes `any TokenStore` runs the token store's, and so on.
///
/// ```swift
/// @Test func myStoreConforms() async throws {
///     try await StoreConformance.check { try await MyRedisTokenStore(namespace: UUID().uuidString) }
/// }
/// ```
///
/// Each property is checked on a fresh, empty store; every broken property is listed in the error thrown
/// (its description names the suite and each problem), not only the first. Instants are compared to the
/// millisecond, as every store keeps them.
public enum StoreConformance {
    /// Runs the ``TokenStore`` suite: round trips, compare-and-swap saves and removals, the accounts due
    /// for a refresh, the refresh lock, the record limit.
    /// - Parameter makeStore: Makes an empty store.
    /// - Throws: An error listing every property the store broke, or what `makeStore` throws.
    public static func check(_ makeStore: () async throws -> any TokenStore) async throws {
        try await TokenStoreConformance.check(makeStore)
    }

    /// Runs the ``LoginSessionStore`` suite: create once, load, compare-and-swap replace, expiry and removal.
    /// - Parameter makeStore: Makes an empty store.
    /// - Throws: An error listing every property the store broke, or what `makeStore` throws.
    public static func check(_ makeStore: () async throws -> any LoginSessionStore) async throws {
        try await LoginSessionStoreConformance.check(makeStore)
    }

    /// Runs the ``AppSessionStore`` suite: create once, load, compare-and-swap replace, an account's
    /// sessions, expiry and removal.
    /// - Parameter makeStore: Makes an empty store.
    /// - Throws: An error listing every property the store broke, or what `makeStore` throws.
    public static func check(_ makeStore: () async throws -> any AppSessionStore) async throws {
        try await AppSessionStoreConformance.check(makeStore)
    }

    /// Runs the ``AccountDirectory`` suite: find or create once per number, bind, the times kept.
    /// - Parameter makeDirectory: Makes an empty directory.
    /// - Throws: An error listing every property the directory broke, or what `makeDirectory` throws.
    public static func check(_ makeDirectory: () async throws -> any AccountDirectory) async throws {
        try await AccountDirectoryConformance.check(makeDirectory)
    }

    /// Runs the ``ExchangeLedger`` suite, directly and through an ``ExchangeGuard``: a token is sent to
    /// the carrier once, whatever races.
    /// - Parameters:
    ///   - retention: How long the ledgers `makeLedger` makes remember a token after its claim; one day,
    ///     the in-memory ledger's default.
    ///   - concurrency: How many claims race in the concurrency checks.
    ///   - makeLedger: Makes an empty ledger.
    /// - Throws: An error listing every property the ledger broke, or what `makeLedger` throws.
    public static func check(
        retention: Duration = .seconds(86_400), concurrency: Int = 100, _ makeLedger: () async throws -> any ExchangeLedger
    ) async throws {
        try await ExchangeLedgerConformance.check(retention: retention, concurrency: concurrency, makeLedger)
    }

    /// Runs the ``SMSStore`` suite, directly and through an ``SMSCodeService``: no lost update, concurrent
    /// sends never pass a limit, a code verifies once.
    /// - Parameters:
    ///   - concurrency: How many operations race in the concurrency checks.
    ///   - makeStore: Makes an empty store.
    /// - Throws: An error listing every property the store broke, or what `makeStore` throws.
    public static func check(concurrency: Int = 200, _ makeStore: () async throws -> any SMSStore) async throws {
        try await SMSStoreConformance.check(concurrency: concurrency, makeStore)
    }

    /// Runs the ``LoginQuotaStore`` suite, directly and through ``LoginQuotas``: no lost update,
    /// concurrent starts never pass a quota.
    /// - Parameters:
    ///   - concurrency: How many operations race in the concurrency checks.
    ///   - makeStore: Makes an empty store.
    /// - Throws: An error listing every property the store broke, or what `makeStore` throws.
    public static func check(concurrency: Int = 200, _ makeStore: () async throws -> any LoginQuotaStore) async throws {
        try await LoginQuotaStoreConformance.check(concurrency: concurrency, makeStore)
    }

    /// Runs the ``GuestDataStore`` suite, directly and through ``GuestMerger``: data and journals kept
    /// apart and whole, merges raced by many logins lose nothing.
    /// - Parameters:
    ///   - concurrency: How many operations race in the concurrency checks.
    ///   - makeStore: Makes an empty store.
    /// - Throws: An error listing every property the store broke, or what `makeStore` throws.
    public static func check(concurrency: Int = 50, _ makeStore: () async throws -> any GuestDataStore) async throws {
        try await GuestDataStoreConformance.check(concurrency: concurrency, makeStore)
    }
}
