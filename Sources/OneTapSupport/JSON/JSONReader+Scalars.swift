// The scalars ``JSONReader`` reads: keys, strings, numbers, `true`/`false`/`null`, each checked against
// the grammar both readers share (``JSONGrammar``).

extension JSONReader {
    /// Reads an object's key, making a `String` only when it holds an escape.
    @inlinable
    mutating func key() throws(JSONReadError) -> JSONKey {
        let quote = index
        index += 1
        guard let (end, ascii) = try scanToQuote() else {
            index = quote
            return try escapedKey()
        }
        let utf8 = UnsafeBufferPointer(rebasing: bytes[index..<end])
        guard ascii || Self.isUTF8(utf8) else { throw corrupt("a key that is not UTF-8") }
        index = end + 1
        return JSONKey(utf8: utf8)
    }

    /// Reads a key that holds an escape (rare: no writer of ours escapes a key), from its opening quote,
    /// into ``EscapedKeys``.
    @usableFromInline
    mutating func escapedKey() throws(JSONReadError) -> JSONKey {
        let text = try string()
        let storage = escapedKeys ?? EscapedKeys()
        escapedKeys = storage
        return JSONKey(utf8: storage.keep(text))
    }

    /// From just after a string's opening quote: where its closing quote is, and whether every byte
    /// before it is ASCII; nil when an escape comes first.
    @inlinable @inline(__always)
    func scanToQuote() throws(JSONReadError) -> (end: Int, ascii: Bool)? {
        var position = index
        var high: UInt8 = 0
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") { return (position, high < 0x80) }
            if byte == UInt8(ascii: "\\") { return nil }
            if byte < 0x20 { throw corrupt("a control character in a string (JSON escapes them)", atByte: position) }
            high |= byte
            position += 1
        }
        throw corrupt("a string that never ends")
    }

    /// Reads a string.
    /// - Returns: The text, escapes resolved.
    /// - Throws: `JSONReadError` when the next value is no string, or is not valid (a control
    ///   character, a bad escape, a lone surrogate, bytes that are not UTF-8, no closing quote).
    /// - Complexity: O(*n*) in its length.
    @inlinable
    package mutating func string() throws(JSONReadError) -> String {
        skipSpace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw mismatch(.string) }
        index += 1
        guard let (end, ascii) = try scanToQuote() else { return try escapedString() }
        let utf8 = UnsafeBufferPointer(rebasing: bytes[index..<end])
        let text: String
        if ascii {
            text = String(decoding: utf8, as: UTF8.self)
        } else {
            guard let valid = String(validating: utf8, as: UTF8.self) else { throw corrupt("a string that is not UTF-8") }
            text = valid
        }
        index = end + 1
        return text
    }

    /// Reads a string that holds no escape as its bytes in the input, without making a `String`.
    /// - Returns: The bytes (valid while the reader reads), or nil, reading nothing, when the string
    ///   holds an escape (read it with ``string()``).
    /// - Throws: `JSONReadError` when the next value is no string, or is not valid.
    @inlinable
    package mutating func plainString() throws(JSONReadError) -> UnsafeBufferPointer<UInt8>? {
        skipSpace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw mismatch(.string) }
        index += 1
        guard let (end, ascii) = try scanToQuote() else {
            index -= 1
            return nil
        }
        let utf8 = UnsafeBufferPointer(rebasing: bytes[index..<end])
        guard ascii || Self.isUTF8(utf8) else { throw corrupt("a string that is not UTF-8") }
        index = end + 1
        return utf8
    }

    /// Whether bytes that are not all ASCII are UTF-8.
    @usableFromInline
    static func isUTF8(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool { String(validating: utf8, as: UTF8.self) != nil }

    /// A string that holds an escape, from just after its opening quote: its end found and its escapes
    /// resolved by the grammar both readers share (``JSONGrammar``).
    @usableFromInline
    mutating func escapedString() throws(JSONReadError) -> String {
        let end: Int
        do {
            end = try JSONGrammar.string(in: bytes, from: index).end
        } catch {
            index = error.at
            throw corrupt(error.problem.message)
        }
        var out: [UInt8] = []
        out.reserveCapacity(end - index)
        guard JSONGrammar.unescape(UnsafeBufferPointer(rebasing: bytes[index..<end]), repairing: false, { out.append($0) }) else {
            throw corrupt("a lone surrogate in a string")
        }
        guard let text = out.withUnsafeBufferPointer({ String(validatingUTF8Fast: $0) }) else { throw corrupt("a string that is not UTF-8") }
        index = end + 1
        return text
    }

    /// Reads an integer, written without a fraction or an exponent.
    /// - Returns: The integer.
    /// - Throws: `JSONReadError` when the next value is no number, is not an integer, or is out of
    ///   `Int`'s range.
    @inlinable
    package mutating func int() throws(JSONReadError) -> Int {
        skipSpace()
        guard index < bytes.count, Self.kind(startedBy: bytes[index]) == .number else { throw mismatch(.integer) }
        let (range, integral) = try numberRange()
        guard integral else { throw corrupt("expected an integer, found a fraction or an exponent") }
        var position = range.lowerBound
        let negative = bytes[position] == UInt8(ascii: "-")
        if negative { position += 1 }
        var value = 0
        while position < range.upperBound {
            let digit = Int(bytes[position] - UInt8(ascii: "0"))
            let (shifted, overflow) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = negative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
            guard !overflow, !overflow2 else { throw corrupt("an integer out of range") }
            value = next
            position += 1
        }
        return value
    }

    /// Reads an integer, written without a fraction or an exponent.
    /// - Returns: The integer.
    /// - Throws: `JSONReadError` when the next value is no number, is not an integer, or is out of
    ///   `Int64`'s range.
    @inlinable @inline(__always)
    package mutating func int64() throws(JSONReadError) -> Int64 { Int64(try int()) }

    /// Reads an unsigned integer, written without a sign, a fraction or an exponent (a token's version).
    /// - Returns: The integer.
    /// - Throws: `JSONReadError` when the next value is no number, is not such an integer, or is out of
    ///   `UInt64`'s range.
    package mutating func uint64() throws(JSONReadError) -> UInt64 {
        skipSpace()
        guard index < bytes.count, Self.kind(startedBy: bytes[index]) == .number else { throw mismatch(.integer) }
        let (range, integral) = try numberRange()
        guard integral else { throw corrupt("expected an integer, found a fraction or an exponent") }
        guard bytes[range.lowerBound] != UInt8(ascii: "-") else { throw corrupt("an integer out of range (below 0)") }
        var value: UInt64 = 0
        for position in range {
            let (shifted, overflow) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = shifted.addingReportingOverflow(UInt64(bytes[position] - UInt8(ascii: "0")))
            guard !overflow, !overflow2 else { throw corrupt("an integer out of range") }
            value = next
        }
        return value
    }

    /// Reads an integer as it is written (a vendor's id past a `Double`'s exact range, 117270465679982592).
    /// - Returns: Its text: an optional minus sign and the digits.
    /// - Throws: `JSONReadError` when the next value is no number, or has a fraction or an exponent.
    /// - Complexity: O(*n*) in its length.
    package mutating func integerText() throws(JSONReadError) -> String {
        skipSpace()
        guard index < bytes.count, Self.kind(startedBy: bytes[index]) == .number else { throw mismatch(.integer) }
        let (range, integral) = try numberRange()
        guard integral else { throw corrupt("expected an integer, found a fraction or an exponent") }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    /// Reads a number.
    /// - Returns: The nearest `Double`.
    /// - Throws: `JSONReadError` when the next value is no number, or is beyond `Double`'s range.
    package mutating func double() throws(JSONReadError) -> Double {
        skipSpace()
        guard index < bytes.count, Self.kind(startedBy: bytes[index]) == .number else { throw mismatch(.number) }
        let (range, integral) = try numberRange()
        // Fast path: an integer of at most 15 digits is a Double exactly.
        if integral, range.count <= 15 {
            var value = 0
            var position = range.lowerBound
            let negative = bytes[position] == UInt8(ascii: "-")
            if negative { position += 1 }
            while position < range.upperBound {
                value = value * 10 + Int(bytes[position] - UInt8(ascii: "0"))
                position += 1
            }
            if negative { return value == 0 ? -0.0 : -Double(value) }
            return Double(value)
        }
        let digits = UnsafeBufferPointer(rebasing: bytes[range])
        guard let value = Double(String(decoding: digits, as: UTF8.self)), value.isFinite else { throw corrupt("a number beyond a Double's range") }
        // Too small for a Double reads as 0 (`1e-400`): refused, as JSONDecoder refuses it, unless it is 0.
        if value == 0, digits.prefix(while: { $0 != UInt8(ascii: "e") && $0 != UInt8(ascii: "E") }).contains(where: { $0 &- UInt8(ascii: "1") < 9 }) {
            throw corrupt("a number beyond a Double's range (too small)")
        }
        return value
    }

    /// Reads `true` or `false`.
    /// - Returns: The value.
    /// - Throws: `JSONReadError` when the next value is neither.
    package mutating func bool() throws(JSONReadError) -> Bool {
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "t") {
            try literal("true")
            return true
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "f") {
            try literal("false")
            return false
        }
        throw mismatch(.boolean)
    }

    /// Reads a `null` if one comes next.
    /// - Returns: Whether it did.
    /// - Throws: `JSONReadError` (corrupt) for an `n` that does not start `null`.
    @inlinable
    package mutating func null() throws(JSONReadError) -> Bool {
        skipSpace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "n") else { return false }
        try literal("null")
        return true
    }

    @inlinable
    mutating func literal(_ word: StaticString) throws(JSONReadError) {
        guard startsWith(word) else { throw corrupt("not JSON: expected \(word)") }
        index += word.utf8CodeUnitCount
    }

    /// Scans a number's syntax (RFC 8259 §6) from here, by the grammar both readers share.
    /// - Returns: Its bytes, and whether it has neither fraction nor exponent.
    @usableFromInline
    mutating func numberRange() throws(JSONReadError) -> (Range<Int>, integral: Bool) {
        skipSpace()
        let start = index
        do {
            let (end, integral) = try JSONGrammar.number(in: bytes, from: start)
            index = end
            return (start..<end, integral)
        } catch {
            index = error.at
            throw corrupt(error.problem.message)
        }
    }

    @inlinable @inline(__always)
    mutating func skipSpace() { index = JSONGrammar.endOfSpace(in: bytes, from: index) }
}
