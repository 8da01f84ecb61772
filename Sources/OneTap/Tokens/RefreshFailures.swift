/// The back-off book: per account, the transient refresh failures in a row and when refreshing may be
/// tried again, on the schedule of a ``RefreshBackoff``. A value the ``TokenVault`` actor owns.
///
/// States per account and their transitions:
/// - **clear** → **backing off** (attempt 1, retry at now + the first delay) on a transient failure: the
///   carrier's, an answer that is already expired, or the time limit passing with no answer.
/// - backing off (attempt n) → backing off (attempt n + 1, the delay doubled up to the cap) on the next
///   transient failure (only after the retry time: until then nothing refreshes the account).
/// - backing off → **clear** on a successful refresh, a token stored after a login, a logout, and a
///   token removed because it can no longer be refreshed (a final failure, or no refresh token).
/// - While now is before the retry time (and not before the failure was recorded: a clock set back ends the wait): a
///   caller on a stale token starts no refresh, a caller on an expired one hears `backing-off`, and the background scan
///   skips the account (a token kept in memory after a failed write is still written once the store is back). After
///   it, the entry stays (it counts the attempts) until one of the above clears it.
///
/// A final failure of an expired token is not kept here: the refresh removes the token and the user logs in
/// again. One of a token that still has time is: it backs off until the token expires (``record(_:until:at:)``).
/// Once the book holds more than ``pruneThreshold`` accounts, entries whose retry time passed more than the
/// back-off's cap ago (an account nothing refreshed since: it went quiet) are dropped when the next failure is
/// recorded, so it stays bounded while an account retried within the cap keeps its count (a carrier outage backs
/// off as far as the cap, whatever the book's size); a prune that leaves the book large waits until it has doubled
/// (amortized O(1) a failure, however many accounts back off at once).
package struct RefreshFailures: Sendable {
    /// One account's failures in a row.
    package struct Entry: Hashable, Sendable {
        /// Transient failures in a row, from 1.
        package var attempts: Int
        /// When refreshing may be tried again.
        package var retryAt: Date
        /// When the failure was recorded: a clock set back before it makes the entry no back-off (an attacker's read: a
        /// failure while the clock ran a year ahead held the account for the year once the clock was put right).
        package var recordedAt: Date
    }

    /// The book's size above which passed entries are dropped.
    package static let pruneThreshold = 10_000

    /// The delays.
    package let backoff: RefreshBackoff
    private var entries: [AccountID: Entry] = [:]
    /// How many times the whole book was filtered for passed entries (the tests').
    package private(set) var prunes = 0
    /// The size above which the next failure prunes: the threshold, or twice what the last prune left.
    private var pruneAbove = Self.pruneThreshold

    /// An empty book.
    /// - Parameter backoff: The delays after failures.
    package init(backoff: RefreshBackoff) {
        self.backoff = backoff
    }

    /// How many accounts have failures on record.
    package var count: Int { entries.count }

    /// The account's failures on record, backing off or not.
    /// - Parameter account: The account.
    /// - Returns: The entry, or nil when the account is clear.
    package func entry(for account: AccountID) -> Entry? {
        entries[account]
    }

    /// The account's entry while it is backing off.
    /// - Parameters:
    ///   - account: The account.
    ///   - now: The instant.
    /// - Returns: The entry when `now` is before its retry time and not before the failure was recorded (a clock set
    ///   back), else nil.
    package func backingOff(_ account: AccountID, at now: Date) -> Entry? {
        entries[account].flatMap { now < $0.retryAt && now >= $0.recordedAt ? $0 : nil }
    }

    /// Whether the account is backing off at `now`.
    /// - Parameters:
    ///   - account: The account.
    ///   - now: The instant.
    /// - Returns: True when `now` is before its retry time and not before the failure was recorded.
    package func isBackingOff(_ account: AccountID, at now: Date) -> Bool {
        backingOff(account, at: now) != nil
    }

    /// Counts a transient failure and schedules the next try.
    /// - Parameters:
    ///   - account: The account.
    ///   - now: When it failed.
    /// - Returns: The new entry: its attempt number and retry time.
    package mutating func record(_ account: AccountID, at now: Date) -> Entry {
        let attempts = (entries[account]?.attempts ?? 0) + 1
        return record(account, until: now.addingTimeInterval(backoff.delay(afterFailure: attempts)), at: now)
    }

    /// Counts a failure whose next try waits until `retryAt`: the back-off's delay (``record(_:at:)``), or for a
    /// refused refresh of a token that still has time, the token's expiry.
    /// - Parameters:
    ///   - account: The account.
    ///   - retryAt: When refreshing may be tried again.
    ///   - now: When it was refused.
    /// - Returns: The new entry.
    package mutating func record(_ account: AccountID, until retryAt: Date, at now: Date) -> Entry {
        let entry = Entry(attempts: (entries[account]?.attempts ?? 0) + 1, retryAt: max(retryAt, now), recordedAt: now)
        if entries.count > pruneAbove {
            prunes += 1
            let forgotten = now.addingTimeInterval(-backoff.cap.seconds)
            entries = entries.filter { $0.value.retryAt > forgotten }
            pruneAbove = max(Self.pruneThreshold, 2 * entries.count)
        }
        entries[account] = entry
        return entry
    }

    /// Forgets the account's failures.
    /// - Parameter account: The account.
    package mutating func clear(_ account: AccountID) {
        entries[account] = nil
    }
}
