import Foundation
import Testing
@testable import OneTapSupport

/// The one conversion between a `Date` and the stored instant (whole milliseconds since 1970).
@Suite struct MillisecondsTests {
    /// A half millisecond rounds away from zero (dates whose `timeIntervalSince1970` is exact in binary,
    /// `…0625`, so the expected count is beyond doubt), anything less than half down. (A `Date` near
    /// 1970 holds its instant to about 0.1 µs, so `1.0005` is a hair under the half and rounds down.)
    @Test(arguments: [
        (0.0, Int64(0)), (0.0625, 63), (0.0624, 62), (0.9375, 938), (1.0006, 1001), (1.0004, 1000), (1.0005, 1000),
        (1_796_083_200.0625, 1_796_083_200_063), (1_796_083_200.25, 1_796_083_200_250), (1_796_083_200.9996, 1_796_083_201_000),
        (253_402_300_799.999, 253_402_300_799_999), (253_402_300_799.9995, 253_402_300_800_000),
    ])
    func roundsToTheNearestMillisecond(seconds: Double, milliseconds: Int64) {
        #expect(Date(timeIntervalSince1970: seconds).millisecondsSince1970 == milliseconds)
        // A count past 9999-12-31T23:59:59.999Z is no stored instant: rounding leaves such a date as it is (a writer refuses it).
        let stored = milliseconds <= 253_402_300_799_999 ? Date(millisecondsSince1970: milliseconds) : Date(timeIntervalSince1970: seconds)
        #expect(Date(timeIntervalSince1970: seconds).roundedToMilliseconds == stored)
    }

    /// The bound is the next whole millisecond, and the `Date` of a whole millisecond (which may be a hair
    /// above it in binary) is that millisecond.
    @Test(arguments: [
        (0.0, Int64(0)), (0.0001, 1), (0.001, 1), (0.0011, 2), (1_796_083_200.2501, 1_796_083_200_251), (1_796_083_200.25, 1_796_083_200_250),
        (1_796_112_000.75, 1_796_112_000_750), (1_796_083_200.0004, 1_796_083_200_001),
    ])
    func theBoundRoundsUp(seconds: Double, milliseconds: Int64) {
        #expect(Date(timeIntervalSince1970: seconds).millisecondsSince1970RoundedUp == milliseconds)
    }

    @Test func theBoundOfAStoredInstantIsItself() {
        var random = SplitMix64(seed: 29)
        var wrong: [Int64] = []
        for _ in 0..<20_000 {
            let milliseconds = Int64(random.next() % 253_402_300_800_000)
            if Date(millisecondsSince1970: milliseconds).millisecondsSince1970RoundedUp != milliseconds { wrong.append(milliseconds) }
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(10))")
    }

    /// Counts from 1970 to 9999 come back from their `Date` unchanged, and are the `Date` of their
    /// seconds as `timeIntervalSince1970` (what tests and `AccessToken` write).
    @Test func everyMillisecondComesBack() {
        var random = SplitMix64(seed: 19)
        var wrong: [Int64] = []
        for _ in 0..<20_000 {
            let milliseconds = Int64(random.next() % 253_402_300_800_000)
            let date = Date(millisecondsSince1970: milliseconds)
            if date.millisecondsSince1970 != milliseconds || date != Date(timeIntervalSince1970: Double(milliseconds) / 1000) || !date.hasMillisecondsSince1970 {
                wrong.append(milliseconds)
            }
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(10))")
    }

    @Test func instantsWithNoCountAreSaidSoAndClamped() {
        #expect(!Date(timeIntervalSince1970: .nan).hasMillisecondsSince1970)
        #expect(!Date(timeIntervalSince1970: .infinity).hasMillisecondsSince1970)
        #expect(!Date(timeIntervalSince1970: 1e17).hasMillisecondsSince1970, "beyond an Int64 of milliseconds")
        #expect(!Date(timeIntervalSince1970: 253_402_300_800).hasMillisecondsSince1970, "the year 10000")
        #expect(!Date(timeIntervalSince1970: -62_135_596_800.001).hasMillisecondsSince1970, "before the year 1")
        #expect(Date(timeIntervalSince1970: -62_135_596_800).hasMillisecondsSince1970)
        #expect(Date(timeIntervalSince1970: 1e17).millisecondsSince1970 == .max)
        #expect(Date(timeIntervalSince1970: -1e17).millisecondsSince1970 == .min)
        #expect(Date(timeIntervalSince1970: .nan).millisecondsSince1970 == 0)
        #expect(Date(timeIntervalSince1970: .infinity).roundedToMilliseconds == Date(timeIntervalSince1970: .infinity), "kept, for a writer to refuse")
    }
}
