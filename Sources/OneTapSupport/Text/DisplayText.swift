/// Text from outside (a vendor's answer, a client's report, an input file) made safe to show in an error, an
/// event, a log line or a terminal: every control character (C0, DEL, C1) and every format character (a
/// direction override, a zero-width joiner, a byte order mark) replaced by U+FFFD, so the text can neither
/// forge a log line nor send a terminal an escape sequence nor reorder what is shown around it.
package enum DisplayText {
    /// A label: at most `limit` Unicode scalars (not characters: one character may hold any number of
    /// combining marks), each unsafe one replaced.
    /// - Parameters:
    ///   - text: The text.
    ///   - limit: The most scalars kept; 128.
    /// - Returns: The label: at most `limit` scalars, 4 × `limit` bytes of UTF-8.
    /// - Complexity: O(`limit`): the rest of the text is not read.
    package static func label(_ text: String, limit: Int = 128) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars.prefix(limit) {
            scalars.append(scalar.isUnsafeToShow ? "\u{FFFD}" : scalar)
        }
        return String(scalars)
    }

    /// A command's text output: every unsafe character but the tab and the line feed replaced (a help text
    /// is written as one string of many lines), whatever the length.
    /// - Parameter text: The text, without its last line break.
    /// - Returns: The text itself when it is printable ASCII (the common case, checked a byte at a time), else
    ///   the text with each unsafe scalar replaced.
    /// - Complexity: O(*n*).
    package static func line(_ text: String) -> String {
        var copy = text
        let plain = copy.withUTF8 { bytes in bytes.allSatisfy { ($0 >= 0x20 && $0 < 0x7F) || $0 == 0x09 || $0 == 0x0A } }
        if plain { return text }
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            scalars.append(scalar.isUnsafeToShow && scalar != "\t" && scalar != "\n" ? "\u{FFFD}" : scalar)
        }
        return String(scalars)
    }
}

extension Unicode.Scalar {
    /// Whether the scalar is a control character (C0, DEL, C1: general category Cc), a format character (Cf:
    /// U+200E, U+202A to U+202E, U+2066 to U+2069, U+FEFF, …) or the line or paragraph separator (U+2028, U+2029:
    /// Zl, Zp, which Python's `splitlines`, JavaScript before ES2019 and many viewers take for a line break): what
    /// ``DisplayText`` replaces and quoting escapes.
    package var isUnsafeToShow: Bool {
        switch properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator: true
        default: false
        }
    }
}
