#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// ISO 8601 timestamps between 1970 and 9999: `2026-11-30T18:48:26Z`, with fractional seconds or an
/// offset (`+08:00`) as well.
package enum Timestamp {
    /// Reads a timestamp.
    /// - Parameter text: The text (surrounding spaces and tabs are ignored).
    /// - Returns: The instant.
    /// - Throws: ``ParseError`` with subject `timestamp`: `malformed`, or `out-of-range` outside 1970–9999.
    package static func parse(_ text: String) throws(ParseError) -> Date {
        var slice = Substring(text)
        while let first = slice.first, first == " " || first == "\t" { slice.removeFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice.removeLast() }
        let trimmed = String(slice)
        if let fast = utc(trimmed) { return fast }
        // The formatters roll impossible fields over (30 February → 2 March, 24:00 → the next day): refuse them first.
        if let problem = impossibleField(Array(trimmed.utf8)) {
            throw ParseError(.timestamp, .outOfRange, input: text, reason: problem)
        }
        let styles: [Date.ISO8601FormatStyle] = [
            .iso8601,
            Date.ISO8601FormatStyle(includingFractionalSeconds: true),
            Date.ISO8601FormatStyle(timeZone: .gmt).year().month().day().dateTimeSeparator(.standard).time(includingFractionalSeconds: false),
            Date.ISO8601FormatStyle(timeZone: .gmt).year().month().day(),
        ]
        for style in styles {
            if let date = try? Date(trimmed, strategy: style) {
                let seconds = date.timeIntervalSince1970
                guard seconds >= 0, seconds < 253_402_300_800 else {
                    throw ParseError(.timestamp, .outOfRange, input: text, reason: "a timestamp here lies between 1970-01-01 and 9999-12-31")
                }
                return date
            }
        }
        throw ParseError(.timestamp, .malformed, input: text, reason: "not ISO 8601; write 2026-11-30T18:48:26Z (or with +08:00)")
    }

    /// The common form `2026-11-30T18:48:26Z` (optionally `.123` before the `Z`), read without a
    /// formatter; nil for anything else (the formatters then decide).
    private static func utc(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count == 20 || (bytes.count >= 22 && bytes.count <= 30 && bytes[19] == UInt8(ascii: ".")), bytes.last == UInt8(ascii: "Z"),
            bytes[4] == 45, bytes[7] == 45, bytes[10] == UInt8(ascii: "T"), bytes[13] == 58, bytes[16] == 58
        else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                let digit = bytes[index] &- 48
                guard digit < 10 else { return nil }
                value = value * 10 + Int(digit)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
            let minute = number(14..<16), let second = number(17..<19), year >= 1970, (1...12).contains(month), hour < 24, minute < 60, second < 60
        else { return nil }
        let monthDays = [31, (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard (1...monthDays[month - 1]).contains(day) else { return nil }
        var fraction = 0.0
        if bytes.count > 20 {
            guard let digits = number(20..<(bytes.count - 1)) else { return nil }
            fraction = Double(digits) / pow10(bytes.count - 21)
        }
        // Days since 1970-01-01 of a civil date (H. Hinnant's days_from_civil).
        let y = month <= 2 ? year - 1 : year
        let era = y / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return Date(timeIntervalSince1970: Double(days * 86_400 + hour * 3_600 + minute * 60 + second) + fraction)
    }

    /// Why the date or time fields of `YYYY-MM-DD[THH:MM[:SS]…]` cannot be, or nil.
    private static func impossibleField(_ bytes: [UInt8]) -> String? {
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= bytes.count else { return nil }
            var value = 0
            for index in range {
                let digit = bytes[index] &- 48
                guard digit < 10 else { return nil }
                value = value * 10 + Int(digit)
            }
            return value
        }
        guard bytes.count >= 10, bytes[4] == 45, bytes[7] == 45, let year = number(0..<4), let month = number(5..<7), let day = number(8..<10) else { return nil }
        guard (1...12).contains(month) else { return "month \(month) does not exist" }
        let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        guard (1...days).contains(day) else { return "\(year)-\(month < 10 ? "0" : "")\(month) has no day \(day)" }
        guard bytes.count >= 16, bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: " "), let hour = number(11..<13), let minute = number(14..<16) else { return nil }
        guard hour < 24, minute < 60 else { return "\(hour):\(minute) is no time of day" }
        if bytes.count >= 19, bytes[16] == 58, let second = number(17..<19), second >= 60 { return "second \(second) does not exist" }
        return nil
    }

    private static func pow10(_ exponent: Int) -> Double {
        var value = 1.0
        for _ in 0..<exponent { value *= 10 }
        return value
    }

    /// The instant with milliseconds, in UTC.
    /// - Parameter date: The instant.
    /// - Returns: `2026-11-30T18:48:26.000Z`.
    package static func format(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
