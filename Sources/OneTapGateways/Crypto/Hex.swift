/// Hexadecimal text for bytes, as the vendors' signatures are sent (`213EF8D0…`), and bytes back from it.
package enum Hex {
    private static let lower = Array("0123456789abcdef".utf8)
    private static let upper = Array("0123456789ABCDEF".utf8)

    /// Bytes as hexadecimal.
    /// - Parameters:
    ///   - bytes: The bytes.
    ///   - uppercase: `A`–`F` rather than `a`–`f`.
    /// - Returns: Two characters per byte.
    package static func encode(_ bytes: [UInt8], uppercase: Bool = false) -> String {
        let digits = uppercase ? upper : lower
        var text = [UInt8]()
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Hexadecimal text as bytes, either case.
    /// - Parameter text: An even number of hexadecimal digits, nothing else.
    /// - Returns: The bytes, or nil for an odd length or any other character.
    package static func decode(_ text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0 else { return nil }
        var bytes = [UInt8]()
        bytes.reserveCapacity(utf8.count / 2)
        var index = 0
        while index < utf8.count {
            guard let high = value(utf8[index]), let low = value(utf8[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func value(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
