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
    /// - Throws: ``StoreError``.
    func record(forKey key: String) async throws -> GuestDeviceRecord?

    /// Changes a device's record atomically (a device never seen starts from ``GuestDeviceRecord/init()``).
    /// - Parameters:
    ///   - key: The record's key.
    ///   - body: The change; pure and quick (a store may run it more than once).
    /// - Returns: The record after the change.
    /// - Throws: ``StoreError``; nothing is written then.
    func update(key: String, _ body: @Sendable (inout GuestDeviceRecord) -> Void) async throws -> GuestDeviceRecord
}
