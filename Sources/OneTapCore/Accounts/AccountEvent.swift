#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What happened in the account directory, for the event log: the masked number only, never the whole.
package enum AccountEvent: Hashable, Sendable, CustomStringConvertible {
    /// A login verified a number that had not been verified for longer than the dormancy limit: it may
    /// have been reissued to someone else (二次号). The account, the masked number, and when the number
    /// had last been verified.
    case dormantNumber(AccountID, maskedNumber: String, previouslyVerifiedAt: Date)
    /// A login of a dormant number was recorded because the server's own second factor passed for the account
    /// the number belongs to: the account is handed over. The account, the masked number, and when the number
    /// had last been verified before.
    case dormantNumberConfirmed(AccountID, maskedNumber: String, previouslyVerifiedAt: Date)

    /// `dormant-number` or `dormant-number-confirmed`.
    package var name: String {
        switch self {
        case .dormantNumber: "dormant-number"
        case .dormantNumberConfirmed: "dormant-number-confirmed"
        }
    }

    /// `dormant-number account 42 138****8000 (last verified 2026-06-01T00:00:00.000Z)`.
    package var description: String {
        switch self {
        case .dormantNumber(let account, let masked, let previous), .dormantNumberConfirmed(let account, let masked, let previous):
            "\(name) account \(account) \(PhoneNumber.maskingNumbers(in: masked)) (last verified \(previous.iso8601))"
        }
    }

    /// Writes the event's members after the schema's `v`, `at` and `area`: `event`, `account`, `number`
    /// (masked, and masked again should a whole number have been given), `previouslyVerifiedAt` (ISO 8601).
    package func writeMembers(to writer: inout JSONWriter) {
        writer.member("event", name)
        switch self {
        case .dormantNumber(let account, let masked, let previous), .dormantNumberConfirmed(let account, let masked, let previous):
            writer.member("account", account.inEvents)
            writer.member("number", PhoneNumber.maskingNumbers(in: masked))
            writer.member("previouslyVerifiedAt", previous.iso8601)
        }
    }
}
