/// A guest's id: what the server knows an app user by before they log in. Never shown to the user.
///
/// 128 random bits as 22 characters of URL-safe base64, drawn for each app session (its first open, and
/// the fresh guest session a logout opens): nothing of the device goes into it, so two sessions on one
/// device are two unrelated guests, and knowing a device id tells no one a guest id.
///
/// The characters are held inline, not in a heap string: a guest's access token is read without an
/// allocation.
public struct GuestID: Hashable, Sendable, CustomStringConvertible, Comparable {
    /// The characters, inline.
    private let storage: InlineID

    /// The 22 characters.
    package var text: String { storage.text }

    private init(verified text: String) { storage = InlineID(checked: text) }

    /// Reads an id from bytes (a part of an access token), allocating nothing.
    /// - Parameter utf8: The bytes.
    /// - Returns: The id, or nil unless they are 22 URL-safe base64 characters.
    package init?(utf8: UnsafeBufferPointer<UInt8>) {
        guard let storage = InlineID(utf8: utf8) else { return nil }
        self.storage = storage
    }

    /// A new guest id from a generator: 128 random bits (an app session's guest; production draws from
    /// the system's CSPRNG through `AppSessions`).
    /// - Parameter generator: The source of the bits.
    /// - Returns: The id.
    package static func random(using generator: inout some RandomNumberGenerator) -> GuestID {
        GuestID(verified: LoginSessionID.random(using: &generator).text)
    }

    /// Reads a guest id a client or a store sent back.
    /// - Parameter text: The 22 characters.
    /// - Throws: ``ParseError`` with subject `guest id`: `empty`, `wrong-length` or `invalid-character`.
    public init(_ text: String) throws(ParseError) {
        try URLSafeID.check(text, .guestID)
        storage = InlineID(checked: text)
    }

    /// The 22 characters: the id's one text form (what a store, a header or JSON holds); ``init(_:)``
    /// reads it back.
    public var description: String { text }

    /// Orders ids by their text.
    /// - Parameters:
    ///   - lhs: An id.
    ///   - rhs: Another.
    /// - Returns: Whether `lhs` comes first.
    public static func < (lhs: GuestID, rhs: GuestID) -> Bool { lhs.storage < rhs.storage }
}
