/// Who asks for an SMS code, beyond the number: what the limits count per, and the captcha that came
/// with the request.
public struct SMSContext: Hashable, Sendable, CustomStringConvertible {
    /// The client's address as the server saw it (an IPv6 client counts per /64, the block one
    /// subscriber is given).
    public var ip: IPAddress?
    /// The app's device id.
    public var device: DeviceID?
    /// The login session the code is for.
    public var session: LoginSessionID?
    /// A captcha token the client solved, for the captcha verifier to check.
    public var captcha: Secret?

    /// Creates a context.
    /// - Parameters:
    ///   - ip: The client's address.
    ///   - device: The device id.
    ///   - session: The login session.
    ///   - captcha: A solved captcha's token.
    public init(ip: IPAddress? = nil, device: DeviceID? = nil, session: LoginSessionID? = nil, captcha: Secret? = nil) {
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
        if let session { parts.append("session \(session)") }
        if captcha != nil { parts.append("captcha") }
        return "SMSContext(\(parts.joined(separator: ", ")))"
    }

    /// The policy's view of a send or verify for a number: the keys its counters count under.
    /// - Parameter number: The number.
    /// - Returns: The number's digits, the address (an IPv6 address as its /64), the device and session ids.
    package func request(for number: PhoneNumber) -> SMSPolicy.Request {
        SMSPolicy.Request(number: number.digits, ip: ip.map(Self.limitKey), device: device?.rawValue, session: session?.text)
    }

    /// The address a limit counts per: an IPv4 address (also inside `::ffff:`), or an IPv6 address's /64.
    static func limitKey(_ address: IPAddress) -> String {
        if let v4 = address.ipv4 { return IPAddress.v4(v4).description }
        guard case .v6(let high, _) = address else { return address.description }
        return IPAddress.v6(high: high, low: 0).description + "/64"
    }
}
