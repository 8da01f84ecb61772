import OneTap

/// The properties every ``GuestDeviceStore`` must have, as a suite an adapter runs against itself:
///
/// ```swift
/// @Test func myStoreConforms() async throws {
///     try await GuestDeviceStoreConformance.check { try await MyGuestDeviceStore(namespace: UUID().uuidString) }
/// }
/// ```
/// It checks that a device never seen has no record, that an update starts from an empty record and
/// reads back whole (generation, account, last-login hint), that keys are kept apart and compared by
/// their bytes, and that racing updates of one device are applied one after another (none is lost).
public enum GuestDeviceStoreConformance {
    /// Runs every check, each on a fresh, empty store.
    /// - Parameters:
    ///   - concurrency: How many updates of one device race in the concurrency check.
    ///   - makeStore: Makes an empty store.
    /// - Throws: ``ConformanceFailure`` listing every property the store broke, or what `makeStore` throws.
    public static func check(concurrency: Int = 50, _ makeStore: () async throws -> any GuestDeviceStore) async throws {
        let suite = ConformanceHarness("GuestDeviceStoreConformance")
        let key = ServerKey.random()
        let device = GuestID.recordKey(device: try DeviceID("conformance-device"), key: key)
        let other = GuestID.recordKey(device: try DeviceID("conformance-other-device"), key: key)
        let hint = LastLoginHint(flow: .mobile, number: try PhoneNumber("13800138000"), at: Date(timeIntervalSince1970: 1_796_090_400.5))

        // A device never seen; the first update starts from the empty record; the record reads back whole.
        try await suite.check("records", makeStore) { store in
            suite.expect(try await store.record(forKey: device) == nil, "a device never seen must have no record")
            let first = try await store.update(key: device) { record in
                let fromEmpty = record == GuestDeviceRecord()
                record.account = fromEmpty ? "conformance-account" : "started-from-another-record"
                record.lastLogin = hint
            }
            suite.expect(first.account == "conformance-account", "an update of a device never seen must start from the empty record")
            suite.expect(first.generation == 0 && first.lastLogin == hint, "update must return the record after the change, returned \(first)")
            let read = try await store.record(forKey: device)
            suite.expect(read == first, "the record must read back unchanged, read \(String(describing: read))")
            let loggedOut = try await store.update(key: device) { record in
                record.generation += 1
                record.account = nil
            }
            suite.expect(loggedOut.generation == 1 && loggedOut.account == nil && loggedOut.lastLogin == hint, "an update must start from the stored record, returned \(loggedOut)")
            suite.expect(try await store.record(forKey: device) == loggedOut, "a cleared account must read back as none")
            suite.expect(try await store.record(forKey: other) == nil, "another device must not see the record")
        }

        // Keys are compared by their bytes: keys that differ only in case or in Unicode normalisation are two devices.
        try await suite.check("keys by bytes", makeStore) { store in
            let keys = ["Ab-_9", "ab-_9", "caf\u{E9}", "cafe\u{301}"]
            for (index, key) in keys.enumerated() {
                _ = try await store.update(key: key) { $0.generation = index + 1 }
            }
            for (index, key) in keys.enumerated() {
                let generation = try await store.record(forKey: key)?.generation
                suite.expect(generation == index + 1, "key \(key.debugDescription) must keep its own record (generation \(index + 1)), read \(String(describing: generation))")
            }
        }

        // Racing updates of one device are applied one after another: none is lost.
        try await suite.check("racing updates", makeStore) { store in
            _ = try await suite.race(concurrency) { _ in _ = try await store.update(key: device) { $0.generation += 1 } }
            let generation = try await store.record(forKey: device)?.generation
            suite.expect(generation == concurrency, "\(concurrency) racing updates that each add one must reach \(concurrency), reached \(String(describing: generation))")
        }

        try suite.finish()
    }
}
