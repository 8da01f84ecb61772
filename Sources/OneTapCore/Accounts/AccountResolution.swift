#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What an `AccountDirectory` answers a login by number: the number's entry after the login was
/// recorded, whether this call made it, and when the number had been verified before this login.
public struct AccountResolution: Hashable, Sendable, CustomStringConvertible {
    /// The entry, with this login recorded as its last verification.
    package let entry: AccountEntry
    /// Whether this call made the entry: a new account (find-or-create), or a new binding (bind).
    /// Of several calls racing for one new number exactly one answers true.
    package let created: Bool
    /// When the number had last been verified before this call: nil when the entry is new.
    package let previouslyVerifiedAt: Date?

    /// Creates a resolution (stores make them).
    /// - Parameters:
    ///   - entry: The entry after the call.
    ///   - created: Whether the call made it.
    ///   - previouslyVerifiedAt: The last verification before the call; nil for a new entry.
    package init(entry: AccountEntry, created: Bool, previouslyVerifiedAt: Date?) {
        self.entry = entry
        self.created = created
        self.previouslyVerifiedAt = previouslyVerifiedAt
    }

    /// `AccountResolution(created, AccountEntry(…))` or `AccountResolution(found, previously verified …, AccountEntry(…))`.
    public var description: String {
        let previous = previouslyVerifiedAt.map { ", previously verified \($0.iso8601)" } ?? ""
        return "AccountResolution(\(created ? "created" : "found")\(previous), \(entry))"
    }
}
