import Foundation
import Testing
@testable import OneTapSupport

@Suite struct TimestampTests {
    @Test(arguments: [
        ("1970-01-01T00:00:00Z", 0.0), ("2026-12-01T00:00:00Z", 1_796_083_200), ("2000-02-29T12:34:56Z", 951_827_696),
        ("2026-11-30T18:48:26.250Z", 1_796_064_506.25), ("2026-12-01T08:00:00+08:00", 1_796_083_200), ("2026-12-01", 1_796_083_200),
        (" 2026-12-01T00:00:00Z\t", 1_796_083_200), ("9999-12-31T23:59:59Z", 253_402_300_799), ("2026-12-01T00:00:00", 1_796_083_200),
        ("2024-02-29T00:00:00+08:00", 1_709_136_000),
    ])
    func knownInstants(_ text: String, _ seconds: Double) throws {
        #expect(try Timestamp.parse(text).timeIntervalSince1970 == seconds)
    }

    @Test(arguments: ["2026-02-29T00:00:00Z", "2026-02-29T00:00:00+08:00", "2026-13-01T00:00:00Z", "2026-12-01T24:00:00Z", "2026-12-01T23:60:00Z",
                      "1969-12-31T23:59:59Z", "yesterday", "12/01/2026"])
    func refused(_ text: String) {
        #expect(throws: ParseError.self) { try Timestamp.parse(text) }
    }

    /// The fast path agrees with Foundation's formatter on 20,000 instants from 1970 to 2100.
    @Test func theFastPathAgreesWithFoundation() throws {
        var random = SplitMix64(seed: 7)
        for _ in 0..<20_000 {
            let seconds = Double(random.next() % 4_102_444_800)
            let text = Date(timeIntervalSince1970: seconds).formatted(.iso8601)
            #expect(try Timestamp.parse(text).timeIntervalSince1970 == seconds, "\(text)")
        }
    }
}
