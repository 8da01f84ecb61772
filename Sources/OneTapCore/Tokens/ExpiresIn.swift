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
    /// - Throws: ``JSONReadError``: a mismatch for another kind of value, corrupt for a number that is no
    ///   lifetime.
    package init(reading reader: inout JSONReader) throws(JSONReadError) {
        let read: Result<ExpiresIn, ParseError>
        if try reader.peek() == .number {
            let seconds = try reader.int64()
            read = Result { () throws(ParseError) in try ExpiresIn(seconds: seconds) }
        } else {
            let text = try reader.string()
            read = Result { () throws(ParseError) in try ExpiresIn(text) }
        }
        switch read {
        case .success(let value): self = value
        case .failure(let error): throw reader.invalid(error.description)
        }
    }
}
