import Foundation
import OneTapCore
import OneTapInsights
import Testing

/// The event lines written at commit 37018e5 (`Tests/Golden/events/events.ndjson`, see
/// `OneTapTests/Golden/GoldenEventTests`) read back by what `onetap stats` and `onetap replay` run.
@Suite struct GoldenEventStatsTests {
    static func lines() throws -> [String] {
        let data = try Data(contentsOf: URL(fileURLWithPath: Package.path("Tests/Golden/events/events.ndjson")))
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// Milliseconds since 1970 of ISO 8601 text, read by Foundation.
    static func ms(_ iso: String) -> Int64? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: iso).map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) }
    }

    /// `LoginStats` (what `onetap stats` and `onetap replay` run) counts the lines: three logins (one
    /// one-tap success, one cancelled, one still at Unicom), the failure of a login whose plan is not in
    /// the stream as an orphan, token and SMS lines skipped.
    @Test func loginStatsCountsTheLines() throws {
        var stats = LoginStats()
        for line in try Self.lines() { try stats.add(line) }
        let summary = stats.readSummary
        #expect(summary.lines == 43)
        #expect(summary.loginEvents == 22)
        #expect(summary.ignored == 21)   // 9 token lines (one per kind) and 12 SMS lines
        #expect(summary.malformed == 0)
        #expect(summary.orphans == 1)
        #expect(summary.logins == 3)
        #expect(summary.peakOpenLogins == 1)
        #expect(summary.first == Self.ms("2026-12-01T08:02:00.500Z"))
        #expect(summary.last == Self.ms("2026-12-01T08:10:05.250Z"))
        #expect(stats.openLogins == 1)
        stats.finish()
        #expect(stats.openLogins == 0)
        let funnel = stats.funnel()
        #expect(funnel.rows.count == 1)
        let row = try #require(funnel.rows.first)
        #expect(row.carrier == .mobile && row.firstFlow == .mobile)
        #expect(row.logins == 3)
        #expect(row.oneTap == 1)
        #expect(row.sms == 0)
        #expect(row.cancelled == 1)
        #expect(row.failed == 0)
        #expect(row.unfinished == 1)
        #expect(row.results == 6)
        #expect(row.alerts.count == 2)
        #expect(row.alerts.logins == 1)
        #expect(row.alerts.toSMS == 0)
        #expect(row.successP50 == 1501)
    }
}
