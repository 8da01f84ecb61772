import Foundation
import Testing
@testable import OneTapSupport

/// The one ISO 8601 reader and writer: every form a person may type, the whole instants an event line
/// holds, every refusal and its reason, checked against values worked out by hand (Python's datetime)
/// and against Foundation's `ISO8601DateFormatter`.
@Suite struct TimestampTests {
    static func milliseconds(_ text: String) -> Int64? {
        var text = text
        return text.withUTF8 { Timestamp.milliseconds($0) }
    }

    // MARK: What a person types (`parse`)

    @Test(arguments: [
        ("1970-01-01T00:00:00Z", 0.0), ("2026-12-01T00:00:00Z", 1_796_083_200), ("2000-02-29T12:34:56Z", 951_827_696),
        ("2026-11-30T18:48:26.250Z", 1_796_064_506.25), ("2026-12-01T08:00:00+08:00", 1_796_083_200), ("2026-12-01", 1_796_083_200),
        (" 2026-12-01T00:00:00Z\t", 1_796_083_200), ("9999-12-31T23:59:59Z", 253_402_300_799), ("2026-12-01T00:00:00", 1_796_083_200),
        ("2024-02-29T00:00:00+08:00", 1_709_136_000),
        // A space for the `T`, no seconds, an offset without its colon or its minutes, lower case.
        ("2026-12-01 08:00:01Z", 1_796_112_001), ("2026-12-01 08:00:01", 1_796_112_001), ("2026-12-01T08:00Z", 1_796_112_000),
        ("2026-12-01 08:00", 1_796_112_000), ("2026-12-01T16:00:01+0800", 1_796_112_001), ("2026-12-01T16:00:01+08", 1_796_112_001),
        ("2026-12-01t08:00:01.5z", 1_796_112_001.5), ("2026-12-01T03:00:01-05:00", 1_796_112_001), ("2026-12-01T08:00:01-00:00", 1_796_112_001),
        ("2026-12-01T08:00:01.123456789Z", 1_796_112_001.123), ("2026-12-01 08:00:01.5+08:00", 1_796_083_201.5),
        ("9999-12-31T23:59:59.999Z", 253_402_300_799.999), ("1970-01-01T08:00:00+08:00", 0),
        // A year past 9999 that an offset brings back into range (date -u -d '9999-12-31T23:30:00Z' +%s: 253402299000).
        ("10000-01-01T00:30:00+01:00", 253_402_299_000),
    ])
    func knownInstants(_ text: String, _ seconds: Double) throws {
        #expect(try Timestamp.parse(text) == Date(millisecondsSince1970: Int64((seconds * 1000).rounded())))
    }

