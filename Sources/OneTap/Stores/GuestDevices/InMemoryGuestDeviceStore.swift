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
