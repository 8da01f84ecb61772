/// A mainland China mobile number: 11 digits starting 13 to 19 (10, 11 and 12 are service and
/// special-purpose numbers, never mobile).
///
/// Parses `13800138000`, `+86 138 0013 8000`, `0086-138-0013-8000`, `86 13800138000`: an optional country
/// prefix (`+86`, `0086`, `86`), spaces and hyphens between digit groups, surrounding whitespace. Since
/// number portability (携号转网, nationwide from November 2019) a number's segment tells only the carrier
/// that first issued it; the SIM's PLMN wins whenever both are known.
public struct PhoneNumber: Hashable, Sendable, Comparable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The 11 digits as a number, 13000000000 ... 19999999999.
    package let value: UInt64

    /// The mobile numbers' range: 13000000000 ... 19999999999.
    static let range: ClosedRange<UInt64> = 13_000_000_000...19_999_999_999

    /// Whether mobile numbers can start with these digits (1 to 11 ASCII digits): whether the numbers
    /// they begin fall in ``range`` (a number segment table lists only such prefixes).
    /// - Parameter digits: The prefix.
    /// - Returns: True for `13`, `1349`, `199`; false for `117`, `12`, `2`.
    package static func isMobilePrefix(_ digits: Substring.UTF8View) -> Bool {
        guard (1...11).contains(digits.count), digits.allSatisfy({ (48...57).contains($0) }) else { return false }
        var lowest: UInt64 = 0
        for digit in digits { lowest = lowest * 10 + UInt64(digit - 48) }
        for _ in digits.count..<11 { lowest *= 10 }
        return range.contains(lowest)
    }

    /// Creates a number from its 11-digit value.
    /// - Parameter value: 13000000000 ... 19999999999.
    /// - Throws: ``ParseError`` of kind `not-mobile` when the value is not 11 digits starting 13 to 19.
    package init(value: UInt64) throws(ParseError) {
        guard Self.range.contains(value) else {
            throw ParseError(.phoneNumber, .notMobile, input: String(value), reason: "a mainland mobile number is 11 digits starting 13 to 19")
        }
        self.value = value
    }

    package init(unchecked value: UInt64) { self.value = value }

    /// Parses a number in any accepted form.
    /// - Parameter text: The number as written.
    /// - Throws: ``ParseError`` with subject `phone number`: `empty`, `invalid-character`,
    ///   `non-ascii-digit`, `foreign-number`, `wrong-length`, `not-mobile`, `malformed`.
    /// - Complexity: O(*n*) in the length of `text`; no allocation unless it throws.
    public init(_ text: String) throws(ParseError) {
        let parsed = text.withUTF8Bytes { PhoneNumber.parse($0) }
        guard let parsed else { throw PhoneNumber.diagnose(text) }
        self.init(unchecked: parsed)
    }

    /// Parses a number from UTF-8 bytes, the way a stream reader hands them over.
    /// - Parameter utf8: The bytes of one value, in any form ``init(_:)`` accepts.
    /// - Throws: ``ParseError`` as ``init(_:)`` does (invalid UTF-8 is repaired for the message).
    /// - Complexity: O(*n*); no allocation unless it throws.
    package init(utf8: UnsafeBufferPointer<UInt8>) throws(ParseError) {
        guard let parsed = PhoneNumber.parse(utf8) else { throw PhoneNumber.diagnose(String(decoding: utf8, as: UTF8.self)) }
        self.init(unchecked: parsed)
    }

    /// Parses a number from UTF-8 bytes without building an error: nil for anything ``init(utf8:)``
    /// refuses (call that for the reason). The streaming fast path.
    /// - Parameter bytes: The bytes of one value.
    /// - Complexity: O(*n*); no allocation.
    @inline(__always)
    package init?(parsing bytes: UnsafeBufferPointer<UInt8>) {
        guard let parsed = PhoneNumber.parse(bytes) else { return nil }
        self.init(unchecked: parsed)
    }

    /// The 11 digits, e.g. `"13800138000"`.
    package var digits: String { String(value) }

    /// The 11 digits. They parse back to the same number.
    public var description: String { digits }

    /// `PhoneNumber(138****8000)`: reflected (`dump`, `String(reflecting:)`, a value that holds a number and prints its
    /// members) the number is masked; only ``description`` prints it whole.
    public var debugDescription: String { "PhoneNumber(\(masked))" }

    /// A mirror with no children, so reflection never reaches the digits.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }

    /// The number with the middle four digits hidden, `"138****8000"`, for logs and screens.
    public var masked: String {
        let text = digits
        return String(text.prefix(3)) + "****" + String(text.suffix(4))
    }

    /// A text with every mainland mobile number in it masked as ``masked`` does, in the forms ``init(_:)`` reads:
    /// runs of ASCII digits, one space or hyphen between them at most, that together make 11 digits starting 13 to
    /// 19, or 13 starting 86 (`+86`) or 15 starting 0086 and then such a number, have the four digits after its
    /// first three hidden (`138 **** 8000`, `+86-138****8000`). A run of more digits than that, without a space or
    /// hyphen to part it, is no number. What events do to free text (a provider's message, a meaning) before it is
    /// written, and what a text cut short is given first (``maskingNumbers(in:limit:)``).
    /// - Parameter text: The text.
    /// - Returns: The text, masked; the same text when it holds no such number.
    /// - Complexity: O(*n*); no allocation when it holds no number.
    package static func maskingNumbers(in text: String) -> String {
        text.withUTF8Bytes { bytes -> String in
            func isDigit(_ byte: UInt8) -> Bool { byte &- 48 < 10 }
            var out: [UInt8] = []  // a copy, made once the first number is found
            // The runs of digits of the current chain (runs parted by one space or hyphen), the last 15 of them: a
            // number has at most 15 digits, so no candidate spans more runs.
            withUnsafeTemporaryAllocation(of: (start: Int, end: Int).self, capacity: 15) { ring in
                var kept = 0, newest = -1
                var index = 0
                while index < bytes.count {
                    guard isDigit(bytes[index]) else {
                        index += 1
                        continue
                    }
                    let start = index
                    while index < bytes.count, isDigit(bytes[index]) { index += 1 }
                    let joined = kept > 0 && ring[newest].end + 1 == start
                        && (bytes[start - 1] == UInt8(ascii: " ") || bytes[start - 1] == UInt8(ascii: "-"))
                    if !joined { kept = 0 }
                    newest = (newest + 1) % 15
                    ring[newest] = (start, index)
                    kept = min(kept + 1, 15)
                    // Each candidate ending with this run: the runs from `back` runs ago up to it.
                    var count = 0
                    for back in 0..<kept {
                        let run = ring[(newest - back + 15) % 15]
                        count += run.end - run.start
                        guard count <= 15 else { break }
                        let prefix = count == 11 ? 0 : count == 13 ? 2 : count == 15 ? 4 : -1
                        guard prefix >= 0 else { continue }
                        // The byte of the candidate's `digit`th digit.
                        func position(_ digit: Int) -> Int {
                            var rest = digit, slot = (newest - back + 15) % 15
                            while rest >= ring[slot].end - ring[slot].start {
                                rest -= ring[slot].end - ring[slot].start
                                slot = (slot + 1) % 15
                            }
                            return ring[slot].start + rest
                        }
                        func digit(_ digit: Int, is ascii: Unicode.Scalar) -> Bool { bytes[position(digit)] == UInt8(ascii: ascii) }
                        let country = prefix == 0 || (prefix == 2 && digit(0, is: "8") && digit(1, is: "6"))
                            || (prefix == 4 && digit(0, is: "0") && digit(1, is: "0") && digit(2, is: "8") && digit(3, is: "6"))
                        guard country, digit(prefix, is: "1"), bytes[position(prefix + 1)] >= UInt8(ascii: "3") else { continue }
                        if out.isEmpty { out = Array(bytes) }
                        for hidden in (prefix + 3)..<(prefix + 7) { out[position(hidden)] = UInt8(ascii: "*") }
                    }
                }
            }
            return out.isEmpty ? text : String(decoding: out, as: UTF8.self)
        }
    }

    /// ``maskingNumbers(in:)`` of a text, then cut to `limit` characters with every unsafe one replaced
    /// (`DisplayText.label`): masked first, so a number the cut would part is hidden all the same.
    /// - Parameters:
    ///   - text: The text.
    ///   - limit: How many characters at most.
    /// - Returns: The text, masked and cut.
    package static func maskingNumbers(in text: String, limit: Int) -> String {
        // A number with a digit masked before the cut ends within 14 scalars of the cut (its separators included):
        // 32 more are read and masked, no more.
        let head = text.unicodeScalars.prefix(limit + 32)
        return DisplayText.label(maskingNumbers(in: head.endIndex == text.unicodeScalars.endIndex ? text : String(String.UnicodeScalarView(head))), limit: limit)
    }

    /// The number's first `count` digits as a number (`count` 1 ... 11).
    @inline(__always)
    func prefix(_ count: Int) -> UInt64 {
        var divisor: UInt64 = 1
        for _ in 0..<(11 - count) { divisor &*= 10 }
        return value / divisor
    }

    /// Orders values by their numbers (stable, for sorting).
    /// - Parameters:
    ///   - lhs: A number.
    ///   - rhs: Another.
    /// - Returns: Whether `lhs` is the smaller.
    public static func < (lhs: PhoneNumber, rhs: PhoneNumber) -> Bool { lhs.value < rhs.value }

    // MARK: Parsing

    /// The fast path: collects the digits, allowing one optional leading `+`, and single spaces or
    /// hyphens between digits; then strips a country prefix. Nil for anything else.
    @inline(__always)
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64? {
        var start = 0
        var end = bytes.count
        while start < end, PLMN.isSpace(bytes[start]) { start += 1 }
        while end > start, PLMN.isSpace(bytes[end - 1]) { end -= 1 }
        guard end - start >= 11 else { return nil }
        var plus = false
        if bytes[start] == UInt8(ascii: "+") {
            plus = true
            start += 1
        }
        var value: UInt64 = 0
        var count = 0
        var previousWasDigit = false
        var index = start
        while index < end {
            let byte = bytes[index]
            let digit = byte &- 48
            if digit < 10 {
                guard count < 15 else { return nil }
                value = value &* 10 &+ UInt64(digit)
                count += 1
                previousWasDigit = true
            } else if (byte == UInt8(ascii: " ") || byte == UInt8(ascii: "-")) && previousWasDigit {
                previousWasDigit = false
            } else {
                return nil
            }
            index += 1
        }
        guard previousWasDigit else { return nil }
        switch count {
        case 11 where !plus:
            break
        case 13:  // 86 + 11 digits, or +86 + 11 digits
            guard value / 100_000_000_000 == 86 else { return nil }
            value %= 100_000_000_000
        case 15 where !plus:  // 0086 + 11 digits: 15 digits whose value is 86 followed by 11 digits
            guard value / 100_000_000_000 == 86 else { return nil }
            value %= 100_000_000_000
        default:
            return nil
        }
        guard value >= 13_000_000_000, value <= 19_999_999_999 else { return nil }
        return value
    }

    /// Says why `text` is not a mainland mobile number. Only called when the fast path refused it.
    static func diagnose(_ text: String) -> ParseError {
        let trimmed = text.trimmingASCIIWhitespace()
        if trimmed.isEmpty {
            return ParseError(.phoneNumber, .empty, input: text, reason: "no digits")
        }
        var body = Substring(trimmed)
        let plus = body.first == "+"
        if plus { body = body.dropFirst() }
        let allowed: Set<Unicode.Scalar> = [" ", "-"]
        if let error = firstBadCharacterError(.phoneNumber, in: String(body), allowed: { ("0"..."9").contains($0) || allowed.contains($0) }) {
            return ParseError(.phoneNumber, error.kind, input: text, reason: error.reason + (plus ? " (counting after the leading +)" : ""))
        }
        if body.first == "-" || body.first == " " || body.last == "-" || body.last == " "
            || body.contains("--") || body.contains("  ") || body.contains("- ") || body.contains(" -")
        {
            return ParseError(.phoneNumber, .malformed, input: text, reason: "separators (a space or a hyphen) may only stand singly between digits")
        }
        let digits = body.filter { $0.isASCII && $0.isNumber }
        if plus && !digits.hasPrefix("86") {
            return ParseError(.phoneNumber, .foreignNumber, input: text, reason: "the country code is not +86; only mainland China numbers have carrier segments here")
        }
        if digits.hasPrefix("00") && !digits.hasPrefix("0086") {
            return ParseError(.phoneNumber, .foreignNumber, input: text, reason: "the international prefix 00 is followed by a country code other than 86")
        }
        var national = Substring(digits)
        if plus || (digits.hasPrefix("86") && digits.count == 13) { national = national.dropFirst(2) }
        else if digits.hasPrefix("0086") { national = national.dropFirst(4) }
        guard national.count == 11 else {
            return ParseError(
                .phoneNumber, .wrongLength, input: text,
                reason: "\(national.count) digits after any country prefix; a mainland mobile number has 11")
        }
        if national.first != "1" {
            return ParseError(.phoneNumber, .notMobile, input: text, reason: "a mainland mobile number starts with 1")
        }
        if let second = national.dropFirst().first, second < "3" {
            return ParseError(
                .phoneNumber, .notMobile, input: text,
                reason: "1\(second) is not a mobile segment (10, 11 and 12 are service numbers; mobile numbers start 13 to 19)")
        }
        return ParseError(.phoneNumber, .malformed, input: text, reason: "not a recognised way of writing a number")
    }
}
