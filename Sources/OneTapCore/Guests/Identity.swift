/// Who is using the app: a guest, or a logged-in account.
public enum Identity: Hashable, Sendable, CustomStringConvertible {
    /// A guest (no login yet).
    case guest(GuestID)
    /// A logged-in account.
    case account(AccountID)

    /// Whether this is a guest.
    package var isGuest: Bool {
        if case .guest = self { return true }
        return false
    }

    /// `guest Ab…` or `account 42`.
    public var description: String {
        switch self {
        case .guest(let id): "guest \(id)"
        case .account(let id): "account \(id)"
        }
    }
}
