/// A guest's id: what the server knows an app user by before they log in. Never shown to the user.
///
/// Derived, not stored: the first 128 bits of HMAC-SHA-256(server key, "onetap-guest-1" ‖ device id ‖
/// generation), as 22 characters of URL-safe base64. So every instance of a server gives one device
/// the same guest id without asking a database, the id is unguessable without the key, and it cannot
/// be turned back into the device id. The generation starts at 0 and goes up at each logout, so a
/// device that logs out becomes a new, empty guest (see ``GuestIdentity``).
public struct GuestID: Hashable, Sendable, Codable, CustomStringConvertible, Comparable {
    /// The 22 characters.
    public let text: String

    /// The guest id of a device at a generation.
    /// - Parameters:
    ///   - device: The device id.
    ///   - generation: How many times the device logged out.
    ///   - key: The server's key.
    /// - Returns: The id.
    package static func derive(device: DeviceID, generation: Int, key: ServerKey) -> GuestID {
        var message = Array("onetap-guest-1".utf8)
        message.append(0)
        message.append(contentsOf: device.rawValue.utf8)
        message.append(0)
        message.append(contentsOf: String(generation).utf8)
        let digest = key.hmac.authenticationCode(for: message)
        return GuestID(verified: Base64.urlEncoded(digest.bytes.prefix(16)))
    }

    private init(verified text: String) { self.text = text }

    /// A new guest id from a generator: 128 random bits (an app session's guest; production draws from
    /// the system's CSPRNG through `AppSessions`).
    /// - Parameter generator: The source of the bits.
    /// - Returns: The id.
    package static func random(using generator: inout some RandomNumberGenerator) -> GuestID {
        GuestID(verified: LoginSessionID.random(using: &generator).text)
    }

    /// The key a store keeps a device's record under: HMAC-SHA-256(server key, "onetap-device-1" ‖
    /// device id), 128 bits as 22 characters, so no store holds a raw device id.
    /// - Parameters:
    ///   - device: The device id.
    ///   - key: The server's key.
    /// - Returns: The record's key.
    package static func recordKey(device: DeviceID, key: ServerKey) -> String {
        var message = Array("onetap-device-1".utf8)
        message.append(0)
        message.append(contentsOf: device.rawValue.utf8)
        return Base64.urlEncoded(key.hmac.authenticationCode(for: message).bytes.prefix(16))
    }

    /// Reads a guest id a client or a store sent back.
    /// - Parameter text: The 22 characters.
    /// - Throws: ``ParseError`` with subject `guest id`: `empty`, `wrong-length` or `invalid-character`.
    public init(_ text: String) throws(ParseError) {
        try URLSafeID.check(text, .guestID)
        self.text = text
    }

    /// The 22 characters.
    public var description: String { text }

    /// Orders ids by their text.
    public static func < (lhs: GuestID, rhs: GuestID) -> Bool { lhs.text < rhs.text }

    /// Decodes the id from a string.
    /// - Parameter decoder: The decoder.
    /// - Throws: `DecodingError.dataCorrupted` for text that is no guest id.
    public init(from decoder: any Decoder) throws {
        self = try ParseError.decode(from: decoder) { (text) throws(ParseError) in try Self(text) }
    }

    /// Encodes the id as a string.
    /// - Parameter encoder: The encoder.
    /// - Throws: What the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }
}
