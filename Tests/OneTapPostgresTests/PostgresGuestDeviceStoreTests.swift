import Foundation
import OneTap
@testable import OneTapPostgres
import OneTapTesting
import Testing

@Suite struct PostgresGuestDeviceStoreTests {
    let now = Date(timeIntervalSince1970: 1_796_083_200)

    func table(_ stores: PostgresStores) -> String { "\"\(stores.configuration.schema)\".guest_devices" }

    @Test func conformsToTheStoreContract() async throws {
        try await checkConformance(try await TestDatabase.url(), { $0.guestDeviceStore() }) { make in
            try await GuestDeviceStoreConformance.check { try await make() }
        }
    }

    /// Two instances (two pools, one database) give a device the same guest; a logout on one is a new
    /// guest on the other; racing updates from both are all applied.
    @Test func twoInstancesAgreeOnADevicesGuest() async throws {
        try await TestDatabase.withStores { one in
            let other = PostgresStores(configuration: one.configuration)
            let key = ServerKey.random()
            let device = try DeviceID("phone-of-instance-test")
            let first = GuestService(key: key, store: one.guestDeviceStore(), clock: FakeClock(now: now))
            let second = GuestService(key: key, store: other.guestDeviceStore(), clock: FakeClock(now: now))
            let opened = try await first.open(device)
            #expect(try await second.open(device).guest == opened.guest)
            _ = try await first.loggedIn(device, account: "42", flow: .tianyi, number: try PhoneNumber("13300133000"))
            let seen = try await second.open(device)
            #expect(seen.identity == .account("42") && seen.lastLogin?.maskedNumber == "133****3000")
            _ = try await second.logout(device)
            let after = try await first.open(device)
            #expect(after.identity.isGuest && after.guest != opened.guest, "a logout is a new guest everywhere")

            let stores = [one.guestDeviceStore(), other.guestDeviceStore()]
            let recordKey = GuestID.recordKey(device: device, key: key)
            let before = try #require(try await stores[0].record(forKey: recordKey)).generation
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<40 { group.addTask { _ = try await stores[index % 2].update(key: recordKey) { $0.generation += 1 } } }
                try await group.waitForAll()
            }
            #expect(try await stores[1].record(forKey: recordKey)?.generation == before + 40)
            await other.close()
        }
    }

    /// A server (or role) whose default isolation is SERIALIZABLE or REPEATABLE READ: racing updates of one
    /// device are still all applied (the store's transaction is READ COMMITTED).
    @Test(arguments: ["serializable", "repeatable read"])
    func racingUpdatesAreAllAppliedWhateverTheDefaultIsolation(isolation: String) async throws {
        try await TestDatabase.withStores { stores in
            // In libpq's options a space inside a value is written as a backslash and a space.
            let option = "-c default_transaction_isolation=\(isolation.replacingOccurrences(of: " ", with: "\\ "))".addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            let url = try await TestDatabase.url()
            let strict = PostgresStores(configuration: try TestDatabase.configuration(
                url + (url.contains("?") ? "&" : "?") + "options=" + option, schema: stores.configuration.schema, poolSize: 8))
            let shown = try await strict.pool.execute("SHOW default_transaction_isolation")
            #expect(shown.first == [.text(isolation)], "the connection runs at \(isolation) by default")
            let store = strict.guestDeviceStore()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<40 { group.addTask { _ = try await store.update(key: "contended") { $0.generation += 1 } } }
                try await group.waitForAll()
            }
            #expect(try await stores.guestDeviceStore().record(forKey: "contended")?.generation == 40)
            await strict.close()
        }
    }

    /// The table holds neither the device id nor the whole number: the key is an HMAC, the hint masked.
    @Test func theTableHoldsNoDeviceIDAndNoWholeNumber() async throws {
        try await TestDatabase.withStores { stores in
            let guests = GuestService(key: ServerKey.random(), store: stores.guestDeviceStore(), clock: FakeClock(now: now))
            let device = try DeviceID("IDFV-5D1C1A6B-0000-4C4F-9E0E-secret-device")
            _ = try await guests.loggedIn(device, account: "42", flow: .mobile, number: try PhoneNumber("13800138000"))
            let rows = try await stores.pool.execute("SELECT key || ' ' || coalesce(account, '') || ' ' || coalesce(last_login, '') FROM \(table(stores))")
            let text = try #require(rows.first?.first?.text)
            #expect(!text.contains("IDFV") && !text.contains("secret-device") && !text.contains("13800138000") && text.contains("138****8000"), "\(text)")
        }
    }

    @Test(arguments: [
        ("account = ''", "its account is no account id"),
        ("last_login = 'not json'", "its last-login hint does not read as one"),
    ])
    func aRowOneTapDidNotWriteIsReportedCorruptAndLeftAlone(change: String, reason: String) async throws {
        try await TestDatabase.withStores { stores in
            let store = stores.guestDeviceStore()
            _ = try await store.update(key: "device-key") { $0.account = "42" }
            try await stores.pool.execute("UPDATE \(table(stores)) SET \(change) WHERE key = $1", [.text("device-key")])
            for call in [{ _ = try await store.record(forKey: "device-key") }, { _ = try await store.update(key: "device-key") { $0.generation += 1 } }] as [@Sendable () async throws -> Void] {
                await #expect {
                    try await call()
                } throws: { error in
                    let error = error as! StoreError
                    return error.kind == .corrupt && error.message.contains(reason) && error.message.contains("left as it is")
                }
            }
            #expect(try await stores.pool.execute("SELECT generation FROM \(table(stores))").first == [.int64(0)], "the refused update wrote nothing")
        }
    }

    /// An update held on a row lock past the statement timeout fails with `io` and writes nothing; the
    /// body never ran on a record it could not write.
    @Test func anUpdateHeldPastTheStatementTimeoutFailsAndWritesNothing() async throws {
        let (stores, usual) = try await TestDatabase.timingOutStores(statementTimeout: .seconds(1))
        let store = stores.guestDeviceStore()
        _ = try await usual.guestDeviceStore().update(key: "held") { $0.generation = 3 }
        let holder = try await HeldTransaction.begin(usual.configuration, [("SELECT key FROM \(table(usual)) WHERE key = $1 FOR UPDATE", [.text("held")])])
        await #expect {
            _ = try await store.update(key: "held") { $0.generation = 99 }
        } throws: { error in
            let error = error as! StoreError
            return error.kind == .io && error.message.contains("statement timeout") && error.message.contains("nothing was written")
        }
        await holder.release()
        #expect(try await usual.guestDeviceStore().record(forKey: "held")?.generation == 3)
        await stores.close()
        await TestDatabase.dispose(usual)
    }

    @Test func everyCallFailsWithIOWhileTheDatabaseIsUnreachable() async throws {
        let nowhere = try PostgresConfiguration(url: "postgresql://api:hunter2-pw@/onetap?host=/tmp/onetap-nowhere-\(UInt32.random(in: 0...UInt32.max))")
        let store = PostgresStores(configuration: nowhere).guestDeviceStore()
        let calls: [@Sendable () async throws -> Void] = [
            { _ = try await store.record(forKey: "k") }, { _ = try await store.update(key: "k") { $0.generation += 1 } },
        ]
        for call in calls {
            await #expect {
                try await call()
            } throws: { error in
                let error = error as! StoreError
                return error.kind == .io && error.message.contains("connection-failed") && !error.description.contains("hunter2-pw")
            }
        }
    }
}
