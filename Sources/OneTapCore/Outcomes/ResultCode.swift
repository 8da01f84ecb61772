/// A result code a carrier SDK or gateway returned, normalised: `"103000"`, `103000` and `" 103000 "` are
/// the same code, as are `"-8994014"` and `-8994014`.
public struct ResultCode: Hashable, Sendable, Comparable, Codable, CustomStringConvertible, ExpressibleByIntegerLiteral {
    /// The code's value.
    public let value: Int64

    /// Creates a code from its value.
    /// - Parameter value: The code, as the SDK reports it.
    public init(_ value: Int64) { self.value = value }

    /// Creates a code from an integer literal: `let code: ResultCode = 103000`.
    /// - Parameter value: The code.
    public init(integerLiteral value: Int64) { self.value = value }

    /// Parses a code from text: optional surrounding whitespace, an optional `-`, ASCII digits (leading
    /// zeros allowed: `"000"` is 0).
    /// - Parameter text: The code as reported.
    /// - Throws: ``ParseError`` with subject `result code`: `empty`, `invalid-character`,
    ///   `non-ascii-digit`, `out-of-range` (beyond 64 bits), `malformed`.
    /// - Complexity: O(*n*); no allocation unless it throws.
    public init(_ text: String) throws(ParseError) {
        let parsed = text.withUTF8Bytes { ResultCode.parse($0) }
        guard let parsed else { throw ResultCode.diagnose(text) }
        self.init(parsed)
    }

    /// The decimal text, e.g. `"-8994014"`. It parses back to the same code.
    public var description: String { String(value) }

    /// Orders values by their numbers (stable, for sorting).
    public static func < (lhs: ResultCode, rhs: ResultCode) -> Bool { lhs.value < rhs.value }

    /// Decodes a JSON number or a string holding one.
    /// - Parameter decoder: The decoder.
    /// - Throws: `DecodingError` when the value is neither, or the string is not a code.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int64.self) {
            self.init(number)
            return
        }
        let text = try container.decode(String.self)
        do {
            try self.init(text)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }

    /// Encodes the code as a JSON number.
    /// - Parameter encoder: The encoder.
    /// - Throws: What the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }

    @inline(__always)
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        var start = 0
        var end = bytes.count
        while start < end, PLMN.isSpace(bytes[start]) { start += 1 }
        while end > start, PLMN.isSpace(bytes[end - 1]) { end -= 1 }
        guard start < end else { return nil }
        let negative = bytes[start] == UInt8(ascii: "-")
        if negative { start += 1 }
        guard start < end else { return nil }
        var magnitude: UInt64 = 0
        for index in start..<end {
            let digit = bytes[index] &- 48
            guard digit < 10 else { return nil }
            let (times10, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(digit))
            guard !overflow1, !overflow2 else { return nil }
            magnitude = sum
        }
        if negative {
            guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
            return magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
        }
        guard magnitude <= UInt64(Int64.max) else { return nil }
        return Int64(magnitude)
    }

    static func diagnose(_ text: String) -> ParseError {
        let trimmed = text.trimmingASCIIWhitespace()
        if trimmed.isEmpty {
            return ParseError(.resultCode, .empty, input: text, reason: "no code")
        }
        let body = trimmed.hasPrefix("-") ? String(trimmed.dropFirst()) : trimmed
        if body.isEmpty {
            return ParseError(.resultCode, .malformed, input: text, reason: "a sign with no digits")
        }
        if let error = firstBadCharacterError(.resultCode, in: body, allowed: { ("0"..."9").contains($0) }) {
            return ParseError(.resultCode, error.kind, input: text, reason: error.reason + " (a code is an optional '-' and ASCII digits)")
        }
        return ParseError(.resultCode, .outOfRange, input: text, reason: "does not fit in 64 bits")
    }
}
