#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Which account each verified phone number belongs to, shared by every server instance: what seed 002
/// asks of the server after a one-tap login (本机手机号未注册过帐号，则免密登录后自动注册、登录、绑定本机手机号；
/// 已注册过则直接登录该帐号: a number never seen gets a new account bound to it, a known number logs in to
/// its account). One number, one account: a number belongs to at most one account, and two first logins
/// of one number at once create one account. Each login records when the number was last verified, so a
/// number that lay dormant (and may have been reissued) can be told.
///
/// Shaped for one SQL row per number with a unique key on the number (`INSERT … ON CONFLICT (number) DO
/// UPDATE … RETURNING …`). Instants are kept to the millisecond.
///
/// OneTap ships ``InMemoryAccountDirectory``; `OneTapPostgres` ships one on PostgreSQL; an adapter for
/// another store proves itself with `AccountDirectoryConformance` from `OneTapTesting`.
public protocol AccountDirectory: Sendable {
    /// The entry of a number, as the directory's last write left it (never a replica's or a cache's older copy:
    /// ``AccountLogin`` decides from it whether a login of a dormant number may be recorded).
    /// - Parameter number: The number.
    /// - Returns: Its entry, or nil when no account has it.
    /// - Throws: ``StoreError`` of kind `io` or `corrupt`.
    func account(for number: PhoneNumber) async throws -> AccountEntry?

    /// Finds the number's account, or creates one for it, atomically, and records the login as the
    /// number's last verification.
    ///
    /// A number no account has gets a new entry: account `newID`, created and verified at `now`; the
    /// answer says `created` with no previous verification. A number an account has keeps its account;
    /// its last verification becomes `now` (or stays, if later than `now`), and the answer carries the
    /// one before. Of any number of calls racing for one new number, exactly one creates; the others
    /// answer the winner's account, not created.
    /// - Parameters:
    ///   - number: The verified number.
    ///   - newID: The id a new account gets (drawn by the caller; used only when the number is new).
    ///   - now: When the number was verified.
    /// - Returns: The entry, whether this call created it, and the previous verification.
    /// - Throws: ``StoreError`` of kind `duplicate` when the number is new and `newID` is already
    ///   another number's account (nothing is written: draw another id), or `io`, `corrupt`.
    func findOrCreate(_ number: PhoneNumber, newID: AccountID, at now: Date) async throws -> AccountResolution

    /// Binds a number to an existing account (a logged-in account adds its verified number), and records
    /// the verification. Binding a number to the account that has it already is no change but the
    /// verification (idempotent).
    /// - Parameters:
    ///   - number: The verified number.
    ///   - account: The account.
    ///   - now: When the number was verified.
    /// - Returns: The entry, whether this call bound the number, and the previous verification.
    /// - Throws: ``StoreError`` of kind `conflict` when another account has the number (nothing is
    ///   written), or `io`, `corrupt`.
    func bind(_ number: PhoneNumber, to account: AccountID, at now: Date) async throws -> AccountResolution
}
