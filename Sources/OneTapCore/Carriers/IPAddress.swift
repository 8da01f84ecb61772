/// An IPv4 or IPv6 address, as the server saw the client's connection.
///
/// Parses dotted-quad IPv4 (`10.0.0.1`, no leading zeros) and IPv6 in every RFC 4291 form (`2409:8900::1`,
/// embedded IPv4 `::ffff:10.0.0.1`); ``description`` writes the RFC 5952 canonical form, which parses back
/// to the same address. Zone ids (`%eth0`), brackets and ports are not part of an address and are refused.
public enum IPAddress: Hashable, Sendable, CustomStringConvertible {
    /// An IPv4 address, most significant byte first.
    case v4(UInt32)
    /// An IPv6 address: the high and low 64 bits, most significant first.
    case v6(high: UInt64, low: UInt64)

    /// Parses an address.
    /// - Parameter text: The address; surrounding whitespace is ignored.
    /// - Throws: ``ParseError`` with subject `IP address`: `empty`, `invalid-character`,
    ///   `non-ascii-digit`, `out-of-range`, `malformed`.
    /// - Complexity: O(*n*); no allocation unless it throws.
    public init(_ text: String) throws(ParseError) {
        let parsed = text.withUTF8Bytes { IPAddress.parse($0) }
        guard let parsed else { throw IPAddress.diagnose(text) }
        self = parsed
    }

    /// Whether this is an IPv6 address.
    package var isIPv6: Bool {
        if case .v6 = self { return true }
        return false
    }

    /// The IPv4 address inside an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`, how a dual-stack socket
    /// reports an IPv4 client), or the address itself when it is IPv4; nil for other IPv6 addresses.
    package var ipv4: UInt32? {
        switch self {
        case .v4(let value): return value
        case .v6(let high, let low):
            return high == 0 && low >> 32 == 0xFFFF ? UInt32(truncatingIfNeeded: low) : nil
        }
    }

    /// The RFC 5952 canonical text: lowercase hex, the longest run of two or more zero groups written
    /// `::`, IPv4-mapped addresses with a dotted quad.
    public var description: String {
        switch self {
        case .v4(let value):
            return Self.dottedQuad(value)
        case .v6(let high, let low):
            let groups = (0..<8).map { index -> UInt16 in
                let word = index < 4 ? high : low
                return UInt16(truncatingIfNeeded: word >> (48 - 16 * UInt64(index % 4)))
            }
            if high == 0, low >> 32 == 0xFFFF {
                return "::ffff:" + Self.dottedQuad(UInt32(truncatingIfNeeded: low))
            }
            var bestStart = -1, bestLength = 1
            var index = 0
            while index < 8 {
                if groups[index] == 0 {
                    var end = index
                    while end < 8, groups[end] == 0 { end += 1 }
                    if end - index > bestLength { bestStart = index; bestLength = end - index }
                    index = end
                } else {
                    index += 1
                }
            }
            func hex(_ range: Range<Int>) -> String {
                range.map { String(groups[$0], radix: 16) }.joined(separator: ":")
            }
            if bestStart < 0 { return hex(0..<8) }
            return hex(0..<bestStart) + "::" + hex((bestStart + bestLength)..<8)
        }
    }

    private static func dottedQuad(_ value: UInt32) -> String {
        "\(value >> 24).\(value >> 16 & 0xFF).\(value >> 8 & 0xFF).\(value & 0xFF)"
    }

    // MARK: Parsing

    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> IPAddress? {
        var start = 0
        var end = bytes.count
        while start < end, PLMN.isSpace(bytes[start]) { start += 1 }
        while end > start, PLMN.isSpace(bytes[end - 1]) { end -= 1 }
        guard end > start, end - start <= 45 else { return nil }
        var hasColon = false
        for index in start..<end where bytes[index] == UInt8(ascii: ":") {
            hasColon = true
            break
        }
        if !hasColon {
            return parseIPv4(bytes, start, end).map { .v4($0) }
        }
        return parseIPv6(bytes, start, end)
    }

