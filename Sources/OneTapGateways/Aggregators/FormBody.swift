/// Parameters as an `application/x-www-form-urlencoded` body, and the sorted name-and-value concatenation two
/// aggregators sign (Shanyan, Yidun).
package enum FormBody {
    private static let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)

    /// The body: `name=value&…` in the order given, each byte outside RFC 3986's unreserved set percent-encoded.
    /// - Parameter fields: The parameters.
    /// - Returns: The body's bytes.
    package static func encode(_ fields: [(name: String, value: String)]) -> [UInt8] {
        Array(fields.map { "\(escape($0.name))=\(escape($0.value))" }.joined(separator: "&").utf8)
    }

    /// Every name followed by its value, names in ascending byte order, no separators: `appId…token…`.
    /// - Parameter fields: The parameters signed.
    /// - Returns: The concatenation.
    package static func sortedConcatenation(_ fields: [(name: String, value: String)]) -> String {
        fields.sorted { Array($0.name.utf8).lexicographicallyPrecedes(Array($1.name.utf8)) }.map { $0.name + $0.value }.joined()
    }

    private static func escape(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            if unreserved.contains(byte) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "%" + Hex.encode([byte], uppercase: true)
            }
        }
        return out
    }
}
