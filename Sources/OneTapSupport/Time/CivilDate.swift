/// The proleptic Gregorian calendar in whole days since 1970-01-01: the one place that knows how long
/// a month is and which years leap (Howard Hinnant's `days_from_civil` and `civil_from_days`), for the
/// ISO 8601 reader and writer.
package enum CivilDate {
    /// Whether a year has a 29 February: every fourth year, but not a century unless it is a fourth century.
    /// - Parameter year: The year (proleptic Gregorian, astronomical numbering).
    /// - Returns: True for 2000 and 2024, false for 1900 and 2026.
    @inline(__always)
    package static func isLeap(_ year: Int64) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    /// How many days a month has.
    /// - Parameters:
    ///   - month: The month, 1 to 12.
    ///   - year: The year.
    /// - Returns: 28 to 31.
    @inline(__always)
    package static func days(inMonth month: Int64, of year: Int64) -> Int64 {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a date (`days_from_civil`).
    /// - Parameters:
    ///   - year: The year.
    ///   - month: The month, 1 to 12.
    ///   - day: The day of the month, from 1.
    /// - Returns: The days, negative before 1970.
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
    /// - Parameter days: The days, negative before 1970.
    /// - Returns: The year, month (1 to 12) and day (from 1).
    package static func date(_ days: Int64) -> (year: Int64, month: Int64, day: Int64) {
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
}
