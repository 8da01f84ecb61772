/// The name of one key in a ``ServerKeyRing``: 1 to 16 of `A–Z a–z 0–9 _ -`. Not a secret: it travels
/// in every access token, so a server finds the key to check the token with.
package struct KeyID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The id's text.
    package let text: String

    /// The longest id, in characters: 16.
    package static let maximumLength = 16

    /// Reads a key id.
    /// - Parameter text: 1 to 16 of `A–Z a–z 0–9 _ -` (`2026-12`, `k1`).
    /// - Throws: ``ParseError`` with subject `key id`: `empty`, `wrong-length` or `invalid-character`.
    package init(_ text: String) throws(ParseError) {
        if text.isEmpty { throw ParseError(.keyID, .empty, input: text, reason: "a key id has at least one character") }
        if let error = firstBadCharacterError(.keyID, in: text, allowed: Base64.isURLSafe) {
            throw ParseError(.keyID, error.kind, input: text, reason: error.reason + " (a key id is A-Z, a-z, 0-9, _ and -)")
        }
        guard text.utf8.count <= Self.maximumLength else {
            throw ParseError(.keyID, .wrongLength, input: text, reason: "\(text.utf8.count) characters; a key id has at most \(Self.maximumLength)")
        }
        self.text = text
    }

    /// An id known to be well formed (a literal of the package's own).
    package init(unchecked text: String) { self.text = text }

    /// The id's text.
    package var description: String { text }

    /// Orders ids by their text.
    package static func < (lhs: KeyID, rhs: KeyID) -> Bool { lhs.text < rhs.text }
}
