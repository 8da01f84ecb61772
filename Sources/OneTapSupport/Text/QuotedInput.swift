/// An input quoted for a message: escaped like a JSON string and shortened to its first 64 characters.
package struct QuotedInput: CustomStringConvertible {
    let text: String
    package init(_ text: String) { self.text = text }

    static let limit = 64

    package var description: String {
        var out = "\""
        var count = 0
        for scalar in text.unicodeScalars {
            if count == Self.limit {
                out += "…\" (\(text.utf8.count) bytes)"
                return out
            }
            count += 1
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.isUnsafeToShow:
                out += "\\u{\(String(scalar.value, radix: 16))}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// A name from the input (a JSON key) as a message shows it: as it is when it is a plain name (1 to 64
    /// printable ASCII characters, no quote, backslash or space), else quoted, escaped and cut like any input.
    /// - Parameter name: The name.
    /// - Returns: The text to show.
    package static func name(_ name: String) -> String {
        let plain = !name.isEmpty && name.utf8.count <= limit
            && name.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "'") && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }
        return plain ? name : QuotedInput(name).description
    }

    /// A name from the input as a message shows it when the input may have been a secret typed in its place (a token
    /// given as `--field TOKEN`): as it is when it looks like a field's name (1 to 32 ASCII letters, `-` or `_`), else by
    /// its length alone (a digit, `=`, `+`, `/`: a token, a key, a password typed where a name belongs).
    /// - Parameter text: The name.
    /// - Returns: The text to show.
    package static func nameOrLength(_ text: String) -> String {
        unlessSecret(text, as: "a name") { ($0 | 0x20 >= UInt8(ascii: "a") && $0 | 0x20 <= UInt8(ascii: "z")) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }
            ?? text
    }

    /// The one rule for input that may be a secret typed where a name belongs: nil when `text` is 1 to 32 bytes, each
    /// one `allowed` takes (a name, shown by the caller), else the message that stands for it, its length alone.
    /// - Parameters:
    ///   - text: The input.
    ///   - what: What it stands for in the message (`a name`, `an argument`).
    ///   - allowed: Whether a byte may be part of a name.
    /// - Returns: Nil for a name; else `(<what> of N characters, not repeated: it may be a secret)`.
    package static func unlessSecret(_ text: String, as what: String, _ allowed: (UInt8) -> Bool) -> String? {
        guard text.isEmpty || text.utf8.count > 32 || !text.utf8.allSatisfy(allowed) else { return nil }
        return "(\(what) of \(text.unicodeScalars.count) characters, not repeated: it may be a secret)"
    }

    /// A coding path as messages show it (`plan.flows.[0]`): an element by its index in brackets, each key
    /// through ``name(_:)`` (the keys are input: one holding a line feed forged a line of a report).
    /// - Parameter keys: The path.
    /// - Returns: The text; empty for an empty path.
    package static func path(_ keys: [any CodingKey]) -> String {
        keys.map { $0.intValue.map { "[\($0)]" } ?? name($0.stringValue) }.joined(separator: ".")
    }
}