    /// Each refusal with the reason the command line prints.
    @Test(arguments: [
        ("2026-02-29T00:00:00Z", "out-of-range", "2026-02 has no day 29"), ("2026-02-29T00:00:00+08:00", "out-of-range", "2026-02 has no day 29"),
        ("2026-13-01T00:00:00Z", "out-of-range", "month 13 does not exist"), ("2026-00-01", "out-of-range", "month 0 does not exist"),
        ("2026-12-00", "out-of-range", "2026-12 has no day 0"), ("2026-12-01T24:00:00Z", "out-of-range", "24:0 is no time of day"),
        ("2026-12-01T23:60:00Z", "out-of-range", "23:60 is no time of day"), ("2026-12-01T08:00:60Z", "out-of-range", "second 60 does not exist"),
        ("1969-12-31T23:59:59Z", "out-of-range", "a timestamp here lies between 1970-01-01 and 9999-12-31"),
        ("1970-01-01T07:59:59+08:00", "out-of-range", "a timestamp here lies between 1970-01-01 and 9999-12-31"),
        ("9999-12-31T23:59:59-01:00", "out-of-range", "a timestamp here lies between 1970-01-01 and 9999-12-31"),
        ("10000-01-01T00:00:00Z", "out-of-range", "a timestamp here lies between 1970-01-01 and 9999-12-31"),
        ("0999-01-01", "out-of-range", "a timestamp here lies between 1970-01-01 and 9999-12-31"),
        // Years whose milliseconds pass Int64 trapped before the range was checked (an attacker's read: a guest's
        // stored `at` crashed the server at every login that merged it).
        ("999999999-01-01", "out-of-range", "a timestamp here lies between 1970-01-01 and 9999-12-31"),
        ("99999999999-12-31T23:59:59.999Z", "out-of-range", "a timestamp here lies between 1970-01-01 and 9999-12-31"),
        ("292278995-01-01T00:00:00+08:00", "out-of-range", "a timestamp here lies between 1970-01-01 and 9999-12-31"),
        ("10001-01-01T00:00:00+23:59", "out-of-range", "a timestamp here lies between 1970-01-01 and 9999-12-31"),
        ("999999999-02-30", "out-of-range", "999999999-02 has no day 30"), ("999999999-01-01junk", "malformed", "not ISO 8601"),
        ("yesterday", "malformed", "not ISO 8601; write 2026-11-30T18:48:26Z (or with +08:00)"),
        ("12/01/2026", "malformed", "not ISO 8601; write 2026-11-30T18:48:26Z (or with +08:00)"),
        ("2026-12-01junk", "malformed", "not ISO 8601"), ("2026-12-01T8:00:01Z", "malformed", "not ISO 8601"), ("2026-1-01", "malformed", "not ISO 8601"),
        ("2026-12-01T08:00:01.Z", "malformed", "not ISO 8601"), ("2026-12-01T08:00:01+8:00", "malformed", "not ISO 8601"),
        ("2026-12-01T08:00:01+08:0", "malformed", "not ISO 8601"), ("2026-12-01T08:00:01+24:00", "malformed", "not ISO 8601"),
        ("2026-12-01T08:00:01Zjunk", "malformed", "not ISO 8601"), ("20261201T080001Z", "malformed", "not ISO 8601"), ("", "malformed", "not ISO 8601"),
        ("２026-12-01", "malformed", "not ISO 8601"), ("+2026-12-01", "malformed", "not ISO 8601"), ("2026-12-01T08", "malformed", "not ISO 8601"),
    ])
    func refused(_ text: String, kind: String, reason: String) {
        #expect {
            try Timestamp.parse(text)
        } throws: { error in
            guard let error = error as? ParseError else { return false }
            return error.subject == .timestamp && error.kind.id == kind && error.reason.hasPrefix(reason) && error.input == text
        }
    }

    // MARK: What an event line holds (`milliseconds`)

    @Test(arguments: [
        (Int64(0), "1970-01-01T00:00:00.000Z"),
        (951_782_400_000, "2000-02-29T00:00:00.000Z"),
        (1_796_112_001_250, "2026-12-01T08:00:01.250Z"),
        (253_402_300_799_999, "9999-12-31T23:59:59.999Z"),
    ])
    func formatsAndReadsBack(milliseconds: Int64, text: String) {
        #expect(Timestamp.format(milliseconds: milliseconds) == text)
        #expect(Self.milliseconds(text) == milliseconds)
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
        #expect(Self.milliseconds(text) == milliseconds)
    }

    /// An event's `at` is a whole instant: a date alone, a time without seconds or an offset, a space for
    /// the `T`, and anything a person's form would refuse are refused (as is 1969, outside the range).
    @Test(arguments: [
        "", "2026-12-01", "2026-12-01T08:00:01", "2026-12-01 08:00:01Z", "2026-12-01T08:00Z", "2026-13-01T08:00:01Z", "2026-02-29T08:00:01Z",
        "2026-12-01T24:00:00Z", "2026-12-01T08:00:01.Z", "2026-12-01T08:00:01Zjunk", "2026-12-01T08:00:01+8", "２026-12-01T08:00:01Z",
        "1969-12-31T23:59:59.999Z", "2026-12-01T08:00:60Z", " 2026-12-01T08:00:01Z",
    ])
    func refusesWhatIsNoInstant(text: String) {
        #expect(Self.milliseconds(text) == nil)
    }

    @Test func aDateIsRoundedToTheNearestMillisecond() {
        #expect(Date(timeIntervalSince1970: 1_796_083_200.8).iso8601 == "2026-12-01T00:00:00.800Z")
        #expect(Date(timeIntervalSince1970: 1_796_083_200.9996).iso8601 == "2026-12-01T00:00:01.000Z")
        #expect(Timestamp.format(Date(timeIntervalSince1970: 1_796_083_200.0625)) == "2026-12-01T00:00:00.063Z", "a half rounds away from zero")
        #expect(Timestamp.format(milliseconds: -1) == "1969-12-31T23:59:59.999Z", "the writer writes any instant")
    }

    // MARK: Beside Foundation

    /// 4,000 instants from 1970 to 9999, each with milliseconds: what this writes, Foundation's
    /// `ISO8601DateFormatter` reads as the same instant; what Foundation writes, this reads as the same.
    @Test func agreesWithFoundationFrom1970To9999() throws {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let whole = ISO8601DateFormatter()
        whole.formatOptions = [.withInternetDateTime]
        var random = SplitMix64(seed: 7)
        for _ in 0..<4_000 {
            let milliseconds = Int64(random.next() % UInt64(Timestamp.latest + 1))
            let text = Timestamp.format(milliseconds: milliseconds)
            let read = try #require(formatter.date(from: text), "\(text)")
            #expect(abs(read.timeIntervalSince1970 * 1000 - Double(milliseconds)) < 0.5, "\(text)")
            // Foundation's text of the whole second, and with its fraction (which it may cut a hair short).
            let seconds = milliseconds / 1000
            #expect(Self.milliseconds(whole.string(from: Date(timeIntervalSince1970: Double(seconds)))) == seconds * 1000)
            let foundation = formatter.string(from: Date(millisecondsSince1970: milliseconds))
            let back = try #require(Self.milliseconds(foundation), "\(foundation)")
            #expect(abs(back - milliseconds) <= 1, "\(foundation)")
            #expect(try Timestamp.parse(text) == Date(millisecondsSince1970: milliseconds))
        }
    }
}