    private static func parseIPv4(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> UInt32? {
        var value: UInt32 = 0
        var parts = 0
        var index = start
        while parts < 4 {
            var part: UInt32 = 0
            var digits = 0
            let first = index
            while index < end, bytes[index] &- 48 < 10 {
                part = part * 10 + UInt32(bytes[index] &- 48)
                digits += 1
                index += 1
                if digits > 3 { return nil }
            }
            guard digits > 0, part <= 255, !(digits > 1 && bytes[first] == UInt8(ascii: "0")) else { return nil }
            value = value << 8 | part
            parts += 1
            if parts < 4 {
                guard index < end, bytes[index] == UInt8(ascii: ".") else { return nil }
                index += 1
            }
        }
        return index == end ? value : nil
    }

    private static func hexValue(_ byte: UInt8) -> UInt16? {
        switch byte {
        case 48...57: UInt16(byte - 48)
        case 97...102: UInt16(byte - 87)
        case 65...70: UInt16(byte - 55)
        default: nil
        }
    }

    private static func parseIPv6(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> IPAddress? {
        var groups: (UInt16, UInt16, UInt16, UInt16, UInt16, UInt16, UInt16, UInt16) = (0, 0, 0, 0, 0, 0, 0, 0)
        return withUnsafeMutableBytes(of: &groups) { raw -> IPAddress? in
            let groups = raw.bindMemory(to: UInt16.self)
            var count = 0
            var gap = -1  // where "::" stands, as a group index
            var index = start
            if bytes[index] == UInt8(ascii: ":") {
                guard index + 1 < end, bytes[index + 1] == UInt8(ascii: ":") else { return nil }
                gap = 0
                index += 2
            }
            while index < end {
                // An embedded IPv4 address ends the text.
                var probe = index
                while probe < end, hexValue(bytes[probe]) != nil { probe += 1 }
                if probe < end, bytes[probe] == UInt8(ascii: ".") {
                    guard count <= 6, let v4 = parseIPv4(bytes, index, end) else { return nil }
                    groups[count] = UInt16(v4 >> 16)
                    groups[count + 1] = UInt16(v4 & 0xFFFF)
                    count += 2
                    index = end
                    break
                }
                var group: UInt16 = 0
                var digits = 0
                while index < end, let digit = hexValue(bytes[index]) {
                    group = group << 4 | digit
                    digits += 1
                    index += 1
                    if digits > 4 { return nil }
                }
                guard digits > 0, count < 8 else { return nil }
                groups[count] = group
                count += 1
                if index == end { break }
                guard bytes[index] == UInt8(ascii: ":") else { return nil }
                index += 1
                if index < end, bytes[index] == UInt8(ascii: ":") {
                    guard gap < 0 else { return nil }
                    gap = count
                    index += 1
                } else if index == end {
                    return nil  // a single trailing colon
                }
            }
            if gap >= 0 {
                guard count < 8 else { return nil }
                let tail = count - gap
                for offset in 0..<tail {
                    groups[7 - offset] = groups[count - 1 - offset]
                }
                for fill in gap..<(8 - tail) { groups[fill] = 0 }
            } else {
                guard count == 8 else { return nil }
            }
            var high: UInt64 = 0, low: UInt64 = 0
            for index in 0..<4 { high = high << 16 | UInt64(groups[index]) }
            for index in 4..<8 { low = low << 16 | UInt64(groups[index]) }
            return .v6(high: high, low: low)
        }
    }

    /// Says why `text` is not an address. Only called when the fast path refused it.
    static func diagnose(_ text: String) -> ParseError {
        let trimmed = text.trimmingASCIIWhitespace()
        if trimmed.isEmpty {
            return ParseError(.ipAddress, .empty, input: text, reason: "no address")
        }
        if trimmed.contains("%") {
            return ParseError(.ipAddress, .invalidCharacter, input: text, reason: "a zone id (%…) is not part of an address the server sees")
        }
        if trimmed.hasPrefix("[") {
            return ParseError(.ipAddress, .invalidCharacter, input: text, reason: "brackets and ports are not part of an address; give the bare address")
        }
        let hex = Set("0123456789abcdefABCDEF.:".unicodeScalars)
        if let error = firstBadCharacterError(.ipAddress, in: trimmed, allowed: { hex.contains($0) }) {
            return ParseError(.ipAddress, error.kind, input: text, reason: error.reason)
        }
        if trimmed.utf8.count > 45 {
            return ParseError(.ipAddress, .malformed, input: text, reason: "longer than any address (45 characters)")
        }
        if !trimmed.contains(":") {
            let parts = trimmed.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 4 else {
                return ParseError(.ipAddress, .malformed, input: text, reason: "an IPv4 address has 4 parts, this has \(parts.count)")
            }
            for part in parts {
                guard !part.isEmpty, part.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                    return ParseError(.ipAddress, .malformed, input: text, reason: "IPv4 part \(QuotedInput(String(part))) is not a decimal number")
                }
                if part.count > 1, part.hasPrefix("0") {
                    return ParseError(.ipAddress, .malformed, input: text, reason: "IPv4 part \(part) has a leading zero (ambiguous: octal or decimal)")
                }
                if part.count > 3 || Int(part)! > 255 {
                    return ParseError(.ipAddress, .outOfRange, input: text, reason: "IPv4 part \(part) is above 255")
                }
            }
            return ParseError(.ipAddress, .malformed, input: text, reason: "not a dotted-quad IPv4 address")
        }
        var doubleColons = 0
        var previous: Unicode.Scalar? = nil
        for scalar in trimmed.unicodeScalars {
            if scalar == ":", previous == ":" { doubleColons += 1 }
            previous = scalar
        }
        if doubleColons > 1 {
            return ParseError(.ipAddress, .malformed, input: text, reason: "'::' may appear only once")
        }
        return ParseError(.ipAddress, .malformed, input: text, reason: "not an IPv6 address (8 groups of 1-4 hex digits, or fewer with one '::')")
    }
}
