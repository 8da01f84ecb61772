/// RFC 4648 base64, standard and URL-safe alphabets (one per text), padding optional (when given, it completes the
/// last group, as RFC 4648 §3.2 writes it).
package enum Base64 {
    private static let urlAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Whether a character belongs to the URL-safe alphabet (RFC 4648 §5).
    package static func isURLSafe(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && isURLSafe(UInt8(truncatingIfNeeded: scalar.value))
    }

    /// Whether every byte is a character of the URL-safe alphabet (RFC 4648 §5): one call for a whole id read
    /// from a token, on every authenticated request.
    /// - Parameter bytes: The bytes.
    /// - Returns: Whether all are URL-safe characters (true for none).
    package static func isURLSafe(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.allSatisfy { isURLSafe($0) }
    }

    /// Whether a byte is a character of the URL-safe alphabet (RFC 4648 §5).
    /// - Parameter byte: The byte.
    /// - Returns: Whether it is one of A-Z, a-z, 0-9, `-` and `_`.
    @inline(__always)
    package static func isURLSafe(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "_"): true
        default: false
        }
    }

    /// URL-safe base64 without padding (RFC 4648 §5): 16 bytes make 22 characters.
    package static func urlEncoded(_ bytes: some Collection<UInt8>) -> String {
        let bytes = Array(bytes)
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= bytes.count {
            let chunk = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            for shift in [18, 12, 6, 0] { out.append(urlAlphabet[Int((chunk >> UInt32(shift)) & 63)]) }
            index += 3
        }
        let left = bytes.count - index
        if left > 0 {
            let chunk = UInt32(bytes[index]) << 16 | (left == 2 ? UInt32(bytes[index + 1]) << 8 : 0)
            for shift in [18, 12, 6].prefix(left + 1) { out.append(urlAlphabet[Int((chunk >> UInt32(shift)) & 63)]) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes base64 in either alphabet (standard or URL-safe), padded or not.
    /// - Parameter text: The base64 text.
    /// - Returns: The bytes, or nil when the text is not base64 (a foreign character, both alphabets' own characters
    ///   in one text, padding before the end or that does not complete the last group of four, or leftover bits that
    ///   are not zero).
    package static func decode(_ text: String) -> [UInt8]? {
        var out: [UInt8] = []
        guard decode(text.utf8, append: { out.append($0); return true }) else { return nil }
        return out
    }

    /// Decodes into a buffer the caller owns, allocating nothing: the same alphabets and rules as
    /// ``decode(_:)``.
    /// - Parameters:
    ///   - bytes: The base64 text's bytes.
    ///   - output: Where the decoded bytes go.
    /// - Returns: How many bytes were decoded, or nil when the text is not base64 or decodes to more
    ///   bytes than `output` holds.
    package static func decode(_ bytes: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableBufferPointer<UInt8>) -> Int? {
        var count = 0
        let decoded = decode(bytes) { byte in
            guard count < output.count else { return false }
            output[count] = byte
            count += 1
            return true
        }
        return decoded ? count : nil
    }

    /// The decoder: hands each decoded byte to `append`, which answers false to stop.
    /// - Returns: Whether the whole text decoded.
    @inline(__always)
    private static func decode(_ text: some Sequence<UInt8>, append: (UInt8) -> Bool) -> Bool {
        var buffer: UInt32 = 0
        var bits = 0
        var padding = 0
        var characters = 0
        var standard = false, urlSafe = false
        for byte in text {
            let value: UInt32
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = UInt32(byte - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = UInt32(byte - UInt8(ascii: "a")) + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = UInt32(byte - UInt8(ascii: "0")) + 52
            case UInt8(ascii: "+"): value = 62; standard = true
            case UInt8(ascii: "-"): value = 62; urlSafe = true
            case UInt8(ascii: "/"): value = 63; standard = true
            case UInt8(ascii: "_"): value = 63; urlSafe = true
            case UInt8(ascii: "="): padding += 1; continue
            default: return false
            }
            if padding > 0 || (standard && urlSafe) { return false }
            characters += 1
            buffer = buffer << 6 | value
            bits += 6
            if bits >= 8 {
                bits -= 8
                guard append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits))) else { return false }
            }
        }
        // Leftover bits must be zero and fewer than a byte; padding, if any, completes the last group of four.
        guard padding == 0 || padding == (4 - characters % 4) % 4 else { return false }
        return bits < 8 && buffer & ((1 << UInt32(bits)) - 1) == 0 && bits != 6
    }
}
