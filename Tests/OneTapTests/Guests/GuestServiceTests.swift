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
}
