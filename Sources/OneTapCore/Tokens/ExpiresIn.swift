/// A token lifetime as a provider reports it: `expiresIn` / `atExpiresIn`, a number of seconds that
/// arrives as a JSON number or, from Tianyi's refresh API, as a numeric string.
public struct ExpiresIn: Hashable, Sendable, CustomStringConvertible {
    /// The lifetime in seconds, 1 ... ``maximum``.
    public let seconds: Int64

    /// The longest lifetime accepted: ten years. Anything longer is a malformed response.
    package static let maximum: Int64 = 10 * 366 * 86_400

    /// Creates a lifetime.
    /// - Parameter seconds: 1 ... ``maximum``.
    /// - Throws: ``ParseError`` of kind `out-of-range` for zero, negative or absurdly long lifetimes.
    public init(seconds: Int64) throws(ParseError) {
        guard seconds >= 1, seconds <= Self.maximum else {
            throw ParseError(
                .seconds, .outOfRange, input: String(seconds),
                reason: "a token lifetime is 1 to \(Self.maximum) seconds (ten years)")
        }
        self.seconds = seconds
    }

    /// Parses a lifetime given as text: ASCII digits, optional surrounding whitespace.
    /// - Parameter text: The value, e.g. `"2592000"`.
    /// - Throws: ``ParseError`` with subject `seconds` naming the input.
    package init(_ text: String) throws(ParseError) {
        let trimmed = text.trimmingASCIIWhitespace()
        guard !trimmed.isEmpty else { throw ParseError(.seconds, .empty, input: text, reason: "no seconds") }
        if trimmed.hasPrefix("-"), trimmed.utf8.count > 1, trimmed.utf8.dropFirst().allSatisfy({ $0 &- 48 < 10 }) {
            throw ParseError(.seconds, .outOfRange, input: text, reason: "a token lifetime is 1 to \(Self.maximum) seconds (ten years)")
        }
        if let error = firstBadCharacterError(.seconds, in: trimmed, allowed: { ("0"..."9").contains($0) }) {
            throw ParseError(.seconds, error.kind, input: text, reason: "a lifetime is a whole number of seconds in ASCII digits")
        }
        guard trimmed.utf8.count <= 18, let seconds = Int64(trimmed) else {
            throw ParseError(.seconds, .outOfRange, input: text, reason: "a token lifetime is 1 to \(Self.maximum) seconds (ten years)")
        }
        do {
            try self.init(seconds: seconds)
        } catch {
            throw ParseError(.seconds, error.kind, input: text, reason: error.reason)
        }
    }

    /// A readable form, for messages and logs.
    public var description: String { "\(seconds)s" }
}

extension ExpiresIn: JSONReadable {
    /// Reads a JSON integer or a numeric string (Tianyi's refresh answer sends `"2592000"`).
    /// - Parameter reader: The reader, at the value.
    /// - Throws: ``JSONReadError``: invalid for another kind of value (`null` included) and for a number or text
    ///   that is no lifetime (``read(_:)`` says why).
    package init(reading reader: inout JSONReader) throws(JSONReadError) {
        let kind = try reader.peek()
        guard kind == .number || kind == .string else { throw reader.invalid("a lifetime is a number of seconds") }
        switch try Self.read(&reader) {
        case .success(let value)?: self = value
        case .failure(let error)?: throw reader.invalid(error.description)
        case nil: throw reader.invalid("a lifetime is a number of seconds, not null")
        }
    }

    /// Reads a lifetime's value whatever JSON value it is, saying why one is no lifetime rather than throwing, so the
    /// rest of the document can still be read (a refresh answer's rotated refresh token, beside an `expiresIn` of
    /// `7200.0` or `"soon"`): the one reading of a lifetime.
    /// - Parameter reader: The reader, at the value; past it after.
    /// - Returns: The lifetime, or why the value is none (a fraction or an exponent, a negative, zero or over-long
    ///   number, text that is no number, `true`, an array or an object); nil for `null`.
    /// - Throws: ``JSONReadError`` only for text that is not JSON.
    package static func read(_ reader: inout JSONReader) throws(JSONReadError) -> Result<ExpiresIn, ParseError>? {
        let whole = "a lifetime is a whole number of seconds"
        switch try reader.peek() {
        case .null:
            _ = try reader.null()
            return nil
        case .string:
            let text = try reader.string()
            return Result { () throws(ParseError) in try ExpiresIn(text) }
        case .number:
            var probe = reader
            do {
                let text = try probe.integerText()
                reader = probe
                return Result { () throws(ParseError) in try ExpiresIn(text) }
            } catch {
                try reader.skipValue()  // a fraction or an exponent; text that is no JSON number throws here
                return .failure(ParseError(.seconds, .malformed, input: "a fraction or an exponent", reason: whole))
            }
        case .bool, .array, .object:
            try reader.skipValue()
            return .failure(ParseError(.seconds, .malformed, input: "not a number", reason: whole))
        }
    }
}
