/// The 22 URL-safe base64 characters of a 128-bit id (``AppSessionID``, ``GuestID``), held inline in
/// three machine words instead of a heap string: an id read out of an access token, on every
/// authenticated request, allocates nothing. ``text`` makes the string.
package struct InlineID: Hashable, Sendable, Comparable {
    /// The characters' bytes in order, the last two bytes zero.
    private let characters: (UInt64, UInt64, UInt64)

    /// The number of characters: 22.
    package static let length = 22

    /// The 22 characters.
    package var text: String {
        var characters = self.characters
        return withUnsafeBytes(of: &characters) { raw in
            String(decoding: UnsafeRawBufferPointer(rebasing: raw[0..<Self.length]), as: UTF8.self)
        }
    }

    /// Reads an id from bytes, allocating nothing.
    /// - Parameter utf8: The bytes.
    /// - Returns: The id, or nil unless they are 22 URL-safe base64 characters.
    package init?(utf8: UnsafeBufferPointer<UInt8>) {
        guard utf8.count == Self.length, Base64.isURLSafe(utf8) else { return nil }
        self.init(checked: utf8)
    }

    /// Copies the characters of text already checked to be 22 URL-safe base64 characters.
    /// - Parameter text: The text.
    package init(checked text: String) {
        var text = text
        self = text.withUTF8 { InlineID(checked: $0) }
    }

    /// Copies 22 checked bytes.
    private init(checked utf8: UnsafeBufferPointer<UInt8>) {
        var characters: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &characters) { raw in
            for index in 0..<Self.length { raw[index] = utf8[index] }
        }
        self.characters = characters
    }

    /// Whether two ids have the same characters.
    package static func == (lhs: InlineID, rhs: InlineID) -> Bool {
        lhs.characters == rhs.characters
    }

    /// Hashes the characters.
    package func hash(into hasher: inout Hasher) {
        hasher.combine(characters.0)
        hasher.combine(characters.1)
        hasher.combine(characters.2)
    }

    /// Orders ids by their text (byte by byte: the characters are ASCII).
    package static func < (lhs: InlineID, rhs: InlineID) -> Bool {
        // Memory order is text order; big-endian words compare as the bytes do.
        let left = (UInt64(bigEndian: lhs.characters.0), UInt64(bigEndian: lhs.characters.1), UInt64(bigEndian: lhs.characters.2))
        let right = (UInt64(bigEndian: rhs.characters.0), UInt64(bigEndian: rhs.characters.1), UInt64(bigEndian: rhs.characters.2))
        return left < right
    }
}
