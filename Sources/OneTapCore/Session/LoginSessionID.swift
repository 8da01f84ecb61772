/// A login session's id: 128 bits from the system's CSPRNG (`LoginSessionID.random()` in `OneTap`),
/// written as 22 characters of URL-safe base64 (RFC 4648 §5, no padding), so it can travel in a URL, a
/// header or JSON as it is.
public struct LoginSessionID: Hashable, Sendable, CustomStringConvertible {
    /// The 22 characters.
    package let text: String

    /// A new id from a generator (tests give a seeded one; production uses `random()` from `OneTap`, which
    /// draws from the system's CSPRNG).
    /// - Parameter generator: The source of the 128 bits.
    /// - Returns: The id.
    package static func random(using generator: inout some RandomNumberGenerator) -> LoginSessionID {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        for _ in 0..<2 {
            let word = generator.next()
            for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift))) }
        }
        return LoginSessionID(bytes: bytes)
    }

    /// Encodes 16 bytes.
    init(bytes: [UInt8]) {
        text = Base64.urlEncoded(bytes)
    }

    /// Reads an id a client sent back.
    /// - Parameter text: The 22 characters.
    /// - Throws: ``ParseError`` with subject `session id`: `empty`, `wrong-length` or `invalid-character`.
    public init(_ text: String) throws(ParseError) {
        try URLSafeID.check(text, .sessionID)
        self.text = text
    }

    /// The 22 characters: the id's one text form (what a store, a URL or JSON holds); ``init(_:)``
    /// reads it back.
    public var description: String { text }
}
