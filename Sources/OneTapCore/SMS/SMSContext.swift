/// Who asks for an SMS code, beyond the number: what the limits count per, and the captcha that came
/// with the request.
public struct SMSContext: Hashable, Sendable, CustomStringConvertible {
    /// The client's address as the server saw it (an IPv6 client counts per /64, the block one
    /// subscriber is given, and per /56 and /48 too). Without one, the request counts in the address
    /// rules' shared "not given" bucket: pass it.
    public var ip: IPAddress?
    /// The app's device id. Without one, the request counts as the device "not given" at its address.
    public var device: DeviceID?
    /// The login session the code is for: each session has its own code, its own wrong tries and its own
    /// send limits for a number, so a stranger's sends and guesses (in sessions of their own) neither spend
    /// nor replace the owner's code. Required: requests without one would share one code and one set of
    /// limits per number, which a stranger could spend. An id OneTap issued (``LoginServer``'s, or
    /// ``LoginSessionID/random()`` handed to the client with the send), never one the client chose.
    public var session: LoginSessionID
    /// A captcha token the client solved, for the captcha verifier to check: on a send that a captcha
    /// rule holds back, and on a verify of a number under attack (the service asks with
    /// `captchaRequired`).
    public var captcha: Secret?
    /// Whether the send comes from the number's returning owner: the caller's app session logged in with the
    /// number in the last 30 days (`LoginServer` sets it when its `AppSessions` vouch for it, never the client).
    /// Its sends count in a lane of their own on the `number-lane` and `global-lane` keys, so neither a number's daily
    /// cap nor the hour's ceiling on every send, which strangers fill, refuses it (the owners' lane of the global rules
    /// fills only with the sends of app sessions that logged in with their numbers).
    package var returningOwner = false

    /// Creates a context.
    /// - Parameters:
    ///   - ip: The client's address.
    ///   - device: The device id.
    ///   - session: The login session.
    ///   - captcha: A solved captcha's token.
    public init(ip: IPAddress? = nil, device: DeviceID? = nil, session: LoginSessionID, captcha: Secret? = nil) {
        self.ip = ip
        self.device = device
        self.session = session
        self.captcha = captcha
    }

    /// `SMSContext(ip 203.0.113.7, device, session …, captcha)`: the captcha token and the device id
    /// are not printed.
    public var description: String {
        var parts: [String] = []
        if let ip { parts.append("ip \(ip)") }
        if device != nil { parts.append("device") }
        parts.append("session \(session)")
        if captcha != nil { parts.append("captcha") }
        if returningOwner { parts.append("returning owner") }
        return "SMSContext(\(parts.joined(separator: ", ")))"
    }

    /// The policy's view of a send or verify for a number: the keys its counters count under.
    /// - Parameter number: The number.
    /// - Returns: The number's digits, the address (an IPv6 address as its /64, /56 and /48), the device
    ///   and session ids.
    package func request(for number: PhoneNumber) -> SMSPolicy.Request {
        Self.request(for: number, ip: ip, device: device, session: session, returningOwner: returningOwner)
    }

    /// The same keys for a request that may lack a session: what `onetap sms` replays from a log written
    /// before sessions were required (such a request counts as the number's "no session" sender).
    /// - Parameters:
    ///   - number: The number.
    ///   - ip: The client's address.
    ///   - device: The device id.
    ///   - session: The login session.
    ///   - returningOwner: Whether the sender is the number's returning owner (``returningOwner``).
    /// - Returns: The keys.
    package static func request(
        for number: PhoneNumber, ip: IPAddress?, device: DeviceID?, session: LoginSessionID?, returningOwner: Bool = false
    ) -> SMSPolicy.Request {
        var request = request(digits: number.digits, ip: ip, device: device, session: session)
        request.returningOwner = returningOwner
        return request
    }

    /// The same keys under the number key's value `digits`: ``SMSPolicy/notGiven`` for a login start's captcha
    /// check, which concerns no number.
    /// - Parameters:
    ///   - digits: The number key's value.
    ///   - ip: The client's address.
    ///   - device: The device id.
    ///   - session: The login session.
    /// - Returns: The keys.
    package static func request(digits: String, ip: IPAddress?, device: DeviceID?, session: LoginSessionID?) -> SMSPolicy.Request {
        SMSPolicy.Request(
            number: digits, ip: ip.map { limitKey($0, prefix: 64) }, ip56: ip.map { limitKey($0, prefix: 56) },
            ip48: ip.map { limitKey($0, prefix: 48) }, device: device?.rawValue, session: session?.text)
    }

    /// The address a limit counts per: an IPv4 address (also inside `::ffff:`) as it is, or an IPv6
    /// address's block of `prefix` bits (`2001:db8:1200::/40`-style: the address with the rest zeroed,
    /// then `/prefix`).
    /// - Parameters:
    ///   - address: The address.
    ///   - prefix: 64, 56 or 48.
    /// - Returns: The key.
    package static func limitKey(_ address: IPAddress, prefix: Int = 64) -> String {
        if let v4 = address.ipv4 { return IPAddress.v4(v4).description }
        guard case .v6(let high, _) = address else { return address.description }
        return IPAddress.v6(high: high & IPBlock.mask64(prefix), low: 0).description + "/\(min(prefix, 64))"
    }
}
