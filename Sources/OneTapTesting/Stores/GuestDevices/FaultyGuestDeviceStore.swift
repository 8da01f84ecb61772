import OneTap

/// A ``GuestDeviceStore`` wrapper that fails on demand, through ``FaultyStore/faults``: a store that is down, an
/// update whose change is worked out but not written, one that lands but reports failure, a slow one.
public typealias FaultyGuestDeviceStore = FaultyStore<any GuestDeviceStore>

extension FaultyStore: GuestDeviceStore where Base == any GuestDeviceStore {

    /// Through the base store, or fails (``GuestDeviceStore/record(forKey:)``).
    /// - Parameter key: The key.
    /// - Returns: The record, or nil.
    /// - Throws: ``StoreError``: the base store's, or the injected one.
    public func record(forKey key: String) async throws -> GuestDeviceRecord? {
        try await faults.run(.record) { try await base.record(forKey: key) }
    }

    /// Through the base store, or fails (``GuestDeviceStore/update(key:_:)``); a lost update reads the
    /// record and works the change out on a copy, writing nothing.
    /// - Parameters:
    ///   - key: The key.
    ///   - body: The change.
    /// - Returns: The record after it.
    /// - Throws: ``StoreError``: the base store's, or the injected one.
    public func update(key: String, _ body: @Sendable (inout GuestDeviceRecord) -> Void) async throws -> GuestDeviceRecord {
        try await faults.run(.update) {
            try await base.update(key: key, body)
        } workingOut: {
            var copy = try await base.record(forKey: key) ?? GuestDeviceRecord()
            body(&copy)
        }
    }
}
