import Foundation
import OneTap
import OneTapSupport

/// China Mobile's `systemtime`: 17 digits, `yyyyMMddHHmmssSSS` (`20121227180001165`), at a given offset from UTC.
package enum SystemTime17 {
    /// Formats an instant.
    /// - Parameters:
    ///   - date: The instant (from the gateway's clock).
    ///   - offset: The offset from UTC (within a day either way).
    /// - Returns: The 17 digits (years 0…9999; outside them, the nearest end).
    package static func format(_ date: Date, offset: Duration) -> String {
        let clamped = min(max(date.millisecondsSince1970, Timestamp.earliest), Timestamp.latest)
        let offsetMilliseconds = min(max(offset.components.seconds, -86_400), 86_400) * 1000
        let milliseconds = min(max(clamped + offsetMilliseconds, Timestamp.earliest), Timestamp.latest)
        let (seconds, millisecond) = milliseconds.quotientAndRemainder(dividingBy: 1000)
        let (day, secondOfDay) = seconds.quotientAndRemainder(dividingBy: 86_400)
        let civil = CivilDate.date(day)
        func digits(_ value: Int64, _ count: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, count - text.count)) + text
        }
        return digits(civil.year, 4) + digits(civil.month, 2) + digits(civil.day, 2) + digits(secondOfDay / 3600, 2)
            + digits(secondOfDay / 60 % 60, 2) + digits(secondOfDay % 60, 2) + digits(millisecond, 3)
    }
}
