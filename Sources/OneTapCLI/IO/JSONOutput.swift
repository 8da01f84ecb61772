import OneTap

/// JSON text written straight into an ``OutputBuffer``: no intermediate strings, no encoder objects.
/// Strings are escaped per RFC 8259; invalid UTF-8 in input bytes becomes U+FFFD, so every line written
/// is valid JSON in valid UTF-8.
extension OutputBuffer {
    /// Appends ASCII text known at compile time.
    @inline(__always)
    func raw(_ text: StaticString) {
        append(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends a JSON string literal (quotes included) for arbitrary bytes.
    /// - Parameter bytes: UTF-8 bytes; invalid sequences are replaced with U+FFFD.
    func jsonString(_ bytes: UnsafeBufferPointer<UInt8>) {
        JSONString.write(bytes) { append($0) }
    }

    /// Appends a JSON string literal for a Swift string.
    func jsonString(_ text: String) {
        var text = text
        text.withUTF8 { jsonString($0) }
    }

    /// Appends a JSON string literal, or `null`.
    func jsonString(orNull text: String?) {
        if let text { jsonString(text) } else { raw("null") }
    }

    /// Appends the record of an input that was refused, and its line end: `{"input":"…","error":"…"}`.
    /// - Parameters:
    ///   - input: The input as given (invalid UTF-8 becomes U+FFFD).
    ///   - error: Why it was refused.
    func refusal(input: UnsafeBufferPointer<UInt8>, error: String) {
        raw("{\"input\":")
        jsonString(input)
        raw(",\"error\":")
        jsonString(error)
        raw("}\n")
    }

    /// Appends a decimal integer.
    func decimal(_ value: Int64) {
        append(String(value))
    }
}
