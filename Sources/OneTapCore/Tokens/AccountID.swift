/// Whose tokens: the app's or the auth server's account identifier for a user. Not a secret.
///
/// An id is 1 to ``maximumBytes`` bytes of UTF-8 without control characters, and two ids are the same
/// exactly when their UTF-8 bytes are. That is what every store compares (a file name, a PostgreSQL
/// key, a Redis key), so every store keeps the same accounts apart. Swift's `String` comparison would
/// instead treat canonically equivalent spellings as one (`café` composed and decomposed), and
/// normalising would silently merge two ids a server keeps apart; an id is a key, not text to display,
/// so OneTap compares bytes and never rewrites them.
public struct AccountID: Hashable, Sendable, Comparable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The identifier's text, exactly as given.
    package let rawValue: String

    /// The longest identifier, in UTF-8 bytes: 100.
    package static let maximumBytes = 100

    /// Creates an account identifier.
    /// - Parameter rawValue: The identifier: 1 to 100 bytes of UTF-8, no control characters.
    /// - Throws: ``ParseError`` with subject `account id`: `empty`, `wrong-length` or `invalid-character`.
    public init(_ rawValue: String) throws(ParseError) {
        if let problem = Self.problem(rawValue) { throw problem }
        self.rawValue = rawValue
    }

    /// Creates an account identifier from a literal written in code.
    /// - Parameter value: The identifier.
    /// - Precondition: The literal is a valid identifier (a literal is the programmer's, not input).
    public init(stringLiteral value: String) {
        if let problem = Self.problem(value) { preconditionFailure("\(problem)") }
        rawValue = value
    }

    /// Why a text cannot be an identifier, or nil when it can.
    static func problem(_ text: String) -> ParseError? {
        let count = text.utf8.count
        if count == 0 {
            return ParseError(.accountID, .empty, input: text, reason: "an account id has at least one character")
        }
        if count > maximumBytes {
            return ParseError(.accountID, .wrongLength, input: text, reason: "\(count) bytes of UTF-8; an account id has at most \(maximumBytes)")
        }
        var position = 0
        for scalar in text.unicodeScalars {
            position += 1
            if scalar.value < 0x20 || scalar.value == 0x7F || (0x80...0x9F).contains(scalar.value) {
                return ParseError(
                    .accountID, .invalidCharacter, input: text,
                    reason: "\(describeCharacter(scalar)) at position \(position) is a control character")
            }
        }
        return nil
    }

    /// The identifier's text, exactly as given: its one text form (what a store holds); ``init(_:)``
    /// reads it back.
    public var description: String { rawValue }

    /// Whether two identifiers have the same UTF-8 bytes.
    public static func == (lhs: AccountID, rhs: AccountID) -> Bool {
        lhs.withUTF8 { left in rhs.withUTF8 { right in left.elementsEqual(right) } }
    }

    /// Hashes the UTF-8 bytes.
    /// - Parameter hasher: The hasher.
    public func hash(into hasher: inout Hasher) {
        // One call over the contiguous bytes (a byte at a time cost a Hasher call each).
        withUTF8 { bytes in
            hasher.combine(bytes.count)
            hasher.combine(bytes: UnsafeRawBufferPointer(bytes))
        }
    }

    /// Orders identifiers by their UTF-8 bytes (code point order, as PostgreSQL's `C` collation does).
    public static func < (lhs: AccountID, rhs: AccountID) -> Bool {
        lhs.withUTF8 { left in rhs.withUTF8 { right in left.lexicographicallyPrecedes(right) } }
    }

    /// Runs `body` over the identifier's UTF-8 bytes in one buffer: comparing and hashing a buffer is a
    /// loop over bytes, where `String.UTF8View`'s iterator cost a call per byte.
    private func withUTF8<T>(_ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
        var text = rawValue
        return text.withUTF8(body)
    }
}
