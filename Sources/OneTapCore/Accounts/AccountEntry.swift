#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One number's entry in the account directory: the account it belongs to, since when, and when the
/// number was last verified (a one-tap or SMS login proved the device holds it). What an
/// `AccountDirectory` stores and answers; its description shows the masked number only.
public struct AccountEntry: Hashable, Sendable, CustomStringConvertible {
    /// The account the number belongs to.
    public let account: AccountID
    /// The number.
    public let number: PhoneNumber
    /// When the number was bound to the account: for an account created by number, when it was created.
    public let createdAt: Date
    /// When a login last verified the number.
    public let lastVerifiedAt: Date

    /// Creates an entry (stores make them; an integrator reads them).
    /// - Parameters:
    ///   - account: The account.
    ///   - number: The number.
    ///   - createdAt: When the number was bound.
    ///   - lastVerifiedAt: When it was last verified.
    package init(account: AccountID, number: PhoneNumber, createdAt: Date, lastVerifiedAt: Date) {
        self.account = account
        self.number = number
        self.createdAt = createdAt
        self.lastVerifiedAt = lastVerifiedAt
    }

    /// `AccountEntry(account 42, 138****8000, created 2026-12-01T00:00:00.000Z, last verified …)`.
    public var description: String {
        "AccountEntry(account \(account), \(number.masked), created \(createdAt.iso8601), last verified \(lastVerifiedAt.iso8601))"
    }
}
