/// A public land mobile network identity: a 3-digit mobile country code (MCC) and a 2- or 3-digit mobile
/// network code (MNC), as a SIM or the radio reports them.
///
/// Parse it from the forms platforms hand out:
/// - `"46000"` or `"460001"`: Android's `TelephonyManager.getSimOperator()`;
/// - separate MCC and MNC strings: iOS `CTCarrier.mobileCountryCode` / `mobileNetworkCode`;
/// - `"460-00"`, `"460 00"`; surrounding whitespace is ignored.
///
/// Only ASCII digits count. A malformed value throws ``ParseError`` naming the input and why; parsing
/// never traps and, for a valid value, never allocates.
public struct PLMN: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The MCC as a number, 200 ... 999.
    package let mccCode: UInt16
    /// The MNC as a number, 0 ... 999.
    package let mncCode: UInt16
    /// How many digits the MNC has: 2 or 3 (`01` and `001` are different codes).
    package let mncLength: UInt8

    /// Creates a PLMN from numbers.
    /// - Parameters:
    ///   - mcc: The MCC, 200 ... 999.
    ///   - mnc: The MNC, 0 ... 99 for a 2-digit MNC or 0 ... 999 for a 3-digit one.
    ///   - mncLength: 2 or 3.
    /// - Throws: ``ParseError`` of kind `reserved` or `out-of-range`.
    package init(mcc: Int, mnc: Int, mncLength: Int = 2) throws(ParseError) {
        let text = "\(mcc)-\(mnc)"
        guard (0...999).contains(mcc) else {
            throw ParseError(.mcc, .outOfRange, input: "\(mcc)", reason: "an MCC is 3 digits (000-999)")
        }
        guard mcc >= 200 else {
            throw ParseError(.mcc, .reserved, input: "\(mcc)", reason: Self.reservedReason)
        }
        guard mncLength == 2 || mncLength == 3 else {
            throw ParseError(.mnc, .wrongLength, input: text, reason: "an MNC has 2 or 3 digits, not \(mncLength)")
        }
        guard mnc >= 0, mnc < (mncLength == 2 ? 100 : 1000) else {
            throw ParseError(.mnc, .outOfRange, input: "\(mnc)", reason: "does not fit in \(mncLength) digits")
        }
        self.init(unchecked: UInt16(mcc), UInt16(mnc), UInt8(mncLength))
    }

    init(unchecked mcc: UInt16, _ mnc: UInt16, _ mncLength: UInt8) {
        mccCode = mcc
        mncCode = mnc
        self.mncLength = mncLength
    }

    /// Parses a PLMN written as one string: `"46000"`, `"460001"`, `"460-00"`, `"460 00"`.
    /// - Parameter text: The reported value; surrounding whitespace is ignored.
    /// - Throws: ``ParseError`` with subject `PLMN`: `empty`, `placeholder` (`65535`, `--`),
    ///   `invalid-character`, `non-ascii-digit`, `wrong-length`, `malformed` or `reserved`.
    /// - Complexity: O(*n*) in the length of `text`; no allocation unless it throws.
    public init(_ text: String) throws(ParseError) {
        let parsed = text.withUTF8Bytes { PLMN.parse($0) }
        guard let parsed else { throw PLMN.diagnose(text) }
        self = parsed
    }

    /// Parses a PLMN from UTF-8 bytes, the way a stream reader hands them over.
    /// - Parameter utf8: The bytes of one value, in any form ``init(_:)`` accepts.
    /// - Throws: ``ParseError`` as ``init(_:)`` does (invalid UTF-8 is repaired for the message).
    /// - Complexity: O(*n*); no allocation unless it throws.
    package init(utf8: UnsafeBufferPointer<UInt8>) throws(ParseError) {
        guard let parsed = PLMN.parse(utf8) else { throw PLMN.diagnose(String(decoding: utf8, as: UTF8.self)) }
        self = parsed
    }

    /// Parses a PLMN from UTF-8 bytes without building an error: nil for anything ``init(utf8:)``
    /// refuses (call that for the reason). The streaming fast path.
    /// - Parameter bytes: The bytes of one value.
    /// - Complexity: O(*n*); no allocation.
    @inline(__always)
    package init?(parsing bytes: UnsafeBufferPointer<UInt8>) {
        guard let parsed = PLMN.parse(bytes) else { return nil }
        self = parsed
    }

    /// Parses a PLMN given as separate MCC and MNC strings (iOS `CTCarrier`).
    /// - Parameters:
    ///   - mcc: The mobile country code, 3 ASCII digits.
    ///   - mnc: The mobile network code, 2 or 3 ASCII digits.
    /// - Throws: ``ParseError`` naming the part at fault (subject `MCC` or `MNC`); `placeholder` when iOS
    ///   reported `65535` or `--`.
    package init(mcc: String, mnc: String) throws(ParseError) {
        let mccValue = mcc.withUTF8Bytes { PLMN.digits($0, lengths: 3...3) }
        let mncValue = mnc.withUTF8Bytes { PLMN.digits($0, lengths: 2...3) }
        guard let mccValue, mccValue.value >= 200, let mncValue else {
            throw PLMN.diagnose(mcc: mcc, mnc: mnc)
        }
        self.init(unchecked: UInt16(mccValue.value), UInt16(mncValue.value), UInt8(mncValue.length))
    }

    /// The MCC as 3 digits, e.g. `"460"`.
    public var mcc: String { Self.pad(Int(mccCode), 3) }
    /// The MNC as 2 or 3 digits, e.g. `"00"`.
    public var mnc: String { Self.pad(Int(mncCode), Int(mncLength)) }

    /// Whether the MCC is mainland China's (460).
    package var isMainland: Bool { mccCode == 460 }

    /// `"460-00"`: MCC and MNC with a hyphen, which keeps 2- and 3-digit MNCs apart. It parses back
    /// to the same PLMN.
    public var description: String { "\(mcc)-\(mnc)" }

    /// `"46000"`: the Android form. It parses back to the same PLMN, except for South Africa's 655-35,
    /// whose compact form `65535` is the placeholder iOS reports; ``description`` always parses back.
    package var compact: String { mcc + mnc }

    /// Orders values by their numbers (stable, for sorting).
    /// - Parameters:
    ///   - lhs: A PLMN.
    ///   - rhs: Another.
    /// - Returns: Whether `lhs` comes first.
    public static func < (lhs: PLMN, rhs: PLMN) -> Bool {
        (lhs.mccCode, lhs.mncLength, lhs.mncCode) < (rhs.mccCode, rhs.mncLength, rhs.mncCode)
    }

    // MARK: Parsing

    static let reservedReason = "MCCs starting with 0 or 1 are reserved or test codes (ITU-T E.212); a real MCC is 200-999"

    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    @inline(__always)
    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || (byte >= 0x09 && byte <= 0x0D)
    }

    /// The fast path: the accepted forms, or nil for anything else (then ``diagnose(_:)`` says why).
    /// Wrapping arithmetic throughout: every value is bounded by the digit checks before it is used.
    @inline(__always)
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> PLMN? {
        var start = 0
        var end = bytes.count
        guard end >= 5 else { return nil }
        if isSpace(bytes[0]) || isSpace(bytes[end &- 1]) {
            while start < end, isSpace(bytes[start]) { start &+= 1 }
            while end > start, isSpace(bytes[end &- 1]) { end &-= 1 }
        }
        let count = end &- start
        guard count >= 5, count <= 7 else { return nil }
        let d0 = bytes[start] &- 48, d1 = bytes[start &+ 1] &- 48, d2 = bytes[start &+ 2] &- 48
        guard d0 < 10, d1 < 10, d2 < 10, d0 >= 2 else { return nil }
        let mcc = UInt16(d0) &* 100 &+ UInt16(d1) &* 10 &+ UInt16(d2)
        var index = start &+ 3
        if count > 5 {
            let separator = bytes[index]
            if separator == UInt8(ascii: "-") || separator == UInt8(ascii: " ") { index &+= 1 }
        }
        let mncLength = end &- index
        guard mncLength == 2 || mncLength == 3 else { return nil }
        let m0 = bytes[index] &- 48, m1 = bytes[index &+ 1] &- 48
        guard m0 < 10, m1 < 10 else { return nil }
        var mnc = UInt16(m0) &* 10 &+ UInt16(m1)
        if mncLength == 3 {
            let m2 = bytes[index &+ 2] &- 48
            guard m2 < 10 else { return nil }
            mnc = mnc &* 10 &+ UInt16(m2)
        }
        // iOS 16+ reports "65535" when it hides the carrier: a placeholder, not South Africa's 655-35.
        if mcc == 655, mnc == 35, count == 5 { return nil }
        return PLMN(unchecked: mcc, mnc, UInt8(truncatingIfNeeded: mncLength))
    }

    /// Reads a run of ASCII digits (after trimming whitespace) whose length is in `lengths`.
    @inline(__always)
    static func digits(_ bytes: UnsafeBufferPointer<UInt8>, lengths: ClosedRange<Int>) -> (value: Int, length: Int)? {
        var start = 0
        var end = bytes.count
        while start < end, isSpace(bytes[start]) { start += 1 }
        while end > start, isSpace(bytes[end - 1]) { end -= 1 }
        guard lengths.contains(end - start) else { return nil }
        var value = 0
        for index in start..<end {
            let digit = bytes[index] &- 48
            guard digit < 10 else { return nil }
            value = value * 10 + Int(digit)
        }
        return (value, end - start)
    }

    /// Says why `text` is not a PLMN. Only called when the fast path refused it.
    static func diagnose(_ text: String) -> ParseError {
        let trimmed = text.trimmingASCIIWhitespace()
        if trimmed.isEmpty {
            return ParseError(.plmn, .empty, input: text, reason: "no MCC and MNC (Android reports an empty string when there is no SIM or no carrier)")
        }
        if trimmed == "65535" || trimmed == "--" || trimmed == "6553565535" {
            return ParseError(.plmn, .placeholder, input: text, reason: placeholderReason)
        }
        let separators: Set<Unicode.Scalar> = ["-", " "]
        if let error = firstBadCharacterError(.plmn, in: trimmed, allowed: { ("0"..."9").contains($0) || separators.contains($0) }) {
            return ParseError(.plmn, error.kind, input: text, reason: error.reason)
        }
        if let first = trimmed.unicodeScalars.first, first == "-" || first == " " {
            return ParseError(.plmn, .invalidCharacter, input: text, reason: "'-' at position 1 is not allowed (a PLMN has no sign)")
        }
        let parts = trimmed.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "-" || $0 == " " })
        if parts.count > 2 {
            return ParseError(.plmn, .malformed, input: text, reason: "more than one separator; write 46000, 460-00 or 460 00")
        }
        if parts.count == 2 {
            guard parts[0].count == 3 else {
                return ParseError(.plmn, .malformed, input: text, reason: "the separator must follow the 3-digit MCC")
            }
            guard (2...3).contains(parts[1].count) else {
                return ParseError(.plmn, .wrongLength, input: text, reason: "the MNC has \(parts[1].count) digits; an MNC has 2 or 3")
            }
        } else if !(5...6).contains(trimmed.count) {
            return ParseError(
                .plmn, .wrongLength, input: text,
                reason: "\(trimmed.count) digits; a PLMN has 5 or 6 (a 3-digit MCC, then a 2- or 3-digit MNC)")
        }
        return ParseError(.plmn, .reserved, input: text, reason: reservedReason)
    }

    static let placeholderReason = "the placeholder iOS 16+ reports when it hides the carrier; no carrier can be known from it"

    /// Says why an MCC / MNC pair is not a PLMN.
    static func diagnose(mcc: String, mnc: String) -> ParseError {
        let input = "\(mcc)/\(mnc)"
        let mccTrimmed = mcc.trimmingASCIIWhitespace()
        let mncTrimmed = mnc.trimmingASCIIWhitespace()
        if mccTrimmed == "65535" || mncTrimmed == "65535" || mccTrimmed == "--" || mncTrimmed == "--" {
            return ParseError(.plmn, .placeholder, input: input, reason: placeholderReason)
        }
        for (subject, part, trimmed, lengths) in [(ParseError.Subject.mcc, mcc, mccTrimmed, 3...3), (.mnc, mnc, mncTrimmed, 2...3)] {
            if trimmed.isEmpty {
                return ParseError(subject, .empty, input: part, reason: "no digits")
            }
            if let error = firstBadCharacterError(subject, in: trimmed, allowed: { ("0"..."9").contains($0) }) {
                return ParseError(subject, error.kind, input: part, reason: error.reason)
            }
            if !lengths.contains(trimmed.count) {
                let expected = lengths.count == 1 ? "3 digits" : "2 or 3 digits"
                return ParseError(subject, .wrongLength, input: part, reason: "\(trimmed.count) digits; an \(subject) has \(expected)")
            }
        }
        return ParseError(.mcc, .reserved, input: mcc, reason: reservedReason)
    }
}

extension String {
    /// The string without leading and trailing ASCII whitespace.
    func trimmingASCIIWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !($0.isASCII && PLMN.isSpace(UInt8($0.value))) }) else { return "" }
        let last = scalars.lastIndex(where: { !($0.isASCII && PLMN.isSpace(UInt8($0.value))) })!
        return String(scalars[first...last])
    }
}
