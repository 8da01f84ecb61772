#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a store keeps per device.
public struct GuestDeviceRecord: Hashable, Sendable {
    /// How many times the device logged out: its guest id's generation.
    public var generation: Int
    /// The account logged in on the device, if one is.
    public var account: AccountID?
    /// How the device last logged in.
    public var lastLogin: LastLoginHint?

    /// A device never seen: generation 0, no account, no hint.
    public init() {
        generation = 0
        account = nil
        lastLogin = nil
    }
}

/// Where device records live (generation, account, last-login hint), keyed by an HMAC of the device id.
///
/// Keys are compared by their UTF-8 bytes in every store. OneTap ships ``InMemoryGuestDeviceStore``;
/// `OneTapPostgres` ships one on PostgreSQL; an adapter proves itself with `GuestDeviceStoreConformance`
/// from `OneTapTesting`.
public protocol GuestDeviceStore: Sendable {
    /// A device's record.
    /// - Parameter key: The record's key (``GuestID/recordKey(device:key:)``).
    /// - Returns: The record, or nil for a device never seen.
    /// - Throws: ``GuestDataStoreError``.
    func record(forKey key: String) async throws -> GuestDeviceRecord?

    /// Changes a device's record atomically (a device never seen starts from ``GuestDeviceRecord/init()``).
    /// - Parameters:
    ///   - key: The record's key.
    ///   - body: The change; pure and quick (a store may run it more than once).
    /// - Returns: The record after the change.
    /// - Throws: ``GuestDataStoreError``; nothing is written then.
    func update(key: String, _ body: @Sendable (inout GuestDeviceRecord) -> Void) async throws -> GuestDeviceRecord
}

/// Device records in this process's memory.
public final class InMemoryGuestDeviceStore: GuestDeviceStore {
    /// Keyed by the key's UTF-8 bytes: keys compare by their bytes, as in every store (Swift's `String`
    /// equality would take composed and decomposed `é` for one key).
    private let records = LockedValue<[[UInt8]: GuestDeviceRecord]>([:])

    /// Creates an empty store.
    public init() {}

    /// A device's record (``GuestDeviceStore/record(forKey:)``).
    /// - Parameter key: The key.
    /// - Returns: The record, or nil.
    public func record(forKey key: String) async throws -> GuestDeviceRecord? {
        records.withLock { $0[Array(key.utf8)] }
    }

    /// Changes a record atomically (``GuestDeviceStore/update(key:_:)``).
    /// - Parameters:
    ///   - key: The key.
    ///   - body: The change.
    /// - Returns: The record after it.
    public func update(key: String, _ body: @Sendable (inout GuestDeviceRecord) -> Void) async throws -> GuestDeviceRecord {
        records.withLock { records in
            var record = records[Array(key.utf8)] ?? GuestDeviceRecord()
            body(&record)
            records[Array(key.utf8)] = record
            return record
        }
    }
}
