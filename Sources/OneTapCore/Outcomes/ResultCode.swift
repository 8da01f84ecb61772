/// A result code exactly as a carrier SDK or gateway gave it, after trimming surrounding whitespace:
/// `"103000"`, `"-8994014"`, and China Mobile's legacy `"000"`, which is not `"0"` (a numeric code keeps
/// its leading zeros). Codes are text because SDKs hand them over as text, and `"000"` and `"0"` mean
/// different things to different SDKs.
///
/// A code is 1 to 64 bytes of UTF-8 without control characters. Codes up to 15 bytes (every carrier
/// code known) are stored inline, so making, comparing and classifying one never allocates.
public struct ResultCode: Hashable, Sendable, Comparable, CustomStringConvertible, ExpressibleByStringLiteral,
    ExpressibleByIntegerLiteral
{
    /// The code's text, trimmed.
    package let text: String

    /// The longest code accepted, in UTF-8 bytes: 64.
    package static let maximumBytes = 64

    /// Reads a code as an SDK reported it.
    /// - Parameter text: The code; surrounding whitespace is ignored.
    /// - Throws: ``ParseError`` with subject `result code`: `empty`, `wrong-length` (over 64 bytes) or
    ///   `invalid-character` (a control character).
    /// - Complexity: O(*n*); no allocation for codes of up to 15 bytes unless it throws.
    public init(_ text: String) throws(ParseError) {
        guard let code = text.withUTF8Bytes({ ResultCode.parse($0) }) else { throw ResultCode.diagnose(text) }
        self = code
    }

    /// Creates a code from a literal written in code: `"103000"`.
    /// - Parameter value: The code.
    /// - Precondition: The literal is a valid code.
    public init(stringLiteral value: String) {
        guard let code = value.withUTF8Bytes({ ResultCode.parse($0) }) else { preconditionFailure("\(ResultCode.diagnose(value))") }
        self = code
    }

    /// Creates a numeric code from an integer literal: `103000`, `-8994014` (written without leading zeros).
    /// - Parameter value: The code.
    public init(integerLiteral value: Int64) {
        text = String(value)
    }

    /// Parses a code as ``init(_:)`` does, without building an error.
    /// - Parameter text: The code.
    /// - Returns: Nil for text ``init(_:)`` refuses.
    package init?(parsing text: String) {
        guard let code = text.withUTF8Bytes({ ResultCode.parse($0) }) else { return nil }
        self = code
    }

    private init(trimmed: String) { text = trimmed }

    /// The code's text, trimmed: its one text form; ``init(_:)`` reads it back.
    public var description: String { text }

    /// Whether the code is an optional `-` and ASCII digits.
    package var isNumeric: Bool {
        var bytes = text.utf8[...]
        if bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        return !bytes.isEmpty && bytes.allSatisfy { $0 &- 48 < 10 }
    }

    /// Orders codes by their text (stable, for sorting).
    /// - Parameters:
    ///   - lhs: A code.
    ///   - rhs: Another.
    /// - Returns: Whether `lhs` comes first.
    public static func < (lhs: ResultCode, rhs: ResultCode) -> Bool { lhs.text.utf8.lexicographicallyPrecedes(rhs.text.utf8) }

    /// The range of `bytes` without surrounding spaces, for a lookup: no validation, since text with a
    /// control character or over the limit matches no row of a table anyway.
    @inline(__always)
    package static func spaceTrimmed(_ bytes: UnsafeBufferPointer<UInt8>) -> Range<Int> {
        var start = 0
        var end = bytes.count
        while start < end, PLMN.isSpace(bytes[start]) { start &+= 1 }
        while end > start, PLMN.isSpace(bytes[end &- 1]) { end &-= 1 }
        return start..<end
    }

    /// The trimmed range of a code's bytes, or nil when the bytes are not a code.
    @inline(__always)
    package static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        var start = 0
        var end = bytes.count
        while start < end, PLMN.isSpace(bytes[start]) { start &+= 1 }
        while end > start, PLMN.isSpace(bytes[end &- 1]) { end &-= 1 }
        guard start < end, end &- start <= maximumBytes else { return nil }
        for index in start..<end {
            let byte = bytes[index]
            if byte < 0x20 || byte == 0x7F { return nil }
        }
        // C1 control characters (U+0080 ... U+009F) are two bytes in UTF-8: C2 80 ... C2 9F.
        var index = start
        while index &+ 1 < end {
            if bytes[index] == 0xC2, bytes[index &+ 1] >= 0x80, bytes[index &+ 1] <= 0x9F { return nil }
            index &+= 1
        }
        return start..<end
    }

    @inline(__always)
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> ResultCode? {
        guard let range = trimmed(bytes) else { return nil }
        // A small string (up to 15 bytes) is stored inline.
        return String(validatingUTF8Fast: UnsafeBufferPointer(rebasing: bytes[range])).map { ResultCode(trimmed: $0) }
    }

    static func diagnose(_ text: String) -> ParseError {
        let trimmed = text.trimmingASCIIWhitespace()
        if trimmed.isEmpty {
            return ParseError(.resultCode, .empty, input: text, reason: "no code")
        }
        if trimmed.utf8.count > maximumBytes {
            return ParseError(.resultCode, .wrongLength, input: text, reason: "\(trimmed.utf8.count) bytes; a result code has at most \(maximumBytes)")
        }
        if let error = firstBadCharacterError(.resultCode, in: trimmed, allowed: { !($0.value < 0x20 || $0.value == 0x7F || (0x80...0x9F).contains($0.value)) }) {
            return ParseError(.resultCode, error.kind, input: text, reason: error.reason + " (a code holds no control characters)")
        }
        return ParseError(.resultCode, .malformed, input: text, reason: "not valid UTF-8")
    }
}
