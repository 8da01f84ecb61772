/// The client behind a report, as the circuit breaker tells clients apart: the app session (a
/// credential OneTap issued, so a distinct one is proof of a distinct login to this server), the
/// session's identity (the guest or account it belongs to), the client's address blocks (a /56 for
/// IPv6, what one site is given, so a client moving to a fresh /64 for each report is still one, and
/// the /48 around it, 256 such blocks, as the login quotas count them; the address for IPv4), and its
/// device id when given. A missing address counts as one shared
/// `(not given)` address, so reports that give none are one client's word together (fail closed).
///
/// Two clients are the same when they share ANY of these but the device id (the app's claim, which a stranger may
/// copy): a fake client must hold distinct app sessions, identities AND address blocks to be counted twice, so ten
/// logins of one app session, or ten app sessions from one address, count once. (Real users behind one carrier-grade
/// NAT count once too as words; a success the server saw is placed by the user's credentials alone.)
package struct ChannelClient: Hashable, Sendable, CustomStringConvertible {
    /// The keys the client is known by, each prefixed by its kind (`session:`, `guest:` or `account:`, `address:`, `device:`).
    package let keys: [String]

    /// A client.
    /// - Parameters:
    ///   - appSession: The app session the request proved (nil when it has none).
    ///   - identity: The app session's guest or account.
    ///   - address: The client's address as ``ClientAddress`` resolved it; nil counts as the shared
    ///     unknown address.
    ///   - device: The app's device id, when the request gave one (none adds no key: the address already
    ///     stands for a client that gives nothing).
    package init(appSession: AppSessionID?, identity: Identity?, address: IPAddress?, device: DeviceID? = nil) {
        var keys: [String] = []
        if let appSession { keys.append("session:\(appSession.text)") }
        switch identity {
        case .guest(let guest): keys.append("guest:\(guest.text)")
        case .account(let account): keys.append("account:\(account.rawValue)")
        case nil: break
        }
        // Every client that gives no address shares one address key.
        keys.append("address:\(address.map { SMSContext.limitKey($0, prefix: 56) } ?? SMSPolicy.notGiven)")
        if let address { keys.append("address48:\(SMSContext.limitKey(address, prefix: 48))") }
        if let device { keys.append("device:\(device.rawValue)") }
        self.keys = keys
    }

    /// Whether two clients share a key other than a device id (the app's claim, which a stranger may copy), and so
    /// are one client to the breaker.
    /// - Parameter other: The other client.
    /// - Returns: True when an app session, identity or address key is the same.
    package func overlapsBeyondTheDevice(_ other: ChannelClient) -> Bool {
        keysBeyondTheDevice.contains { other.keys.contains($0) }
    }

    /// The keys a stranger cannot claim: the app session and identity it proved, its address blocks (not the device
    /// id, the app's claim).
    package var keysBeyondTheDevice: [String] { keys.filter { !$0.hasPrefix("device:") } }

    /// The keys of the credentials the client proved: its app session and its identity (no address, no device id).
    package var credentialKeys: [String] {
        keys.filter { $0.hasPrefix("session:") || $0.hasPrefix("guest:") || $0.hasPrefix("account:") }
    }

    /// `client(3 keys)`: the keys identify a person, and stay out of logs.
    package var description: String { "client(\(keys.count) keys)" }
}
