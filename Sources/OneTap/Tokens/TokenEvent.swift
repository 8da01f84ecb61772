/// Something the token manager did, for logs and counters. Events carry metadata only, never a token.
package enum TokenEvent: Hashable, Sendable, CustomStringConvertible {
    /// A refresh succeeded and the new token was stored (exactly one per real refresh).
    case refreshed(account: AccountID, flow: LoginFlow, expiresAt: Date, rotatedRefreshToken: Bool)
    /// A refresh failed transiently; the stored token was kept and refreshing backs off until `retryAt`.
    case refreshFailed(account: AccountID, message: String, attempt: Int, retryAt: Date)
    /// The carrier refused the refresh token, or an expired token had none: the token was removed and the
    /// user must log in again.
    case reloginRequired(account: AccountID, message: String)
    /// A token was stored after a login.
    case stored(account: AccountID, flow: LoginFlow, expiresAt: Date)
    /// The account logged out and its token was removed.
    case loggedOut(account: AccountID)
    /// Another instance refreshed first; its token was used instead of refreshing again.
    case refreshedElsewhere(account: AccountID)
    /// A refresh's token could not be written (the store failed): it is served from this vault's memory
    /// and written at the account's next refresh, before any carrier call.
    case notStored(account: AccountID, message: String)
    /// The background refresher could not list the due accounts; it tries again at its next scan.
    case dueScanFailed(message: String)
    /// A refresh call gave no answer for this long (its time limit and the late-answer limit) and was
    /// cancelled: the carrier's refresh API hangs.
    case refreshAbandoned(account: AccountID, after: Duration)

    /// The account the event is about, or nil for an event about the vault as a whole.
    package var account: AccountID? {
        switch self {
        case .refreshed(let account, _, _, _), .refreshFailed(let account, _, _, _), .reloginRequired(let account, _),
            .stored(let account, _, _), .loggedOut(let account), .refreshedElsewhere(let account), .refreshAbandoned(let account, _),
            .notStored(let account, _):
            account
        case .dueScanFailed:
            nil
        }
    }

    /// The event's name: `refreshed`, `refresh-failed`, `relogin-required`, `stored`, `logged-out`,
    /// `refreshed-elsewhere`, `not-stored`, `due-scan-failed`, `refresh-abandoned`.
    package var name: String {
        switch self {
        case .refreshed: "refreshed"
        case .refreshFailed: "refresh-failed"
        case .reloginRequired: "relogin-required"
        case .stored: "stored"
        case .loggedOut: "logged-out"
        case .refreshedElsewhere: "refreshed-elsewhere"
        case .notStored: "not-stored"
        case .dueScanFailed: "due-scan-failed"
        case .refreshAbandoned: "refresh-abandoned"
        }
    }

    /// `refreshed account 42 (tianyi) until …`.
    package var description: String {
        switch self {
        case .refreshed(let account, let flow, let expiresAt, let rotated):
            "refreshed account \(account) (\(flow)) until \(expiresAt)\(rotated ? ", refresh token rotated" : "")"
        case .refreshFailed(let account, let message, let attempt, let retryAt):
            "refresh-failed account \(account) (attempt \(attempt)): \(message); retry at \(retryAt)"
        case .reloginRequired(let account, let message): "relogin-required account \(account): \(message)"
        case .stored(let account, let flow, let expiresAt): "stored account \(account) (\(flow)) until \(expiresAt)"
        case .loggedOut(let account): "logged-out account \(account)"
        case .refreshedElsewhere(let account): "refreshed-elsewhere account \(account)"
        case .notStored(let account, let message): "not-stored account \(account): \(message)"
        case .dueScanFailed(let message): "due-scan-failed: \(message)"
        case .refreshAbandoned(let account, let after): "refresh-abandoned account \(account) after \(after.seconds) s"
        }
    }

    /// Writes the event's members into the event line being written: `event`, `account`, then its own
    /// (instants as ISO 8601).
    /// - Parameter writer: The writer, inside an object.
    /// - Throws: ``JSONWriteError`` never in practice (a duration's seconds are finite).
    package func writeMembers(to writer: inout JSONWriter) throws(JSONWriteError) {
        writer.member("event", name)
        writer.member("account", account?.inEvents)
        switch self {
        case .refreshed(_, let flow, let expiresAt, let rotated):
            writer.member("flow", flow.rawValue)
            writer.member("expiresAt", expiresAt.iso8601)
            writer.member("rotatedRefreshToken", rotated)
        case .refreshFailed(_, let message, let attempt, let retryAt):
            writer.member("message", PhoneNumber.maskingNumbers(in: message))
            writer.member("attempt", attempt)
            writer.member("retryAt", retryAt.iso8601)
        case .reloginRequired(_, let message):
            writer.member("message", PhoneNumber.maskingNumbers(in: message))
        case .stored(_, let flow, let expiresAt):
            writer.member("flow", flow.rawValue)
            writer.member("expiresAt", expiresAt.iso8601)
        case .dueScanFailed(let message), .notStored(_, let message):
            writer.member("message", PhoneNumber.maskingNumbers(in: message))
        case .refreshAbandoned(_, let after):
            writer.key("seconds")
            try writer.double(after.seconds)
        case .loggedOut, .refreshedElsewhere:
            break
        }
    }
}
