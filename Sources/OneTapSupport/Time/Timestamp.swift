/// ISO 8601 timestamps between 1970 and 9999: the one reader and the one writer of instants as text, for
/// the event stream (`"at":"2026-12-01T08:00:01.250Z"`), messages and the command line.
///
/// The grammar, read byte by byte without allocating:
///
/// ```text
/// YYYY-MM-DD [ (T|t|space) HH:MM [ :SS [ .fraction ] ] ] [ Z | z | ±HH | ±HH:MM | ±HHMM ]
/// ```
///
/// A date alone is its midnight, a time without an offset is UTC, a fraction finer than a millisecond is
/// cut. Impossible fields (a 13th month, 30 February, 24:00, second 60) are refused, and so is an
/// instant outside 1970-01-01T00:00:00.000Z … 9999-12-31T23:59:59.999Z. ``parse(_:)`` reads what a
/// person types (every form above, white space around it ignored); ``milliseconds(_:)`` reads what an
/// event line holds (a whole instant: `T`, seconds and an offset).
package enum Timestamp {
    /// The earliest instant a timestamp names: 1970-01-01T00:00:00.000Z, in milliseconds since 1970.
    package static let earliest: Int64 = 0
    /// The latest: 9999-12-31T23:59:59.999Z.
    package static let latest: Int64 = 253_402_300_799_999

    // MARK: Reading

    /// What a text is, by the grammar.
    package enum Reading: Equatable {
        /// An instant in range, and whether it was written whole (date, `T`, seconds, an offset).
        case instant(Int64, whole: Bool)
        /// Not the grammar.
        case malformed
        /// A field that cannot be, with why (`month 13 does not exist`).
        case impossible(String)
        /// An instant before 1970 or after 9999.
        case outOfRange
    }

    /// Reads a timestamp.
    /// - Parameter bytes: The text's UTF-8 bytes, nothing around it.
    /// - Returns: What they are.
    /// - Complexity: O(*n*); no allocation unless a field is impossible (its message).
    package static func read(_ bytes: UnsafeBufferPointer<UInt8>) -> Reading {
        var index = 0
        @inline(__always) func digits(_ count: Int) -> Int64? {
            guard index + count <= bytes.count else { return nil }
            var value: Int64 = 0
            for offset in 0..<count {
                let digit = bytes[index + offset] &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                value = value * 10 + Int64(digit)
            }
            index += count
            return value
        }
        @inline(__always) func take(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }
        // The year: four digits, or more for a year past 9999 (no leading zero then).
        var yearDigits = 0
        while yearDigits < 12, index + yearDigits < bytes.count, bytes[index + yearDigits] &- UInt8(ascii: "0") < 10 { yearDigits += 1 }
        guard yearDigits == 4 || (yearDigits > 4 && yearDigits < 12 && bytes[0] != UInt8(ascii: "0")), let year = digits(yearDigits) else { return .malformed }
        guard take(UInt8(ascii: "-")), let month = digits(2), take(UInt8(ascii: "-")), let day = digits(2) else { return .malformed }
        guard (1...12).contains(month) else { return .impossible("month \(month) does not exist") }
        guard day >= 1, day <= CivilDate.days(inMonth: month, of: year) else {
            return .impossible("\(year)-\(month < 10 ? "0" : "")\(month) has no day \(day)")
        }
        // Past 10000 no offset (at most a day) brings an instant back into range, and the milliseconds of a
        // year past 292,278,994 do not fit an Int64: such a year is out of range once the rest is read.
        let beyondRange = year > 10_000
        var milliseconds = beyondRange ? 0 : CivilDate.days(year: year, month: month, day: day) * 86_400_000
        var whole = false
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "t") || bytes[index] == UInt8(ascii: " ") {
            let separatorIsT = bytes[index] != UInt8(ascii: " ")
            index += 1
            guard let hour = digits(2), take(UInt8(ascii: ":")), let minute = digits(2) else { return .malformed }
            guard hour < 24, minute < 60 else { return .impossible("\(hour):\(minute) is no time of day") }
            milliseconds += (hour * 60 + minute) * 60_000
            if take(UInt8(ascii: ":")) {
                guard let second = digits(2) else { return .malformed }
                guard second < 60 else { return .impossible("second \(second) does not exist") }
                milliseconds += second * 1000
                whole = separatorIsT
                if take(UInt8(ascii: ".")) {
                    var fraction: Int64 = 0
                    var count = 0
                    while index < bytes.count, bytes[index] &- UInt8(ascii: "0") < 10 {
                        if count < 3 { fraction = fraction * 10 + Int64(bytes[index] &- UInt8(ascii: "0")) }
                        count += 1
                        index += 1
                    }
                    guard count > 0 else { return .malformed }
                    for _ in count..<max(count, 3) { fraction *= 10 }
                    milliseconds += fraction
                }
            }
            if index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "Z"), UInt8(ascii: "z"):
                    index += 1
                case UInt8(ascii: "+"), UInt8(ascii: "-"):
                    let sign: Int64 = bytes[index] == UInt8(ascii: "-") ? -1 : 1
                    index += 1
                    guard let hours = digits(2), hours < 24 else { return .malformed }
                    var minutes: Int64 = 0
                    if index < bytes.count {
                        _ = take(UInt8(ascii: ":"))  // ±HH:MM or ±HHMM
                        guard let value = digits(2), value < 60 else { return .malformed }
                        minutes = value
                    }
                    milliseconds -= sign * (hours * 60 + minutes) * 60_000
                default:
                    return .malformed
                }
            } else {
                whole = false
            }
        }
        guard index == bytes.count else { return .malformed }
        guard !beyondRange, milliseconds >= earliest, milliseconds <= latest else { return .outOfRange }
        return .instant(milliseconds, whole: whole)
    }

    /// Reads the whole instant an event line holds (`2026-12-01T08:00:01.250Z`, `…+08:00`).
    /// - Parameter bytes: The text's UTF-8 bytes.
    /// - Returns: Milliseconds since 1970, or nil for text that is no whole instant between 1970 and 9999.
    /// - Complexity: O(*n*); no allocation for any text that is one.
    package static func milliseconds(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard case .instant(let milliseconds, whole: true) = read(bytes) else { return nil }
        return milliseconds
    }

    /// Reads a timestamp a person typed, in any form of the grammar; spaces and tabs around it are
    /// ignored.
    /// - Parameter text: The text.
    /// - Returns: The instant.
    /// - Throws: ``ParseError`` with subject `timestamp`: `malformed`, or `out-of-range` for an impossible
    ///   field or an instant outside 1970–9999.
    package static func parse(_ text: String) throws(ParseError) -> Date {
        var copy = text
        let reading = copy.withUTF8 { utf8 -> Reading in
            var start = 0
            var end = utf8.count
            while start < end, utf8[start] == UInt8(ascii: " ") || utf8[start] == UInt8(ascii: "\t") { start += 1 }
            while end > start, utf8[end - 1] == UInt8(ascii: " ") || utf8[end - 1] == UInt8(ascii: "\t") { end -= 1 }
            return read(UnsafeBufferPointer(rebasing: utf8[start..<end]))
        }
        switch reading {
        case .instant(let milliseconds, _):
            return Date(millisecondsSince1970: milliseconds)
        case .impossible(let reason):
            throw ParseError(.timestamp, .outOfRange, input: text, reason: reason)
        case .outOfRange:
            throw ParseError(.timestamp, .outOfRange, input: text, reason: "a timestamp here lies between 1970-01-01 and 9999-12-31")
        case .malformed:
            throw ParseError(.timestamp, .malformed, input: text, reason: "not ISO 8601; write 2026-11-30T18:48:26Z (or with +08:00)")
        }
    }

    // MARK: Writing

    /// `2026-12-01T08:00:01.250Z`: UTC with milliseconds, as every event and message writes an instant.
    /// - Parameter milliseconds: Milliseconds since 1970 (a year outside 0000–9999 is written with its
    ///   sign and all its digits, `+10000-01-01T…`).
    /// - Returns: The text.
    package static func format(milliseconds: Int64) -> String {
        let (seconds, millisecond) = milliseconds.quotientAndRemainder(dividingBy: 1000)
        let whole = millisecond < 0 ? seconds - 1 : seconds
        let (dayNumber, secondOfDay) = whole.quotientAndRemainder(dividingBy: 86_400)
        let day = secondOfDay < 0 ? dayNumber - 1 : dayNumber
        let second = (secondOfDay + 86_400) % 86_400
        let date = CivilDate.date(day)
        var out: [UInt8] = []
        out.reserveCapacity(24)
        func append(_ value: Int64, _ count: Int) {
            var divisor: Int64 = 1
            for _ in 1..<count { divisor *= 10 }
            while divisor > 0 {
                out.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
                divisor /= 10
            }
        }
        if (0...9999).contains(date.year) {
            append(date.year, 4)
        } else {
            out.append(contentsOf: (date.year < 0 ? "-" : "+").utf8)
            out.append(contentsOf: String(date.year.magnitude).utf8)
        }
        out.append(UInt8(ascii: "-"))
        append(date.month, 2)
        out.append(UInt8(ascii: "-"))
        append(date.day, 2)
        out.append(UInt8(ascii: "T"))
        append(second / 3600, 2)
        out.append(UInt8(ascii: ":"))
        append(second / 60 % 60, 2)
        out.append(UInt8(ascii: ":"))
        append(second % 60, 2)
        out.append(UInt8(ascii: "."))
        append((millisecond + 1000) % 1000, 3)
        out.append(UInt8(ascii: "Z"))
        return String(decoding: out, as: UTF8.self)
    }

    /// An instant as ``format(milliseconds:)`` writes it, rounded to the nearest millisecond.
    /// - Parameter date: The instant.
    /// - Returns: `2026-11-30T18:48:26.000Z`.
    package static func format(_ date: Date) -> String {
        format(milliseconds: date.millisecondsSince1970)
    }
}

extension Date {
    /// `2026-11-30T18:48:26.123Z`: ISO 8601 in UTC with milliseconds, rounded to the nearest (what
    /// ``Timestamp/format(_:)`` writes).
    package var iso8601: String { Timestamp.format(self) }
}
