/// A credential (an access token, a refresh token, an SMS code) that must never reach a log.
///
/// `description`, `debugDescription`, `dump` and string interpolation all print `<redacted>`; JSON
/// encoding of events never includes it. Only ``reveal()`` returns the text, so every place that hands
/// a secret on is visible in the code.
public struct Secret: Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    private let value: String

    /// Wraps a credential.
    /// - Parameter value: The credential's text.
    public init(_ value: String) { self.value = value }

    /// Returns the credential's text. Call it only to hand the credential to the party it is meant for.
    /// - Returns: The text the secret was created with.
    public func reveal() -> String { value }

    /// Whether the credential is empty (a provider that returned a blank token).
    public var isEmpty: Bool { value.isEmpty }

    /// Always `<redacted>`.
    public var description: String { "<redacted>" }

    /// Text with every occurrence of the given secrets replaced by `<redacted>`, as written and in the encoded forms
    /// ``quotedForms(_:)`` lists: for error messages that come from code OneTap does not control (an integrator's
    /// refresher or exchange may quote a URL or a request body that holds the token).
    /// - Parameters:
    ///   - text: The text.
    ///   - secrets: The secrets to take out; nil and empty ones are skipped.
    /// - Returns: The text without them.
    /// - Complexity: O(*n* × *m* × *f*) for text of *n* bytes and *f* forms of the secrets of up to *m* bytes (at most 12
    ///   forms each): for error paths.
    package static func scrub(_ text: String, of secrets: [Secret?]) -> String {
        // By UTF-8 bytes, not characters: a secret that starts with a combining mark is one character with what stands
        // before it in the text (`=` and U+0301), which a search by characters would not find.
        var bytes = Array(text.utf8)
        // The longest first: a secret inside another (an access token within its refresh token) would leave the rest.
        let forms = Set(secrets.compactMap { $0?.value }.filter { !$0.isEmpty }.flatMap(quotedForms)).map { Array($0.utf8) }
        for form in forms.sorted(by: { $0.count > $1.count }) {
            bytes = replacing(form, in: bytes)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `bytes` with every occurrence of `form` (the UTF-8 of a whole string, so it matches only at a character's
    /// first byte) replaced by `<redacted>`.
    private static func replacing(_ form: [UInt8], in bytes: [UInt8]) -> [UInt8] {
        guard let first = form.first, form.count <= bytes.count else { return bytes }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == first, form.count <= bytes.count - index, bytes[index..<index + form.count].elementsEqual(form) {
                out.append(contentsOf: "<redacted>".utf8)
                index += form.count
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        return out
    }

    /// A secret as written (`/` also as `\/`, as Foundation's JSON writer puts it), and percent-encoded in upper- or
    /// lower-case hex the four common ways: a WHATWG form body (`A–Z a–z 0–9 * - . _` kept, a space as `+`), RFC 3986
    /// (`A–Z a–z 0–9 - . _ ~` kept), Python's `quote_plus` (those, a space as `+`) and JavaScript's
    /// `encodeURIComponent` (`A–Z a–z 0–9 - _ . ! ~ * ' ( )` kept), and as a JSON string's content with everything
    /// outside printable ASCII as `\u` escapes (`/` as it is or as `\/`). JSON's short escapes (`\n`) and other
    /// encodings are not covered: a token of printable ASCII, as every carrier's is, never needs them.
    private static func quotedForms(_ value: String) -> [String] {
        func alphanumeric(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
        func percent(keeping kept: String, space: String, digits: [Character]) -> String {
            let keptBytes = Set(kept.utf8)
            var out = ""
            for byte in value.utf8 {
                if alphanumeric(byte) || keptBytes.contains(byte) {
                    out.unicodeScalars.append(Unicode.Scalar(byte))
                } else if byte == UInt8(ascii: " ") {
                    out += space
                } else {
                    out += "%" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 15)])
                }
            }
            return out
        }
        func json(slash: String, digits: [Character]) -> String {
            var out = ""
            for unit in value.utf16 {
                switch unit {
                case 0x22: out += "\\\""
                case 0x5C: out += "\\\\"
                case 0x2F: out += slash
                case 0x20..<0x7F: out.unicodeScalars.append(Unicode.Scalar(UInt8(unit)))
                default: out += "\\u" + [12, 8, 4, 0].map { String(digits[Int((unit >> $0) & 15)]) }.joined()
                }
            }
            return out
        }
        var forms = [value, value.replacing("/", with: "\\/")]
        for digits in [Array("0123456789ABCDEF"), Array("0123456789abcdef")] {
            forms += [
                percent(keeping: "*-._", space: "+", digits: digits), percent(keeping: "-._~", space: "%20", digits: digits),
                percent(keeping: "-._~", space: "+", digits: digits), percent(keeping: "-_.!~*'()", space: "%20", digits: digits),
            ]
            forms += ["/", "\\/"].map { json(slash: $0, digits: digits) }
        }
        return forms
    }

    /// Always `Secret(<redacted>)`.
    public var debugDescription: String { "Secret(<redacted>)" }
    /// A mirror with no children, so `dump` prints nothing of the value.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
