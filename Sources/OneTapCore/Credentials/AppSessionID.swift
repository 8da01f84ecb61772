/// An app session's id: the app's own session with the auth server, from its first open (as a guest)
/// through its logins to its logout. 128 bits from the system's CSPRNG (`AppSessionID.random()` in
/// `OneTap`), written as 22 characters of URL-safe base64. Not a secret and not proof of anything: it
/// names the session inside credentials the server signed, and only a verified credential vouches for it.
///
/// The 22 characters are held inline (three machine words), not in a heap string: reading an id out of
/// an access token, on every authenticated request, allocates nothing. ``text`` makes the string.
public struct AppSessionID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The characters' bytes in order, the last two bytes zero.
    private let characters: (UInt64, UInt64, UInt64)

    /// The number of characters: 22.
    private static let length = 22

    /// The 22 characters.
    public var text: String {
        var characters = self.characters
        return withUnsafeBytes(of: &characters) { raw in
            String(decoding: UnsafeRawBufferPointer(rebasing: raw[0..<Self.length]), as: UTF8.self)
        }
    }

    /// A new id from a generator (tests give a seeded one; production draws from the system's CSPRNG).
    /// - Parameter generator: The source of the 128 bits.
    /// - Returns: The id.
    package static func random(using generator: inout some RandomNumberGenerator) -> AppSessionID {
        var text = LoginSessionID.random(using: &generator).text
        return text.withUTF8 { AppSessionID(checked: $0) }  // a LoginSessionID is 22 URL-safe characters
    }

    /// Reads an id a client or a store sent back.
    /// - Parameter text: The 22 characters.
    /// - Throws: ``ParseError`` with subject `app session id`: `empty`, `wrong-length` or `invalid-character`.
    public init(_ text: String) throws(ParseError) {
        try URLSafeID.check(text, .appSessionID)
        var text = text
        self = text.withUTF8 { AppSessionID(checked: $0) }
    }

    /// Reads an id from bytes (a part of an access token), allocating nothing.
    /// - Parameter utf8: The bytes.
    /// - Returns: The id, or nil unless they are 22 URL-safe base64 characters.
    package init?(utf8: UnsafeBufferPointer<UInt8>) {
        guard utf8.count == Self.length, utf8.allSatisfy({ Base64.isURLSafe(Unicode.Scalar($0)) }) else { return nil }
        self.init(checked: utf8)
    }

    /// Copies 22 checked bytes.
    private init(checked utf8: UnsafeBufferPointer<UInt8>) {
        var characters: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &characters) { raw in
            for index in 0..<Self.length { raw[index] = utf8[index] }
        }
        self.characters = characters
    }

    /// The 22 characters.
    public var description: String { text }

    /// Whether two ids have the same characters.
    public static func == (lhs: AppSessionID, rhs: AppSessionID) -> Bool {
        lhs.characters == rhs.characters
    }

    /// Hashes the characters.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(characters.0)
        hasher.combine(characters.1)
        hasher.combine(characters.2)
    }

    /// Orders ids by their text (byte by byte: the characters are ASCII).
    public static func < (lhs: AppSessionID, rhs: AppSessionID) -> Bool {
        // Memory order is text order; big-endian words compare as the bytes do.
        let left = (UInt64(bigEndian: lhs.characters.0), UInt64(bigEndian: lhs.characters.1), UInt64(bigEndian: lhs.characters.2))
        let right = (UInt64(bigEndian: rhs.characters.0), UInt64(bigEndian: rhs.characters.1), UInt64(bigEndian: rhs.characters.2))
        return left < right
    }
}
