#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import OneTap

/// An ``AccountDirectory`` wrapper that fails on demand, through ``FaultyStore/faults``: a directory that is
/// down, a write that lands but reports failure, a slow directory; and counts the calls that reach it.
///
/// ```swift
/// let directory = FaultyAccountDirectory(InMemoryAccountDirectory())
/// directory.faults.inject(.refuse(.io, "the database is down"), into: [.findOrCreate])
/// ```
public typealias FaultyAccountDirectory = FaultyStore<any AccountDirectory>

extension FaultyStore: AccountDirectory where Base == any AccountDirectory {
    /// Through the base directory, or fails (``AccountDirectory/account(for:)``).
    /// - Parameter number: The number.
    /// - Returns: Its entry, or nil.
    /// - Throws: ``StoreError``: the base directory's, or the injected one.
    public func account(for number: PhoneNumber) async throws -> AccountEntry? {
        try await faults.run(.account, subject: .number(number)) { try await base.account(for: number) }
    }

    /// Through the base directory, or fails (``AccountDirectory/findOrCreate(_:newID:at:)``).
    /// - Parameters:
    ///   - number: The verified number.
    ///   - newID: The id a new account gets.
    ///   - now: When the number was verified.
    /// - Returns: The entry, whether it was created, and the previous verification.
    /// - Throws: ``StoreError``: the base directory's, or the injected one.
    public func findOrCreate(_ number: PhoneNumber, newID: AccountID, at now: Date) async throws -> AccountResolution {
        try await faults.run(.findOrCreate, subject: .number(number)) { try await base.findOrCreate(number, newID: newID, at: now) }
    }

    /// Through the base directory, or fails (``AccountDirectory/bind(_:to:at:)``).
    /// - Parameters:
    ///   - number: The verified number.
    ///   - account: The account.
    ///   - now: When the number was verified.
    /// - Returns: The entry, whether this call bound the number, and the previous verification.
    /// - Throws: ``StoreError``: the base directory's, or the injected one.
    public func bind(_ number: PhoneNumber, to account: AccountID, at now: Date) async throws -> AccountResolution {
        try await faults.run(.bind, subject: .number(number)) { try await base.bind(number, to: account, at: now) }
    }
}
