import Foundation
import Testing
@testable import OneTapSupport

/// The calendar rule, written once: leap years, month lengths, and days since 1970 both ways, checked
/// against Foundation's Gregorian calendar in UTC.
@Suite struct CivilDateTests {
    @Test(arguments: [(Int64(1900), false), (2000, true), (2024, true), (2026, false), (2100, false), (2400, true), (1970, false), (9996, true)])
    func leapYears(year: Int64, leap: Bool) {
        #expect(CivilDate.isLeap(year) == leap)
        #expect(CivilDate.days(inMonth: 2, of: year) == (leap ? 29 : 28))
    }

    @Test func monthLengths() {
        #expect((1...12).map { CivilDate.days(inMonth: $0, of: 2026) } == [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31])
    }

    @Test func daysAgreeWithFoundationsCalendar() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: "UTC"))
        var random = SplitMix64(seed: 23)
        for _ in 0..<2_000 {
            let day = Int64(random.next() % 2_932_897)  // 1970-01-01 … 9999-12-31
            let date = CivilDate.date(day)
            let components = calendar.dateComponents([.year, .month, .day], from: Date(timeIntervalSince1970: Double(day) * 86_400))
            #expect(components.year.map(Int64.init) == date.year && components.month.map(Int64.init) == date.month && components.day.map(Int64.init) == date.day)
            #expect(CivilDate.days(year: date.year, month: date.month, day: date.day) == day)
        }
    }
}
