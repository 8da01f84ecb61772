/// A call of a store's protocol that a fault may strike (``Faults/inject(_:into:after:times:)``), named
/// as the protocol names it. One vocabulary for every store: a wrapper's calls are its protocol's
/// operations, so a fault injected into another protocol's operation never strikes.
public enum StoreOperation: Hashable, Sendable {
    /// ``TokenStore/load(_:)``, ``LoginSessionStore/load(_:)``, ``AppSessionStore/load(_:)``.
    case load
    /// ``TokenStore/save(_:replacing:dueAt:)``.
    case save
    /// ``TokenStore/remove(_:replacing:)``, ``GuestDataStore/remove(kind:of:)``.
    case remove
    /// ``TokenStore/accounts(dueBefore:limit:)``.
    case accounts
    /// ``LoginSessionStore/create(_:)``, ``AppSessionStore/create(_:)``.
    case create
    /// ``LoginSessionStore/replace(_:expecting:)``, ``AppSessionStore/replace(_:expecting:)``,
    /// ``GuestDataStore/replace(kind:of:expecting:with:)``.
    case replace
    /// ``AppSessionStore/sessions(of:)``.
    case sessions
    /// ``AppSessionStore/pendingMerges(after:limit:)``.
    case pendingMerges
    /// ``LoginSessionStore/removeExpired(before:limit:)``, ``SMSStore/removeExpired(before:limit:)``.
    case removeExpired
    /// ``ExchangeLedger/claim(_:for:at:)`` and ``ExchangeLedger/resend(_:for:at:)``.
    case claim
    /// ``ExchangeLedger/settle(_:_:at:)``.
    case settle
    /// ``ExchangeLedger/unknownExchanges(since:pendingClaimedBefore:after:limit:)``.
    case unknownExchanges
    /// ``SMSStore/update(counters:code:at:_:)``.
    case update
    /// ``GuestDataStore/data(of:)``.
    case data
    /// ``GuestDataStore/write(_:kind:of:)``.
    case write
    /// ``GuestDataStore/journal(for:)``.
    case journal
    /// ``GuestDataStore/createJournal(_:)``.
    case createJournal
    /// ``GuestDataStore/replaceJournal(_:expecting:)``.
    case replaceJournal
    /// ``AccountDirectory/account(for:)``.
    case account
    /// ``AccountDirectory/findOrCreate(_:newID:at:)``.
    case findOrCreate
    /// ``AccountDirectory/bind(_:to:at:)``.
    case bind
}
