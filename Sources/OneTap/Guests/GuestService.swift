/// Guests first (seed 000): the guest identity a device gets on its first open, the "last login on this
/// device" hint, and the fresh guest a logout leaves behind.
///
/// ```swift
/// let guests = GuestService(key: serverKey, store: sharedDevices)
/// // POST /guest   {"device": "…"}   on first open with no account on the device
/// let identity = try await guests.open(device)          // identity.guest, identity.lastLogin (138****8000 by one-tap)
/// // after a login:  try await guests.loggedIn(device, account: id, flow: .mobile, number: number)
/// // POST /logout:   let fresh = try await guests.logout(device)   // a new, empty guest
/// ```
/// The guest id is derived (``GuestID/derive(device:generation:key:)``), so every instance agrees on
/// it; the store keeps only, per device (keyed by an HMAC of the device id), the generation a logout
/// raises, the logged-in account and the last-login hint.
public struct GuestService: Sendable {
    private let key: ServerKey
    private let store: any GuestDeviceStore
    private let clock: any WallClock

    /// Creates the service.
    /// - Parameters:
    ///   - key: The server's key (every instance shares it).
    ///   - store: The device records; in memory by default.
    ///   - clock: The time source.
    public init(key: ServerKey, store: any GuestDeviceStore = InMemoryGuestDeviceStore(), clock: any WallClock = SystemClock()) {
        self.key = key
        self.store = store
        self.clock = clock
    }

    /// Who the device is now: its guest id, the account logged in on it (if any), and how it last logged in.
    /// - Parameter device: The device id.
    /// - Returns: The identity; a device never seen is guest generation 0 with no hint.
    /// - Throws: ``StoreError`` when the store fails.
    public func open(_ device: DeviceID) async throws -> GuestIdentity {
        let record = try await store.record(forKey: GuestID.recordKey(device: device, key: key)) ?? GuestDeviceRecord()
        return identity(device, record)
    }

    /// Records a login on the device: the account now logged in there and the hint for next time.
    /// - Parameters:
    ///   - device: The device id.
    ///   - account: The account.
    ///   - flow: The flow that logged in (one-tap or SMS).
    ///   - number: The number it logged in with, if known (kept masked only).
    /// - Returns: The identity after the login.
    /// - Throws: ``StoreError`` when the store fails.
    public func loggedIn(_ device: DeviceID, account: AccountID, flow: LoginFlow, number: PhoneNumber?) async throws -> GuestIdentity {
        let hint = LastLoginHint(flow: flow, number: number, at: clock.now())
        let record = try await store.update(key: GuestID.recordKey(device: device, key: key)) { record in
            record.account = account
            record.lastLogin = hint
        }
        return identity(device, record)
    }

    /// Logs the device out: the account session ends and the device becomes a new guest, whose data
    /// starts empty (the account's data stays with the account; the hint stays for the login page).
    /// - Parameter device: The device id.
    /// - Returns: The new guest identity.
    /// - Throws: ``StoreError`` when the store fails.
    public func logout(_ device: DeviceID) async throws -> GuestIdentity {
        let record = try await store.update(key: GuestID.recordKey(device: device, key: key)) { record in
            record.generation += 1
            record.account = nil
        }
        return identity(device, record)
    }

    private func identity(_ device: DeviceID, _ record: GuestDeviceRecord) -> GuestIdentity {
        GuestIdentity(guest: GuestID.derive(device: device, generation: record.generation, key: key), account: record.account, lastLogin: record.lastLogin)
    }
}

/// What a device is now.
public struct GuestIdentity: Hashable, Sendable, CustomStringConvertible {
    /// The device's guest id (never shown to the user).
    public let guest: GuestID
    /// The account logged in on the device, if one is.
    public let account: AccountID?
    /// How the device last logged in, for the login page.
    public let lastLogin: LastLoginHint?

    /// Who acts: the account when one is logged in, else the guest.
    public var identity: Identity { account.map(Identity.account) ?? .guest(guest) }

    /// `guest …, last login one-tap (mobile) 138****8000`.
    public var description: String {
        "\(identity)\(lastLogin.map { ", last login \($0)" } ?? "")"
    }
}
