/// An app session's id: the app's own session with the auth server, from its first open (as a guest)
/// through its logins to its logout. 128 bits from the system's CSPRNG (`AppSessionID.random()` in
/// `OneTap`), written as 22 characters of URL-safe base64. Not a secret and not proof of anything: it
/// names the session inside credentials the server signed, and only a verified credential vouches for it.
///
/// The 22 characters are held inline (three machine words), not in a heap string: reading an id out of
/// an access token, on every authenticated request, allocates nothing. ``text`` makes the string.
public struct AppSessionID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The characters, inline.
    private let storage: InlineID

    /// The 22 characters.
    package var text: String { storage.text }

    private init(_ storage: InlineID) { self.storage = storage }

    /// A new id from a generator (tests give a seeded one; production draws from the system's CSPRNG).
    /// - Parameter generator: The source of the 128 bits.
    /// - Returns: The id.
    package static func random(using generator: inout some RandomNumberGenerator) -> AppSessionID {
        AppSessionID(InlineID(checked: LoginSessionID.random(using: &generator).text))  // 22 URL-safe characters
    }

    /// Reads an id a client or a store sent back.
    /// - Parameter text: The 22 characters.
    /// - Throws: ``ParseError`` with subject `app session id`: `empty`, `wrong-length` or `invalid-character`.
    public init(_ text: String) throws(ParseError) {
        try URLSafeID.check(text, .appSessionID)
        storage = InlineID(checked: text)
    }

    /// Reads an id from bytes (a part of an access token), allocating nothing.
    /// - Parameter utf8: The bytes.
    /// - Returns: The id, or nil unless they are 22 URL-safe base64 characters.
    package init?(utf8: UnsafeBufferPointer<UInt8>) {
        guard let storage = InlineID(utf8: utf8) else { return nil }
        self.storage = storage
    }

    /// The 22 characters: the id's one text form (what a store, a header or JSON holds); ``init(_:)``
    /// reads it back.
    public var description: String { text }

    /// Orders ids by their text.
    /// - Parameters:
    ///   - lhs: An id.
    ///   - rhs: Another.
    /// - Returns: Whether `lhs` comes first.
    public static func < (lhs: AppSessionID, rhs: AppSessionID) -> Bool { lhs.storage < rhs.storage }
}
