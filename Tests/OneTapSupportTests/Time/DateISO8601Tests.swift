import Foundation
import Testing
@testable import OneTapSupport

/// ISO 8601 instants as the event stream writes and reads them (expected values from Python's datetime).
@Suite struct DateISO8601Tests {
    static func parse(_ text: String) -> Int64? {
        var text = text
        return text.withUTF8 { UTCMilliseconds.parse($0) }
    }

    @Test(arguments: [
        (Int64(0), "1970-01-01T00:00:00.000Z"),
        (951_782_400_000, "2000-02-29T00:00:00.000Z"),
        (1_796_112_001_250, "2026-12-01T08:00:01.250Z"),
        (-1, "1969-12-31T23:59:59.999Z"),
        (253_402_300_799_999, "9999-12-31T23:59:59.999Z"),
    ])
    func formatsAndReadsBack(milliseconds: Int64, text: String) {
        #expect(UTCMilliseconds.format(milliseconds) == text)
        #expect(Self.parse(text) == milliseconds)
        #expect(Date(timeIntervalSince1970: Double(milliseconds) / 1000).iso8601 == text)
    }

    @Test(arguments: [
        ("2026-12-01T16:00:01.250+08:00", Int64(1_796_112_001_250)),
        ("2026-12-01T16:00:01.250+0800", 1_796_112_001_250),
        ("2026-12-01t08:00:01.25z", 1_796_112_001_250),
        ("2026-12-01T08:00:01Z", 1_796_112_001_000),
        ("2026-12-01T08:00:01.2509999Z", 1_796_112_001_250),
        ("2026-12-01T03:00:01.250-05:00", 1_796_112_001_250),
    ])
    func readsOtherForms(text: String, milliseconds: Int64) {
        #expect(Self.parse(text) == milliseconds)
    }

    @Test(arguments: [
        "", "2026-12-01", "2026-12-01T08:00:01", "2026-12-01 08:00:01Z", "2026-13-01T08:00:01Z", "2026-02-29T08:00:01Z",
        "2026-12-01T24:00:00Z", "2026-12-01T08:00:01.Z", "2026-12-01T08:00:01Zjunk", "2026-12-01T08:00:01+8", "２026-12-01T08:00:01Z",
    ])
    func refusesWhatIsNoInstant(text: String) {
        #expect(Self.parse(text) == nil)
    }

    @Test func aDateIsRoundedToTheNearestMillisecond() {
        #expect(Date(timeIntervalSince1970: 1_796_083_200.8).iso8601 == "2026-12-01T00:00:00.800Z")
        #expect(Date(timeIntervalSince1970: 1_796_083_200.9996).iso8601 == "2026-12-01T00:00:01.000Z")
    }
}
