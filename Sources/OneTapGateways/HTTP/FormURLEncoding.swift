/// `application/x-www-form-urlencoded` bodies and queries (the WHATWG URL standard's serializer): each name and value
/// as UTF-8, bytes outside `A–Z a–z 0–9 * - . _` percent-encoded in upper case, a space as `+`, pairs joined by `&`.
package enum FormURLEncoding {
    /// Encodes fields in the order given.
    /// - Parameter fields: The names and values.
    /// - Returns: `a=1&b=x%2By`.
    package static func encode(_ fields: [(name: String, value: String)]) -> String {
        fields.map { "\(escape($0.name))=\(escape($0.value))" }.joined(separator: "&")
    }

    /// Percent-encodes one name or value.
    /// - Parameter text: The text.
    /// - Returns: Its encoding.
    package static func escape(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "*"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: " "):
                out += "+"
            default:
                let digits = Array("0123456789ABCDEF".utf8)
                out += "%"
                out.unicodeScalars.append(Unicode.Scalar(digits[Int(byte >> 4)]))
                out.unicodeScalars.append(Unicode.Scalar(digits[Int(byte & 0xF)]))
            }
        }
        return out
    }
}
