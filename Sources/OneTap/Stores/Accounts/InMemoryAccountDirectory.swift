#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The account directory in this process's memory: the default for tests and one instance, and the
/// model the conformance suite checks other directories against. Thread-safe; every operation is atomic.
package final class InMemoryAccountDirectory: AccountDirectory {
    private struct State {
        var entries: [PhoneNumber: AccountEntry] = [:]
        var accounts: Set<AccountID> = []
    }

    private let state = LockedValue(State())

    /// Creates an empty directory.
    package init() {}

    /// How many numbers are bound.
    package var count: Int { state.withLock { $0.entries.count } }

    /// The entry of a number (``AccountDirectory/account(for:)``).
    /// - Parameter number: The number.
    /// - Returns: Its entry, or nil.
    package func account(for number: PhoneNumber) async throws -> AccountEntry? {
        state.withLock { $0.entries[number] }
    }

    /// Finds or creates the number's account and records the verification
    /// (``AccountDirectory/findOrCreate(_:newID:at:)``).
    /// - Parameters:
    ///   - number: The verified number.
    ///   - newID: The id a new account gets.
    ///   - now: When the number was verified.
    /// - Returns: The entry, whether it was created, and the previous verification.
    /// - Throws: ``StoreError`` of kind `duplicate` when the number is new and `newID` is another
    ///   number's account.
    package func findOrCreate(_ number: PhoneNumber, newID: AccountID, at now: Date) async throws -> AccountResolution {
        try state.withLock { state throws(StoreError) in
            if let existing = state.entries[number] { return Self.verify(existing, at: now, in: &state) }
            guard !state.accounts.contains(newID) else {
                throw StoreError(.duplicate, subject: .number(number), message: "the new account id is another number's account; nothing was written")
            }
            let entry = AccountEntry(account: newID, number: number, createdAt: now, lastVerifiedAt: now)
            state.entries[number] = entry
            state.accounts.insert(entry.account)
            return AccountResolution(entry: entry, created: true, previouslyVerifiedAt: nil)
        }
    }

    /// Binds a number to an account and records the verification (``AccountDirectory/bind(_:to:at:)``).
    /// - Parameters:
    ///   - number: The verified number.
    ///   - account: The account.
    ///   - now: When the number was verified.
    /// - Returns: The entry, whether this call bound the number, and the previous verification.
    /// - Throws: ``StoreError`` of kind `conflict` when another account has the number.
    package func bind(_ number: PhoneNumber, to account: AccountID, at now: Date) async throws -> AccountResolution {
        try state.withLock { state throws(StoreError) in
            if let existing = state.entries[number] {
                guard existing.account == account else {
                    throw StoreError(.conflict, subject: .number(number), message: "the number belongs to another account; nothing was written")
                }
                return Self.verify(existing, at: now, in: &state)
            }
            let entry = AccountEntry(account: account, number: number, createdAt: now, lastVerifiedAt: now)
            state.entries[number] = entry
            state.accounts.insert(entry.account)
            return AccountResolution(entry: entry, created: true, previouslyVerifiedAt: nil)
        }
    }

    /// Records a verification of a stored entry: the last verification moves to `now` unless it is later.
    private static func verify(_ existing: AccountEntry, at now: Date, in state: inout State) -> AccountResolution {
        let entry = AccountEntry(
            account: existing.account, number: existing.number, createdAt: existing.createdAt, lastVerifiedAt: max(existing.lastVerifiedAt, now))
        state.entries[existing.number] = entry
        return AccountResolution(entry: entry, created: false, previouslyVerifiedAt: existing.lastVerifiedAt)
    }
}
