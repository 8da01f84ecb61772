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

    /// The identifier as event lines write it: a mainland mobile number in it masked (`138****8000`), as in every
    /// event's text form, since many apps make the user's number the account id and no event holds a whole number.
    package var inEvents: String { PhoneNumber.maskingNumbers(in: rawValue) }

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
        var copy = text
        guard let control = copy.withUTF8(firstControl) else { return nil }
        // The control character's scalar, and its position counted in scalars (1-based), for the message.
        let scalars = text.unicodeScalars
        let index = text.utf8.index(text.utf8.startIndex, offsetBy: control)
        let position = scalars.distance(from: scalars.startIndex, to: index) + 1
        return ParseError(
            .accountID, .invalidCharacter, input: text,
            reason: "\(describeCharacter(scalars[index])) at position \(position) is a control character")
    }

    /// The rule on an id's characters, over its UTF-8: the offset of the first control character (C0, DEL, or
    /// C1, U+0080 to U+009F, which UTF-8 writes as 0xC2 and a byte from 0x80 to 0x9F), or nil when there is none.
    /// - Parameter utf8: Valid UTF-8.
    /// - Returns: The byte offset where the control character starts.
    /// - Complexity: O(*n*), a byte at a time; no allocation.
    private static func firstControl(_ utf8: UnsafeBufferPointer<UInt8>) -> Int? {
        var lead = false  // the byte before was 0xC2, the lead byte of U+0080 to U+00BF
        for (offset, byte) in utf8.enumerated() {
            if byte < 0x20 || byte == 0x7F { return offset }
            if lead && byte <= 0x9F { return offset - 1 }
            lead = byte == 0xC2
        }
        return nil
    }

    /// An identifier from UTF-8 bytes, or nil for bytes that are not valid UTF-8 or not an identifier (as
    /// ``init(_:)`` refuses them, without building its error): the access-token verifier's path.
    /// - Parameter utf8: The bytes.
    /// - Complexity: O(*n*); one allocation for an id of more than 15 bytes, none otherwise.
    package init?(utf8: UnsafeBufferPointer<UInt8>) {
        guard (1...Self.maximumBytes).contains(utf8.count), Self.firstControl(utf8) == nil,
              let text = String(validating: utf8, as: UTF8.self)
        else { return nil }
        rawValue = text
    }

    /// The identifier's text, exactly as given: its one text form (what a store holds); ``init(_:)``
    /// reads it back.
    public var description: String { rawValue }

    /// Whether two identifiers have the same UTF-8 bytes.
    /// - Parameters:
    ///   - lhs: An identifier.
    ///   - rhs: Another.
    /// - Returns: Whether their bytes are the same.
    public static func == (lhs: AccountID, rhs: AccountID) -> Bool {
        lhs.withUTF8 { left in rhs.withUTF8 { right in sameBytes(left, right) } }
    }

    /// Whether two buffers hold the same bytes: the counts first, then eight bytes at a time (a loop over
    /// single bytes cost a comparison each).
    /// - Complexity: O(*n*); no allocation.
    private static func sameBytes(_ left: UnsafeBufferPointer<UInt8>, _ right: UnsafeBufferPointer<UInt8>) -> Bool {
        let count = left.count
        guard count == right.count else { return false }
        guard count > 0, let a = left.baseAddress, let b = right.baseAddress, a != b else { return true }
        let x = UnsafeRawPointer(a), y = UnsafeRawPointer(b)
        var offset = 0
        while offset + 8 <= count {
            if x.loadUnaligned(fromByteOffset: offset, as: UInt64.self) != y.loadUnaligned(fromByteOffset: offset, as: UInt64.self) { return false }
            offset += 8
        }
        while offset < count {
            if a[offset] != b[offset] { return false }
            offset += 1
        }
        return true
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
    /// - Parameters:
    ///   - lhs: An identifier.
    ///   - rhs: Another.
    /// - Returns: Whether `lhs` comes first.
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
