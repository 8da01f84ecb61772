/// The byte-level grammar of JSON (RFC 8259) that both readers share: ``JSONReader`` (records) and the
/// event-line scanner (`onetap stats`, ten million lines without allocating). Each reads values its own
/// way and words its own messages; what white space is, what a number and a string look like, and what
/// an escape stands for are said here once. Nothing allocates.
///
/// `@usableFromInline` (still `package`, outside the API), with the failures its `@inlinable` scanners
/// throw, so that the package's other modules inline them.
@usableFromInline
package enum JSONGrammar {
    /// Where JSON's white space (space, tab, line feed, carriage return) from `index` ends.
    /// - Parameters:
    ///   - bytes: The text.
    ///   - index: Where to start.
    /// - Returns: The first index at or after `index` that is not white space.
    @inlinable @inline(__always)
    package static func endOfSpace(in bytes: UnsafeBufferPointer<UInt8>, from index: Int) -> Int {
        var index = index
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return index
            }
        }
        return index
    }

    // MARK: Numbers

    /// What is wrong with a number.
    @usableFromInline
    package enum NumberProblem: Error {
        /// No digit where one must be (`-`, `-x`).
        case noDigits
        /// A zero followed by a digit (`01`).
        case leadingZero
        /// A `.` without a digit after it.
        case fractionWithoutDigits
        /// An `e` without a digit after it (and its sign).
        case exponentWithoutDigits

        /// What is wrong, for an error message.
        package var message: String {
            switch self {
            case .noDigits: "not JSON: a number without digits"
            case .leadingZero: "not JSON: a number with a leading zero"
            case .fractionWithoutDigits: "not JSON: a fraction without digits"
            case .exponentWithoutDigits: "not JSON: an exponent without digits"
            }
        }
    }

    /// Scans a number, `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, from `start`.
    /// - Parameters:
    ///   - bytes: The text.
    ///   - start: Where the number starts (its sign or first digit).
    /// - Returns: Where it ends, and whether it has neither a fraction nor an exponent.
    /// - Throws: ``NumberProblem``, and where it was found.
    @inlinable @inline(__always)
    package static func number(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) throws(NumberFailure) -> (end: Int, integral: Bool) {
        var index = start
        var integral = true
        @inline(__always) func digits() -> Int {
            let first = index
            while index < bytes.count, bytes[index] &- UInt8(ascii: "0") < 10 { index += 1 }
            return index - first
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, bytes[index] &- UInt8(ascii: "0") < 10 else { throw NumberFailure(problem: .noDigits, at: index) }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, bytes[index] &- UInt8(ascii: "0") < 10 { throw NumberFailure(problem: .leadingZero, at: index) }
        } else {
            _ = digits()
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            integral = false
            guard digits() > 0 else { throw NumberFailure(problem: .fractionWithoutDigits, at: index) }
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            integral = false
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { throw NumberFailure(problem: .exponentWithoutDigits, at: index) }
        }
        return (index, integral)
    }

    /// Malformed JSON the grammar found: what (a ``NumberProblem`` or a ``StringProblem``), and where.
    @usableFromInline
    package struct Failure<Problem: Error & Sendable>: Error {
        /// What is wrong.
        @usableFromInline package let problem: Problem
        /// The offset where it was found: for a string, the control character or the backslash of the
        /// escape.
        @usableFromInline package let at: Int

        @inlinable
        package init(problem: Problem, at: Int) {
            self.problem = problem
            self.at = at
        }
    }

    /// A malformed number: what, and where.
    @usableFromInline
    package typealias NumberFailure = Failure<NumberProblem>

    // MARK: Strings

    /// What is wrong with a string.
    @usableFromInline
    package enum StringProblem: Error {
        /// A byte below 0x20, which JSON escapes.
        case controlCharacter
        /// A backslash before a character that is no escape.
        case unknownEscape
        /// `\u` without four hexadecimal digits.
        case shortUnicodeEscape
        /// No closing quote.
        case unterminated

        /// What is wrong, for an error message.
        package var message: String {
            switch self {
            case .controlCharacter: "a control character in a string (JSON escapes them)"
            case .unknownEscape: "an unknown escape in a string"
            case .shortUnicodeEscape: "a \\u escape without four hexadecimal digits"
            case .unterminated: "a string that never ends"
            }
        }
    }

    /// A malformed string: what, and where (the control character, or the backslash of the escape).
    @usableFromInline
    package typealias StringFailure = Failure<StringProblem>

    /// Scans a string's body, from just after its opening quote to its closing quote, checking that
    /// every escape is one JSON has (a `\u` with four hexadecimal digits); not what the escapes stand for
    /// (a lone surrogate) nor whether the bytes are UTF-8.
    /// - Parameters:
    ///   - bytes: The text.
    ///   - start: Just after the opening quote.
    /// - Returns: The offset of the closing quote, and whether an escape came before it.
    /// - Throws: ``StringFailure``.
    @inlinable @inline(__always)
    package static func string(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) throws(StringFailure) -> (end: Int, escaped: Bool) {
        var index = start
        var escaped = false
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") { return (index, escaped) }
            if byte == UInt8(ascii: "\\") {
                escaped = true
                guard index + 1 < bytes.count else { break }
                switch bytes[index + 1] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"),
                    UInt8(ascii: "t"):
                    index += 2
                case UInt8(ascii: "u"):
                    guard index + 6 <= bytes.count, hex(bytes[index + 2]) != nil, hex(bytes[index + 3]) != nil, hex(bytes[index + 4]) != nil,
                        hex(bytes[index + 5]) != nil
                    else { throw StringFailure(problem: .shortUnicodeEscape, at: index) }
                    index += 6
                default:
                    throw StringFailure(problem: .unknownEscape, at: index)
                }
                continue
            }
            if byte < 0x20 { throw StringFailure(problem: .controlCharacter, at: index) }
            index += 1
        }
        throw StringFailure(problem: .unterminated, at: index)
    }

    /// The value of a hexadecimal digit, or nil.
    @inlinable @inline(__always)
    package static func hex(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte &- 48)
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte &- 87)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte &- 55)
        default: nil
        }
    }

    /// What a string's body stands for, its escapes resolved: the UTF-8 bytes, in order.
    ///
    /// `\uD83D\uDE00` is one scalar. A surrogate that is not half of a pair is refused (nil) unless
    /// `repairing`, which writes U+FFFD for it (and for an escape cut short); the bytes between escapes
    /// are copied as they are (the caller checks or repairs their UTF-8).
    /// - Parameters:
    ///   - body: The bytes between the quotes, as ``string(in:from:)`` found them.
    ///   - repairing: Whether to write U+FFFD for what stands for no scalar, rather than refuse.
    ///   - emit: Receives the bytes.
    /// - Returns: False when a lone surrogate was refused.
    package static func unescape(_ body: UnsafeBufferPointer<UInt8>, repairing: Bool, _ emit: (UInt8) -> Void) -> Bool {
        var index = 0
        func quad(_ at: Int) -> UInt32? {
            guard at + 4 <= body.count, let a = hex(body[at]), let b = hex(body[at + 1]), let c = hex(body[at + 2]), let d = hex(body[at + 3]) else { return nil }
            return a << 12 | b << 8 | c << 4 | d
        }
        while index < body.count {
            let byte = body[index]
            guard byte == UInt8(ascii: "\\"), index + 1 < body.count else {
                emit(byte)
                index += 1
                continue
            }
            let kind = body[index + 1]
            index += 2
            switch kind {
            case UInt8(ascii: "b"): emit(0x08)
            case UInt8(ascii: "f"): emit(0x0C)
            case UInt8(ascii: "n"): emit(0x0A)
            case UInt8(ascii: "r"): emit(0x0D)
            case UInt8(ascii: "t"): emit(0x09)
            case UInt8(ascii: "u"):
                guard var scalar = quad(index) else {
                    guard repairing else { return false }
                    UTF8.encode("\u{FFFD}") { emit($0) }
                    continue
                }
                index += 4
                if (0xD800...0xDBFF).contains(scalar), index + 1 < body.count, body[index] == UInt8(ascii: "\\"), body[index + 1] == UInt8(ascii: "u"),
                    let low = quad(index + 2), (0xDC00...0xDFFF).contains(low)
                {
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    index += 6
                }
                guard let value = Unicode.Scalar(scalar) else {
                    guard repairing else { return false }
                    UTF8.encode("\u{FFFD}") { emit($0) }
                    continue
                }
                UTF8.encode(value) { emit($0) }
            default: emit(kind)  // `"`, `\`, `/` (or, repairing, whatever follows a backslash)
            }
        }
        return true
    }
}
