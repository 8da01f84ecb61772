/// RFC 8259 string literals, the one escaper behind every JSON string OneTap writes by hand (the CLI's
/// streaming output buffer and JSON objects, the file store's token records): `"` and `\` are escaped, line breaks and tabs by name,
/// other control characters (C0, DEL and C1) and format characters (U+200D, U+202E, U+FEFF, …: what
/// ``DisplayText`` will not show) as `\uXXXX` (a surrogate pair past U+FFFF), so no JSON line OneTap writes
/// carries a terminal escape or a direction override raw, and nothing is lost; invalid UTF-8 becomes
/// U+FFFD, so every string written is valid JSON in valid UTF-8.
///
/// `@usableFromInline` (still `package`, outside the API) so that ``JSONWriter``'s `@inlinable` string
/// writing may call it.
@usableFromInline
package enum JSONString {
    /// Writes a JSON string literal, quotes included, for arbitrary bytes.
    /// - Parameters:
    ///   - bytes: UTF-8 bytes; invalid sequences are replaced with U+FFFD.
    ///   - emit: Receives the literal in pieces, in order.
    /// - Complexity: O(*n*) in the number of bytes; printable ASCII without quote or backslash is
    ///   emitted as one piece.
    @usableFromInline @inline(__always)
    package static func write(_ bytes: UnsafeBufferPointer<UInt8>, _ emit: (UnsafeRawBufferPointer) -> Void) {
        emitText("\"", emit)
        // Fast path: printable ASCII without quote or backslash goes out as it is.
        if needsNoEscape(bytes) {
            emit(UnsafeRawBufferPointer(bytes))
        } else {
            escaped(bytes, emit)
        }
        emitText("\"", emit)
    }

    /// Whether the bytes go into a JSON string as they are: printable ASCII without quote or backslash.
    /// - Parameter bytes: The bytes.
    /// - Returns: True when nothing needs escaping.
    @inlinable @inline(__always)
    package static func needsNoEscape(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        for byte in bytes where byte < 0x20 || byte > 0x7E || byte == 0x22 || byte == 0x5C { return false }
        return true
    }

    /// A JSON string literal for a Swift string.
    /// - Parameter text: The string.
    /// - Returns: The literal, quotes included.
    package static func literal(_ text: String) -> String {
        var text = text
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count + 2)
        text.withUTF8 { bytes in write(bytes) { out.append(contentsOf: $0) } }
        return String(decoding: out, as: UTF8.self)
    }

    @inline(__always)
    private static func emitText(_ text: StaticString, _ emit: (UnsafeRawBufferPointer) -> Void) {
        emit(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    private static func escaped(_ bytes: UnsafeBufferPointer<UInt8>, _ emit: (UnsafeRawBufferPointer) -> Void) {
        var runStart = 0
        var index = 0
        func flushRun(_ end: Int) {
            if end > runStart { emit(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[runStart..<end]))) }
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte >= 0x20 && byte < 0x7F && byte != 0x22 && byte != 0x5C {
                index += 1
                continue
            }
            if byte >= 0x80 {
                let length = validSequenceLength(bytes, at: index)
                if length > 0 {
                    let scalar = Self.scalar(bytes, at: index, length: length)
                    if scalar.isUnsafeToShow {
                        flushRun(index)
                        escape(scalar, emit)
                        index += length
                        runStart = index
                        continue
                    }
                    index += length
                    continue
                }
                flushRun(index)
                emitText("\u{FFFD}", emit)
                index += 1
                runStart = index
                continue
            }
            flushRun(index)
            switch byte {
            case 0x22: emitText("\\\"", emit)
            case 0x5C: emitText("\\\\", emit)
            case 0x0A: emitText("\\n", emit)
            case 0x0D: emitText("\\r", emit)
            case 0x09: emitText("\\t", emit)
            default: escape(Unicode.Scalar(byte), emit)
            }
            index += 1
            runStart = index
        }
        flushRun(index)
    }

    /// The scalar of a well-formed UTF-8 sequence of 2 to 4 bytes.
    private static func scalar(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int, length: Int) -> Unicode.Scalar {
        var value = UInt32(bytes[index]) & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07)
        for offset in 1..<length { value = value << 6 | UInt32(bytes[index + offset] & 0x3F) }
        return Unicode.Scalar(value) ?? "\u{FFFD}"
    }

    /// `\uXXXX`, or a surrogate pair's two for a scalar past U+FFFF.
    private static func escape(_ scalar: Unicode.Scalar, _ emit: (UnsafeRawBufferPointer) -> Void) {
        let hex: StaticString = "0123456789abcdef"
        func unit(_ value: UInt32) {
            let digits = (0..<4).map { hex.utf8Start[Int(value >> (12 - 4 * UInt32($0)) & 0xF)] }
            ([0x5C, 0x75] + digits).withUnsafeBytes { emit($0) }
        }
        if scalar.value > 0xFFFF {
            let offset = scalar.value - 0x10000
            unit(0xD800 | offset >> 10)
            unit(0xDC00 | offset & 0x3FF)
        } else {
            unit(scalar.value)
        }
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
}
