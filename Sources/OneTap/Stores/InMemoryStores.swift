/// OneTap's stores in this process's memory: what a server with one instance (or a test) holds, with the
/// same calls as `PostgresStores`, so moving to PostgreSQL changes the line that makes the stores and
/// nothing else.
///
/// ```swift
/// let stores = InMemoryStores()
/// let logins = LoginServer(store: stores.loginSessionStore(), exchange: ExchangeGuard(provider: MyExchange(), ledger: stores.exchangeLedger()),
///                          sms: SMSCodeService(keys: keys, sender: MyGateway(), store: stores.smsStore()))
/// let sweeper = ExpiredRecordSweeper(stores: stores.sweptStores())   // memory stays bounded
/// ```
///
/// Each call answers the same store, as each `PostgresStores` call reaches the same tables: every service
/// handed a store of one kind shares its records. Thread-safe; what a process keeps is lost when it ends.
public final class InMemoryStores: Sendable {
    private let tokens = InMemoryTokenStore()
    private let loginSessions = InMemoryLoginSessionStore()
    private let appSessions = InMemoryAppSessionStore()
    private let sms = InMemorySMSStore()
    private let loginQuotas = InMemoryLoginQuotaStore()
    private let guestData = InMemoryGuestDataStore()
    private let accounts = InMemoryAccountDirectory()
    private let ledger = InMemoryExchangeLedger()

    /// Creates empty stores.
    public init() {}

    /// Access tokens by account (a `TokenVault`'s).
    /// - Returns: The store (the same one on every call).
    public func tokenStore() -> any TokenStore { tokens }
    /// Login sessions (a `LoginServer`'s).
    /// - Returns: The store (the same one on every call).
    public func loginSessionStore() -> any LoginSessionStore { loginSessions }
    /// App sessions (an `AppSessions`').
    /// - Returns: The store (the same one on every call).
    public func appSessionStore() -> any AppSessionStore { appSessions }
    /// SMS counters and codes (an `SMSCodeService`'s).
    /// - Returns: The store (the same one on every call).
    public func smsStore() -> any SMSStore { sms }
    /// Login quota counters (a `LoginQuotas`').
    /// - Returns: The store (the same one on every call).
    public func loginQuotaStore() -> any LoginQuotaStore { loginQuotas }
    /// Guest data and merge journals (a `GuestMerger`'s, and the app's own reads and writes of guest data).
    /// - Returns: The store (the same one on every call).
    public func guestDataStore() -> any GuestDataStore { guestData }
    /// Accounts by number (an `AccountLogin`'s).
    /// - Returns: The store (the same one on every call).
    public func accountDirectory() -> any AccountDirectory { accounts }
    /// Tokens exchanged, each remembered a day (an `ExchangeGuard`'s and a `NumberVerificationService`'s).
    /// - Returns: The store (the same one on every call).
    public func exchangeLedger() -> any ExchangeLedger { ledger }

    /// The stores whose records expire, for an ``ExpiredRecordSweeper``: login sessions, app sessions, SMS
    /// codes and counters, login quota counters, the exchange ledger and finished merges' journals.
    /// - Returns: The stores to sweep.
    public func sweptStores() -> [SweptStore] {
        [.loginSessions(loginSessions), .appSessions(appSessions), .sms(sms), .loginQuotas(loginQuotas), .exchangeLedger(ledger), .mergeJournals(guestData)]
    }
}

extension InMemoryStores {
    // A new in-memory store of each kind: the defaults of the services' `store:` parameters (an init's
    // default argument may name only what the module's interface shows, and these name no store type).

    /// A new in-memory token store (`TokenVault`'s default).
    @usableFromInline package static func newTokenStore() -> any TokenStore { InMemoryTokenStore() }
    /// A new in-memory login-session store (`LoginServer`'s default).
    @usableFromInline package static func newLoginSessionStore() -> any LoginSessionStore { InMemoryLoginSessionStore() }
    /// A new in-memory app-session store (`AppSessions`' default).
    @usableFromInline package static func newAppSessionStore() -> any AppSessionStore { InMemoryAppSessionStore() }
    /// A new in-memory SMS store (`SMSCodeService`'s default).
    @usableFromInline package static func newSMSStore() -> any SMSStore { InMemorySMSStore() }
    /// A new in-memory login-quota store (`LoginQuotas`' default).
    @usableFromInline package static func newLoginQuotaStore() -> any LoginQuotaStore { InMemoryLoginQuotaStore() }
    /// A new in-memory guest-data store (`GuestMerger`'s default).
    @usableFromInline package static func newGuestDataStore() -> any GuestDataStore { InMemoryGuestDataStore() }
    /// A new in-memory account directory (`AccountLogin`'s default).
    @usableFromInline package static func newAccountDirectory() -> any AccountDirectory { InMemoryAccountDirectory() }
    /// A new in-memory exchange ledger (`ExchangeGuard`'s and `NumberVerificationService`'s default).
    @usableFromInline package static func newExchangeLedger() -> any ExchangeLedger { InMemoryExchangeLedger() }
}
