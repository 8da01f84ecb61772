import OneTap

/// `application/x-www-form-urlencoded` bodies (the WHATWG URL standard's form encoding): every byte outside
/// `A–Z a–z 0–9 * - . _` percent-encoded in upper-case hex, a space as `+`.
package enum FormEncoding {
    /// `Content-Type: application/x-www-form-urlencoded`: the header a form body is sent with.
    package static let contentType = HTTPHeader("Content-Type", "application/x-www-form-urlencoded")

    /// A form body.
    /// - Parameter fields: The fields, in the order sent.
    /// - Returns: `name=value&…` as UTF-8 bytes.
    package static func body(_ fields: [(name: String, value: String)]) -> [UInt8] {
        Array(fields.map { "\(encode($0.name))=\(encode($0.value))" }.joined(separator: "&").utf8)
    }

    /// One name or value, encoded.
    /// - Parameter text: The text.
    /// - Returns: Its form encoding.
    package static func encode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "*"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: " "):
                out += "+"
            default:
                out += "%" + Hex.encode([byte], uppercase: true)
            }
        }
        return out
    }
}
