import Foundation
import OneTapTesting
import Testing
@testable import OneTap

@Suite struct GuestServiceTests {
    let key = ServerKey.random()

    @Test func aDeviceIsOneGuestUntilItLogsOut() async throws {
        let clock = FakeClock()
        let store = InMemoryGuestDeviceStore()
        let guests = GuestService(key: key, store: store, clock: clock)
        let device = try DeviceID("9774d56d682e549c")
        let first = try await guests.open(device)
        #expect(first.account == nil && first.lastLogin == nil && first.identity == .guest(first.guest))
        #expect(try await guests.open(device).guest == first.guest)
        // Another instance with the same key and store agrees.
        #expect(try await GuestService(key: key, store: store).open(device).guest == first.guest)
        #expect(try await guests.open(try DeviceID("another-device")).guest != first.guest)

        let number = try PhoneNumber("13800138000")
        let loggedIn = try await guests.loggedIn(device, account: "42", flow: .mobile, number: number)
        #expect(loggedIn.identity == .account("42"))
        #expect(loggedIn.lastLogin == LastLoginHint(flow: .mobile, number: number, at: FakeClock.epoch))

        clock.advance(by: .seconds(60))
        let out = try await guests.logout(device)
        #expect(out.account == nil && out.guest != first.guest, "a logout makes a new guest")
        #expect(out.lastLogin?.maskedNumber == "138****8000", "the login page still shows how the device last logged in")
        #expect(try await guests.open(device).guest == out.guest)
    }

    @Test func theStoreNeverHoldsTheDeviceIDOrTheNumber() async throws {
        let store = InMemoryGuestDeviceStore()
        let guests = GuestService(key: key, store: store)
        let device = try DeviceID("raw-device-id-123")
        _ = try await guests.loggedIn(device, account: "a", flow: .sms, number: try PhoneNumber("13900139000"))
        let record = try #require(try await store.record(forKey: GuestID.recordKey(device: device, key: key)))
        let json = try record.json()
        #expect(!json.contains("raw-device-id-123") && !json.contains("13900139000"))
        #expect(try await store.record(forKey: "raw-device-id-123") == nil)
    }

    /// A device store that is down: each call throws its error; a logout whose write was lost leaves
    /// the device the guest it was, and one whose write landed makes the new guest.
    @Test func aFailingDeviceStoreIsAStoreErrorAndALostLogoutChangesNothing() async throws {
        let store = FaultyGuestDeviceStore(InMemoryGuestDeviceStore())
        let guests = GuestService(key: key, store: store)
        let device = try DeviceID("9774d56d682e549c")
        let first = try await guests.open(device)

        store.faults.inject(.refuse(.io, "the database is down"), into: [.record])
        await #expect {
            try await guests.open(device)
        } throws: { error in
            guard let error = error as? StoreError else { return false }
            return error.kind == .io && error.description == "io: the database is down"
        }
        store.faults.inject(.lose(), into: [.update], times: 2)
        await #expect(throws: StoreError.self) { try await guests.logout(device) }
        await #expect(throws: StoreError.self) { try await guests.loggedIn(device, account: "42", flow: .sms, number: nil) }
        #expect(try await guests.open(device) == first, "nothing was written: the device is the guest it was, with no account")
        #expect(try await store.record(forKey: GuestID.recordKey(device: device, key: key)) == nil)

        store.faults.inject(.land(), into: [.update])
        await #expect(throws: StoreError.self) { try await guests.logout(device) }
        let after = try await guests.open(device)
        #expect(after.guest != first.guest && after.account == nil, "the logout landed: the device is a new guest")
        #expect(store.faults.calls(.update) == 3, "every update reached the store: two were lost, one landed")
    }
}
