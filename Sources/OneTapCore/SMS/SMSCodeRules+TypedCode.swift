import OneTapSupport

// A code as people type it: white space around it, full-width digits.

extension SMSCodeRules {
    /// Whether text reads as a code as people type it (``withTypedCode(_:_:)``): six digits, ASCII or full-width,
    /// with white space around them.
    /// - Parameter candidate: The code as typed.
    /// - Returns: False for text no code could match (a letter, a digit short or over, over 64 bytes).
    /// - Complexity: O(*n*) in the text, at most 64 bytes read; no allocation.
    package static func readsAsCode(_ candidate: Secret) -> Bool {
        withTypedCode(candidate) { _ in true } != nil
    }

    /// The six ASCII digits of a code as a client typed it, lent to `body`: the text without the white space around it
    /// (a pasted line break), full-width digits (`１２３４５６`, U+FF10 to U+FF19, what a Chinese input method types)
    /// read as ASCII ones. Nil, and `body` not called, for text that does not read as six digits, and at once for
    /// text longer than 64 bytes (six full-width digits are 18: a longer text is read no further).
    /// - Parameters:
    ///   - candidate: The code as typed.
    ///   - body: Compares the digits.
    /// - Returns: What `body` returned, or nil.
    /// - Complexity: O(*n*) in the text; no allocation.
    static func withTypedCode(_ candidate: Secret, _ body: (UnsafeBufferPointer<UInt8>) -> Bool) -> Bool? {
        var text = candidate.reveal()
        let plain = text.withUTF8 { bytes in bytes.count == digits && bytes.allSatisfy { $0 &- UInt8(ascii: "0") < 10 } ? body(bytes) : nil }
        if let plain { return plain }
        guard text.utf8.count <= 64 else { return nil }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: digits) { code -> Bool? in
            var count = 0
            var ended = false  // white space after a digit: only white space may follow
            for scalar in text.unicodeScalars {
                if scalar.properties.isWhitespace {
                    ended = count > 0
                    continue
                }
                let value = scalar.value
                let digit: UInt32
                switch value {
                case 0x30...0x39: digit = value - 0x30
                case 0xFF10...0xFF19: digit = value - 0xFF10
                default: return nil
                }
                guard !ended, count < digits else { return nil }
                code[count] = UInt8(ascii: "0") + UInt8(digit)
                count += 1
            }
            return count == digits ? body(UnsafeBufferPointer(code)) : nil
        }
    }
}
