/// An app session's id: the app's own session with the auth server, from its first open (as a guest)
/// through its logins to its logout. 128 bits from the system's CSPRNG (`AppSessionID.random()` in
/// `OneTap`), written as 22 characters of URL-safe base64. Not a secret and not proof of anything: it
/// names the session inside credentials the server signed, and only a verified credential vouches for it.
public struct AppSessionID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The 22 characters.
    public let text: String

    /// A new id from a generator (tests give a seeded one; production draws from the system's CSPRNG).
    /// - Parameter generator: The source of the 128 bits.
    /// - Returns: The id.
    package static func random(using generator: inout some RandomNumberGenerator) -> AppSessionID {
        AppSessionID(verified: LoginSessionID.random(using: &generator).text)
    }

    private init(verified text: String) { self.text = text }

    /// Reads an id a client or a store sent back.
    /// - Parameter text: The 22 characters.
    /// - Throws: ``ParseError`` with subject `app session id`: `empty`, `wrong-length` or `invalid-character`.
    public init(_ text: String) throws(ParseError) {
        try URLSafeID.check(text, .appSessionID)
        self.text = text
    }

    /// The 22 characters.
    public var description: String { text }

    /// Orders ids by their text.
    public static func < (lhs: AppSessionID, rhs: AppSessionID) -> Bool { lhs.text < rhs.text }
}
