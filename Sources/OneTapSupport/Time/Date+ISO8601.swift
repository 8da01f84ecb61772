#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Date {
    /// `2026-11-30T18:48:26.123Z`: ISO 8601 in UTC with milliseconds (rounded to the nearest), as every
    /// OneTap event and message writes time.
    package var iso8601: String {
        let milliseconds = (timeIntervalSince1970 * 1000).rounded()
        guard milliseconds >= -62_167_219_200_000, milliseconds < 253_402_300_800_000 else {  // outside years 0 to 9999: let Foundation say it
            return formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
        }
        return UTCMilliseconds.format(Int64(milliseconds))
    }
}

/// Instants as whole milliseconds since 1970 in UTC, written and read as ISO 8601
/// (`2026-12-01T08:00:01.250Z`) without Foundation's formatters: the event stream writes and reads one
/// per line.
package enum UTCMilliseconds {
    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
    @inline(__always)
    package static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date of a day since 1970-01-01 (`civil_from_days`).
    package static func civil(_ days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// `2026-12-01T08:00:01.250Z`.
    /// - Parameter milliseconds: Milliseconds since 1970 (years 0 to 9999).
    /// - Returns: The text.
    package static func format(_ milliseconds: Int64) -> String {
        let (seconds, millisecond) = milliseconds.quotientAndRemainder(dividingBy: 1000)
        let whole = millisecond < 0 ? seconds - 1 : seconds
        let (dayNumber, secondOfDay) = whole.quotientAndRemainder(dividingBy: 86_400)
        let day = secondOfDay < 0 ? dayNumber - 1 : dayNumber
        let second = (secondOfDay + 86_400) % 86_400
        let date = civil(day)
        func digits(_ value: Int64, _ count: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, count - text.count)) + text
        }
        return "\(digits(date.year, 4))-\(digits(date.month, 2))-\(digits(date.day, 2))T\(digits(second / 3600, 2)):\(digits(second / 60 % 60, 2)):\(digits(second % 60, 2)).\(digits((millisecond + 1000) % 1000, 3))Z"
    }

    /// Reads `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM|±HHMM)` (`t` and `z` accepted too); the fraction
    /// may have any number of digits and is cut to milliseconds.
    /// - Parameter bytes: The text's UTF-8 bytes.
    /// - Returns: Milliseconds since 1970, or nil when the text is not such a timestamp (or names a day
    ///   that does not exist).
    /// - Complexity: O(*n*); no allocation.
    package static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        let count = bytes.count
        guard count >= 20 else { return nil }
        @inline(__always) func number(_ from: Int, _ length: Int) -> Int64? {
            var value: Int64 = 0
            for index in from..<(from + length) {
                let digit = bytes[index] &- 48
                guard digit < 10 else { return nil }
                value = value * 10 + Int64(digit)
            }
            return value
        }
        guard let year = number(0, 4), bytes[4] == UInt8(ascii: "-"), let month = number(5, 2), bytes[7] == UInt8(ascii: "-"),
            let day = number(8, 2), bytes[10] | 0x20 == UInt8(ascii: "t"), let hour = number(11, 2), bytes[13] == UInt8(ascii: ":"),
            let minute = number(14, 2), bytes[16] == UInt8(ascii: ":"), let second = number(17, 2)
        else { return nil }
        guard (1...12).contains(month), day >= 1, hour < 24, minute < 60, second < 61 else { return nil }
        let monthDays: [Int64] = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        guard day <= monthDays[Int(month - 1)] + (month == 2 && leap ? 1 : 0) else { return nil }
        var index = 19
        var millisecond: Int64 = 0
        if bytes[index] == UInt8(ascii: ".") {
            index += 1
            var digits = 0
            while index < count, bytes[index] &- 48 < 10 {
                if digits < 3 { millisecond = millisecond * 10 + Int64(bytes[index] &- 48) }
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
            for _ in digits..<max(digits, 3) { millisecond *= 10 }
        }
        guard index < count else { return nil }
        var offset: Int64 = 0
        switch bytes[index] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            index += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            let sign: Int64 = bytes[index] == UInt8(ascii: "-") ? -1 : 1
            index += 1
            guard index + 2 <= count, let hours = number(index, 2) else { return nil }
            index += 2
            if index < count, bytes[index] == UInt8(ascii: ":") { index += 1 }
            guard index + 2 <= count, let minutes = number(index, 2), hours < 24, minutes < 60 else { return nil }
            index += 2
            offset = sign * (hours * 60 + minutes) * 60_000
        default:
            return nil
        }
        guard index == count else { return nil }
        let seconds = days(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second
        return seconds * 1000 + millisecond - offset
    }
}
