/// A store whose expired records an ``ExpiredRecordSweeper`` removes: a name for its events and the
/// store's own removal of expired records, in batches.
///
/// ```swift
/// let sweeper = ExpiredRecordSweeper(stores: stores.sweptStores())   // InMemoryStores or PostgresStores
/// ```
/// A store of your own is named with ``init(name:removeExpired:)``.
public struct SweptStore: Sendable {
    /// The name its events carry (`login-sessions`, `sms`, …): never a secret.
    package let name: String
    /// Removes records that expired before an instant, at most a limit; returns how many.
    package let removeExpired: @Sendable (_ before: Date, _ limit: Int) async throws -> Int

    /// A store of your own.
    /// - Parameters:
    ///   - name: The name the sweep's events (area `store`) carry (it is written to the event log: no secret).
    ///   - removeExpired: Removes records that expired before the instant, at most the limit, and returns
    ///     how many it removed (fewer than the limit when no more have expired); throws when the store fails
    ///     (the error's text, its first 200 characters with numbers masked, goes to the event log: it must
    ///     hold no secret, as a ``StoreError`` holds none).
    public init(name: String, removeExpired: @escaping @Sendable (_ before: Date, _ limit: Int) async throws -> Int) {
        self.name = name
        self.removeExpired = removeExpired
    }

    /// Login sessions (``LoginSessionStore/removeExpired(before:limit:)``), named `login-sessions`: each kept
    /// `LoginSessionMachine.exchangeAnswerGrace` (a minute) past its end, while its exchange's answer is still
    /// taken and its success still told.
    /// - Parameter store: The store.
    /// - Returns: The store to sweep.
    package static func loginSessions(_ store: any LoginSessionStore) -> SweptStore {
        SweptStore(name: "login-sessions") {
            try await store.removeExpired(before: $0.addingTimeInterval(-LoginSession.keptPastExpiry), limit: $1)
        }
    }

    /// App sessions (``AppSessionStore/removeExpired(before:limit:)``), named `app-sessions`.
    /// - Parameter store: The store.
    /// - Returns: The store to sweep.
    package static func appSessions(_ store: any AppSessionStore) -> SweptStore {
        SweptStore(name: "app-sessions") { try await store.removeExpired(before: $0, limit: $1) }
    }

    /// SMS codes and counters (``SMSStore/removeExpired(before:limit:)``), named `sms`.
    /// - Parameter store: The store.
    /// - Returns: The store to sweep.
    package static func sms(_ store: any SMSStore) -> SweptStore {
        SweptStore(name: "sms") { try await store.removeExpired(before: $0, limit: $1) }
    }

    /// Login quota counters (``LoginQuotaStore/removeExpired(before:limit:)``), named `login-quotas`.
    /// - Parameter store: The store.
    /// - Returns: The store to sweep.
    package static func loginQuotas(_ store: any LoginQuotaStore) -> SweptStore {
        SweptStore(name: "login-quotas") { try await store.removeExpired(before: $0, limit: $1) }
    }

    /// The in-memory exchange ledger (``InMemoryExchangeLedger/removeExpired(before:limit:)``: the tokens
    /// claimed longer ago than its retention), named `exchange-ledger`.
    /// - Parameter ledger: The ledger.
    /// - Returns: The store to sweep.
    package static func exchangeLedger(_ ledger: InMemoryExchangeLedger) -> SweptStore {
        SweptStore(name: "exchange-ledger") { try await ledger.removeExpired(before: $0, limit: $1) }
    }

    /// The in-memory guest-data store's journals of finished merges
    /// (``InMemoryGuestDataStore/removeFinishedJournals(before:limit:)``), named `merge-journals` as the
    /// PostgreSQL stores name theirs.
    /// - Parameter store: The store.
    /// - Returns: The store to sweep.
    package static func mergeJournals(_ store: InMemoryGuestDataStore) -> SweptStore {
        SweptStore(name: "merge-journals") { store.removeFinishedJournals(before: $0, limit: $1) }
    }
}
