#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a login by number comes to (seed 002: a number never seen gets a new account, a known one logs
/// in to its account): the account, whether it was just created, when the number had been verified
/// before, and whether it had lain dormant so long that it may since have been reissued to someone else
/// (二次号: carriers recycle numbers left unused, and the new holder passes a one-tap login).
public struct AccountOutcome: Hashable, Sendable, CustomStringConvertible {
    /// The account the login is for.
    public let account: AccountID
    /// The verified number.
    public let number: PhoneNumber
    /// Whether this login created the account.
    public let created: Bool
    /// When the number had last been verified before this login: nil for a new account or binding.
    public let previouslyVerifiedAt: Date?
    /// Whether the number had last been verified longer ago than the dormancy limit and no second factor of its
    /// account confirmed this login: the holder may be a new subscriber of a recycled number,
    /// not the account's owner. Hand out no credentials while it is true; ask for the account's own second
    /// factor (never an SMS code or a one-tap login of the same number: the new holder receives both).
    public let dormant: Bool
    /// Whether the number had last been verified longer ago than the dormancy limit, confirmed or not.
    package let lapsed: Bool

    /// Decides a login's outcome from the directory's answer.
    /// - Parameters:
    ///   - resolution: What the directory answered.
    ///   - created: Whether the login created the account (not so for a number bound to an account the
    ///     login named).
    ///   - now: When the login was verified.
    ///   - dormantAfter: How long a number may go unverified before a login with it is flagged.
    ///   - secondFactorPassedFor: The account the server's own second factor passed for, if any: a login of
    ///     a dormant number of that very account is not flagged.
    package init(_ resolution: AccountResolution, created: Bool, at now: Date, dormantAfter: Duration, secondFactorPassedFor checked: AccountID? = nil) {
        account = resolution.entry.account
        number = resolution.entry.number
        self.created = created
        previouslyVerifiedAt = resolution.previouslyVerifiedAt
        lapsed = resolution.previouslyVerifiedAt.map { now.timeIntervalSince($0) > dormantAfter.seconds } ?? false
        dormant = lapsed && checked != resolution.entry.account
    }

    /// `AccountOutcome(account 42, 138****8000, found, previously verified …, dormant)`.
    public var description: String {
        let previous = previouslyVerifiedAt.map { ", previously verified \($0.iso8601)" } ?? ""
        return "AccountOutcome(account \(account), \(number.masked), \(created ? "created" : "found")\(previous)\(dormant ? ", dormant" : ""))"
    }
}
