// How a parser names the characters of an input in its error messages, shared by every parser.

/// Describes one character of an input for an error message: `'a'`, `NUL`, `U+FF14 '４'`.
package func describeCharacter(_ scalar: Unicode.Scalar) -> String {
    switch scalar.value {
    case 0: return "NUL"
    case 0x20: return "a space"
    case 0x09: return "a tab"
    case 0x0A, 0x0D: return "a line break"
    case 0x21...0x7E: return "'\(Character(scalar))'"
    default:
        let hex = String(scalar.value, radix: 16, uppercase: true)
        let padded = String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        let printable = scalar.properties.isWhitespace || scalar.value < 0xA0 || scalar.isUnsafeToShow ? "" : " '\(Character(scalar))'"
        return "U+\(padded)\(printable)"
    }
}

extension Unicode.Scalar {
    /// A decimal digit from any script but ASCII (full-width, Arabic-Indic, Devanagari, …).
    package var isNonASCIIDecimalDigit: Bool {
        value > 0x7F && properties.numericType == .decimal
    }
}

/// Builds the error for the first character of `text` that is not allowed, classifying non-ASCII digits.
/// - Parameters:
///   - subject: What was being read.
///   - text: The whole input.
///   - allowed: Whether a scalar is allowed.
package func firstBadCharacterError(
    _ subject: ParseError.Subject, in text: String, allowed: (Unicode.Scalar) -> Bool
) -> ParseError? {
    var position = 0
    for scalar in text.unicodeScalars {
        position += 1
        if allowed(scalar) { continue }
        if scalar.isNonASCIIDecimalDigit {
            return ParseError(
                subject, .nonASCIIDigit, input: text,
                reason: "\(describeCharacter(scalar)) at position \(position) is not an ASCII digit (only 0-9 count)")
        }
        return ParseError(
            subject, .invalidCharacter, input: text,
            reason: "\(describeCharacter(scalar)) at position \(position) is not allowed")
    }
    return nil
}
