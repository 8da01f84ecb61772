#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Something the token manager did, for logs and counters. Events carry metadata only, never a token.
public enum TokenEvent: Hashable, Sendable, CustomStringConvertible, Encodable {
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
    /// The background refresher could not list the due accounts; it tries again at its next scan.
    case dueScanFailed(message: String)
    /// A refresh call gave no answer for this long (its time limit and the late-answer limit) and was
    /// cancelled: the carrier's refresh API hangs.
    case refreshAbandoned(account: AccountID, after: Duration)

    /// The account the event is about, or nil for an event about the vault as a whole.
    public var account: AccountID? {
        switch self {
        case .refreshed(let account, _, _, _), .refreshFailed(let account, _, _, _), .reloginRequired(let account, _),
            .stored(let account, _, _), .loggedOut(let account), .refreshedElsewhere(let account), .refreshAbandoned(let account, _):
            account
        case .dueScanFailed:
            nil
        }
    }

    /// The event's name: `refreshed`, `refresh-failed`, `relogin-required`, `stored`, `logged-out`,
    /// `refreshed-elsewhere`.
    public var name: String {
        switch self {
        case .refreshed: "refreshed"
        case .refreshFailed: "refresh-failed"
        case .reloginRequired: "relogin-required"
        case .stored: "stored"
        case .loggedOut: "logged-out"
        case .refreshedElsewhere: "refreshed-elsewhere"
        case .dueScanFailed: "due-scan-failed"
        case .refreshAbandoned: "refresh-abandoned"
        }
    }

    /// `refreshed account 42 (tianyi) until …`.
    public var description: String {
        switch self {
        case .refreshed(let account, let flow, let expiresAt, let rotated):
            "refreshed account \(account) (\(flow)) until \(expiresAt)\(rotated ? ", refresh token rotated" : "")"
        case .refreshFailed(let account, let message, let attempt, let retryAt):
            "refresh-failed account \(account) (attempt \(attempt)): \(message); retry at \(retryAt)"
        case .reloginRequired(let account, let message): "relogin-required account \(account): \(message)"
        case .stored(let account, let flow, let expiresAt): "stored account \(account) (\(flow)) until \(expiresAt)"
        case .loggedOut(let account): "logged-out account \(account)"
        case .refreshedElsewhere(let account): "refreshed-elsewhere account \(account)"
        case .dueScanFailed(let message): "due-scan-failed: \(message)"
        case .refreshAbandoned(let account, let after): "refresh-abandoned account \(account) after \(after.seconds) s"
        }
    }

    private enum CodingKeys: String, CodingKey { case event, account, flow, expiresAt, rotatedRefreshToken, message, attempt, retryAt, seconds }

    /// Encodes `{"event": name, "account": …, …}` with times in ISO 8601.
    /// - Parameter encoder: The encoder.
    /// - Throws: What the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .event)
        try container.encodeIfPresent(account, forKey: .account)
        switch self {
        case .refreshed(_, let flow, let expiresAt, let rotated):
            try container.encode(flow, forKey: .flow)
            try container.encode(expiresAt.iso8601, forKey: .expiresAt)
            try container.encode(rotated, forKey: .rotatedRefreshToken)
        case .refreshFailed(_, let message, let attempt, let retryAt):
            try container.encode(message, forKey: .message)
            try container.encode(attempt, forKey: .attempt)
            try container.encode(retryAt.iso8601, forKey: .retryAt)
        case .reloginRequired(_, let message):
            try container.encode(message, forKey: .message)
        case .stored(_, let flow, let expiresAt):
            try container.encode(flow, forKey: .flow)
            try container.encode(expiresAt.iso8601, forKey: .expiresAt)
        case .dueScanFailed(let message):
            try container.encode(message, forKey: .message)
        case .refreshAbandoned(_, let after):
            try container.encode(after.seconds, forKey: .seconds)
        case .loggedOut, .refreshedElsewhere:
            break
        }
    }
}
