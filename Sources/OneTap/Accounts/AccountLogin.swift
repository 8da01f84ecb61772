#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The step after a verified login that seed 002 describes (本机手机号未注册过帐号，则免密登录后自动注册、登录、
/// 绑定本机手机号；已注册过则直接登录该帐号): the verified number's account is found, or created and bound to
/// the number, and the login is recorded as the number's last verification. A number last verified longer
/// ago than `dormantAfter` is flagged, and an event says so: a number unused that long may have been
/// reissued to someone else (二次号), who now holds its one-tap login.
///
/// ```swift
/// let accounts = AccountLogin(directory: stores.accountDirectory())
/// // after LoginServer's session ended in success with `verified`:
/// let outcome = try await accounts.resolve(verified)
/// if outcome.dormant { /* ask for a second factor before handing over outcome.account */ }
/// ```
public struct AccountLogin: Sendable {
    private let directory: any AccountDirectory
    private let newAccountID: @Sendable () -> AccountID
    private let dormantAfter: Duration
    private let clock: any WallClock
    private let events: any EventSink

    /// How many ids a login draws when the directory says a new id is already an account's, before it
    /// gives up (a collision of 128 random bits means a broken generator).
    static let draws = 3

    /// Creates the step.
    /// - Parameters:
    ///   - directory: Where numbers' accounts live; in memory by default (share one across instances).
    ///   - newAccountID: Makes the id of an account created by number; by default `acct_` and 128 bits
    ///     from the system's cryptographically secure generator as 22 URL-safe characters. Each id it makes
    ///     must be new (never a counter or a time): a directory refuses an id that is already another number's
    ///     account (`duplicate`), but PostgreSQL's checks it without a lock, so two first logins of different
    ///     numbers given one id at the same moment could both take it.
    ///   - dormantAfter: How long a number may go unverified before a login with it is flagged dormant; 80 days, under
    ///     the 90 days' freeze before a cancelled number is reissued that public guides commonly cite (no carrier
    ///     document states it: keep it under your carriers' figure). A number its owner cancelled right after a last
    ///     login here is reissued past it, so its new holder is flagged (at 180 days it was not). Zero flags every
    ///     login of a known number.
    ///   - clock: The time source.
    ///   - events: Receives its events (area `account`); standard error by default.
    public init(
        directory: any AccountDirectory = InMemoryStores.newAccountDirectory(), newAccountID: @escaping @Sendable () -> AccountID = AccountLogin.randomAccountID,
        dormantAfter: Duration = .seconds(80 * 86_400), clock: any WallClock = SystemClock(), events: any EventSink = StandardErrorEventSink.shared
    ) {
        self.directory = directory
        self.newAccountID = newAccountID
        self.dormantAfter = dormantAfter
        self.clock = clock
        self.events = events
    }

    /// A new account id: `acct_` and 128 bits from the system's cryptographically secure generator, as 22
    /// URL-safe base64 characters (`acct_q3Vn0cS2Qb-7rZ1eXo9y4w`).
    /// - Returns: The id.
    @usableFromInline package static func randomAccountID() -> AccountID {
        AccountID.generated(from: systemRandomBytes(16))
    }

    /// Finds or creates the account of a verified login's number, and records the verification.
    ///
    /// A login whose exchange named an account (``VerifiedLogin/account``) binds the number to that
    /// account instead; the number must not be another account's.
    ///
    /// A number last verified longer ago than `dormantAfter` may have been reissued to someone else
    /// (二次号): the answer is `dormant`, the verification is **not** recorded, and the number stays
    /// dormant for every later login until a login's `secondFactor` passes. OneTap calls it with the account the
    /// number belongs to, and only then: it checks what the user gave in this request against that account's own
    /// second factor (its password, an email code, a support call). So logging in twice does not turn a dormant
    /// number into a fresh one, and a check passed for another account (the caller's own, a guest's) cannot
    /// confirm it. An SMS code or a one-tap login of the same number is no second factor: the number's new holder
    /// receives both.
    /// - Parameters:
    ///   - verified: Who logged in: the session's verified number.
    ///   - secondFactor: Whether the user passed the second factor of the account it is handed, checked now;
    ///     called only for a dormant number, never otherwise. Nil (the default): a dormant number stays dormant.
    ///     OneTap does not count its failures: limit the check per account as your own password login does, or the
    ///     number's new holder may guess at it (each try a request; a login is answered again for 11 minutes).
    /// - Returns: The account, whether it was just created, when the number was verified before, and
    ///   whether it is `dormant` (then hand out no credentials yet).
    /// - Throws: ``StoreError`` from the directory: `conflict` when the login named an account and the
    ///   number is another's, `duplicate` when every drawn id was already an account's, `io`; or what
    ///   `secondFactor` threw. Nothing is written then, and no event is emitted.
    public func resolve(_ verified: VerifiedLogin, secondFactor: (@Sendable (AccountID) async throws -> Bool)? = nil) async throws -> AccountOutcome {
        let now = clock.now()
        let number = verified.phoneNumber
        var confirmed: AccountID?
        if let entry = try await directory.account(for: number) {
            let standing = AccountOutcome(
                AccountResolution(entry: entry, created: false, previouslyVerifiedAt: entry.lastVerifiedAt), created: false, at: now,
                dormantAfter: dormantAfter)
            if standing.dormant {
                guard let secondFactor, try await secondFactor(entry.account) else {
                    events.receive(
                        OneTapEvent(at: now, .account(.dormantNumber(standing.account, maskedNumber: number.masked, previouslyVerifiedAt: entry.lastVerifiedAt))))
                    return standing
                }
                confirmed = entry.account
            }
        }
        let outcome: AccountOutcome
        if let account = verified.account {
            let resolution = try await directory.bind(number, to: account, at: now)
            outcome = AccountOutcome(resolution, created: false, at: now, dormantAfter: dormantAfter, secondFactorPassedFor: confirmed)
        } else {
            var draw = 1
            while true {
                do {
                    let resolution = try await directory.findOrCreate(number, newID: newAccountID(), at: now)
                    outcome = AccountOutcome(resolution, created: resolution.created, at: now, dormantAfter: dormantAfter, secondFactorPassedFor: confirmed)
                    break
                } catch let error as StoreError where error.kind == .duplicate && draw < Self.draws {
                    draw += 1
                }
            }
        }
        if outcome.lapsed, let previous = outcome.previouslyVerifiedAt {
            // Confirmed by the account's own second factor. Unconfirmed only when the directory's read above was
            // older than this write (a directory that moves numbers to other accounts, or reads from a replica,
            // which ``AccountDirectory`` rules out): flagged all the same, though this write recorded the login.
            let masked = number.masked
            events.receive(
                OneTapEvent(at: now, .account(outcome.dormant
                    ? .dormantNumber(outcome.account, maskedNumber: masked, previouslyVerifiedAt: previous)
                    : .dormantNumberConfirmed(outcome.account, maskedNumber: masked, previouslyVerifiedAt: previous))))
        }
        return outcome
    }
}
