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
        raw("\"")
        // Fast path: printable ASCII without quote or backslash goes out as it is.
        var clean = true
        for byte in bytes where byte < 0x20 || byte > 0x7E || byte == 0x22 || byte == 0x5C {
            clean = false
            break
        }
        if clean {
            append(UnsafeRawBufferPointer(bytes))
        } else {
            escaped(bytes)
        }
        raw("\"")
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

    private func escaped(_ bytes: UnsafeBufferPointer<UInt8>) {
        var runStart = 0
        var index = 0
        func flushRun(_ end: Int) {
            if end > runStart { append(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[runStart..<end]))) }
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte >= 0x20 && byte < 0x7F && byte != 0x22 && byte != 0x5C {
                index += 1
                continue
            }
            if byte >= 0x80 {
                let length = Self.validSequenceLength(bytes, at: index)
                if length > 0 {
                    index += length
                    continue
                }
                flushRun(index)
                raw("\u{FFFD}")
                index += 1
                runStart = index
                continue
            }
            flushRun(index)
            switch byte {
            case 0x22: raw("\\\"")
            case 0x5C: raw("\\\\")
            case 0x0A: raw("\\n")
            case 0x0D: raw("\\r")
            case 0x09: raw("\\t")
            default:
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                let escape: [UInt8] = [0x5C, 0x75, 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
                escape.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in append(bytes) }
            }
            index += 1
            runStart = index
        }
        flushRun(index)
    }

    /// The length of the well-formed UTF-8 sequence starting at `index`, or 0 if it is ill-formed.
    private static func validSequenceLength(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Int {
        let lead = bytes[index]
        let length: Int
        var lower: UInt8 = 0x80
        var upper: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; lower = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; upper = 0x9F
        case 0xF0: length = 4; lower = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; upper = 0x8F
        default: return 0
        }
        guard index + length <= bytes.count else { return 0 }
        let second = bytes[index + 1]
        guard second >= lower, second <= upper else { return 0 }
        for offset in 2..<length where bytes[index + offset] & 0xC0 != 0x80 { return 0 }
        return length
    }

    /// Appends a decimal integer.
    func decimal(_ value: Int64) {
        append(String(value))
    }
}
