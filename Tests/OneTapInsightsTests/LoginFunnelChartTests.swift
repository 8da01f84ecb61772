import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import OneTapChildProcess
import Testing
import OneTapCore
@testable import OneTapInsights
import OneTapSupport

/// The funnel chart read back as XML: one bar per carrier, segments as wide as their counts say.
@Suite struct LoginFunnelChartTests {
    static func chart(_ lines: [String] = LoginStatsTests.stream, smsPrice: Double? = 0.05) throws -> (svg: String, document: XMLDocument) {
        let funnel = try LoginStatsTests.counted(lines).funnel(by: [.carrier], topCodes: 3, smsPrice: smsPrice)
        let svg = LoginFunnelChart(funnel, source: "events & <more>.ndjson").svg
        return (svg, try XMLDocument(data: Data(svg.utf8)))
    }

    static func nodes(_ document: XMLDocument, _ path: String) throws -> [XMLElement] {
        try document.nodes(forXPath: path).compactMap { $0 as? XMLElement }
    }

    static func number(_ element: XMLElement, _ name: String) -> Double? {
        element.value(name).flatMap(Double.init)
    }

    @Test func oneBarPerCarrierWithItsLogins() throws {
        let (_, document) = try Self.chart()
        let root = try #require(document.rootElement())
        #expect(root.name == "svg")
        #expect(root.value("viewBox") == "0 0 900 464")
        let bars = try Self.nodes(document, "//*[local-name()='g'][@class='bar']")
        #expect(bars.map { $0.value("data-carrier") } == ["mobile", "telecom", "unknown"])
        #expect(bars.map { $0.value("data-logins") } == ["5", "2", "1"])
        let title = try Self.nodes(document, "/*[local-name()='svg']/*[local-name()='title']").first?.stringValue
        #expect(title == "Login funnel by carrier: 8 logins from events & <more>.ndjson · 2026-12-01 08:00 to 2026-12-01 08:00 UTC")
    }

    /// Each segment's width is its count over the bar's logins times the bar's width, and the segments
    /// follow one another from the bar's start; a count of 0 draws no segment.
    @Test(arguments: [
        ("mobile", [("one-tap", 2), ("sms", 1), ("cancelled", 2)], 5),
        ("telecom", [("sms", 1), ("unfinished", 1)], 2),
        ("unknown", [("sms", 1)], 1),
    ])
    func segmentsAreAsWideAsTheirCounts(carrier: String, expected: [(String, Int)], logins: Int) throws {
        let (_, document) = try Self.chart()
        let segments = try Self.nodes(document, "//*[local-name()='g'][@data-carrier='\(carrier)']/*[local-name()='rect'][starts-with(@class, 'segment')]")
        #expect(segments.map { $0.value("class") } == expected.map { "segment \($0.0)" })
        #expect(segments.map { $0.value("data-count") } == expected.map { String($0.1) })
        var x = 220.0
        for (segment, (_, count)) in zip(segments, expected) {
            let width = 640.0 * Double(count) / Double(logins)
            #expect(abs((Self.number(segment, "width") ?? -1) - width) <= 0.01)
            #expect(abs((Self.number(segment, "x") ?? -1) - x) <= 0.01)
            #expect(Self.number(segment, "height") == 30)
            x += width
        }
        #expect(abs(x - 860) <= 0.01, "the segments fill the bar")
    }

    @Test func countsSharesAndFailuresAreLabelled() throws {
        let (_, document) = try Self.chart()
        func text(_ carrier: String, _ kind: String) throws -> String? {
            try Self.nodes(document, "//*[local-name()='g'][@data-carrier='\(carrier)']/*[local-name()='text'][@class='\(kind)']").first?.stringValue
        }
        #expect(try text("mobile", "counts") == "one-tap success 2 (40.0%) · SMS success 1 (20.0%) · cancelled 2 (40.0%)")
        #expect(try text("telecom", "counts") == "SMS success 1 (50.0%) · unfinished 1 (50.0%)")
        #expect(try text("mobile", "share") == "one-tap 40.0% (11.8%–76.9%)")
        // As many of the top three as fit on the line (96 characters): two here; meanings cut at 24.
        #expect(try text("mobile", "failures") == "top failures: 102103 cellular data not enabl… ×1 · 103101 request signature wrong ×1")
        #expect(try text("telecom", "failures") == "top failures: timeout no answer in time ×1")
        #expect(try text("mobile", "alerts") == "⚠ 1 misconfiguration alert: 1 of 1 logins went on to SMS (cost 0.05)")
        #expect(try text("telecom", "alerts") == nil)
        // Wide segments carry their count and share inside.
        let inside = try Self.nodes(document, "//*[local-name()='g'][@data-carrier='mobile']/*[local-name()='text'][@class='segment-label']").map(\.stringValue)
        #expect(inside == ["2 · 40.0%", "1 · 20.0%", "2 · 40.0%"])
    }

    /// The chart's money is written by the one formatter the text report uses: a cost past what an
    /// `Int64` of cents holds trapped (`Int64((value * 100).rounded())`) here and in the replay chart.
    @Test func aCostPastAnyIntegerOfCentsIsWrittenWithoutTrapping() throws {
        let (svg, _) = try Self.chart(smsPrice: 1e17)
        #expect(svg.contains("(cost 1e+17)"), "\(svg)")
    }

    @Test func textThatLooksLikeMarkupIsEscaped() throws {
        let lines = [
            LoginStatsTests.planned("X"), LoginStatsTests.started("X", "mobile", at: 0),
            LoginStatsTests.result("X", "mobile", "<b>&", "fallback", meaning: "a <script>\\u0001& \\\"quote\\\"", at: 5),
            LoginStatsTests.started("X", "sms", at: 5), LoginStatsTests.ended("failed", "X", "sms", at: 10),
        ]
        let (svg, document) = try Self.chart(lines)
        #expect(!svg.contains("<script>"))
        #expect(!svg.contains("<b>"))
        let failures = try Self.nodes(document, "//*[local-name()='text'][@class='failures']").first?.stringValue
        // The meaning's control character was replaced (U+FFFD) as it was counted, before any chart.
        #expect(failures == "top failures: <b>& a <script>\u{FFFD}& \"quote\" ×1")
    }

    @Test func noLoginsIsAChartThatSaysSo() throws {
        let svg = LoginFunnelChart(LoginStats().funnel(), source: "empty.ndjson").svg
        let document = try XMLDocument(data: Data(svg.utf8))
        #expect(try Self.nodes(document, "//*[local-name()='g'][@class='bar']").isEmpty)
        #expect(svg.contains(">no logins</text>"))
    }

    /// The chart in a real browser, when one is installed: headless Chromium draws it to a PNG of the
    /// chart's size. Skipped, with the reason, on a machine without one.
    @Test func rendersInAHeadlessBrowser() throws {
        guard let browser = Browser.find() else {
            try Test.cancel("skipped: no headless browser installed (looked for \(Browser.names.joined(separator: ", ")) on PATH); install Chromium to run this test")
        }
        let (svg, _) = try Self.chart()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("onetap-chart-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { removeTemporary(directory) }
        let png = try Browser.screenshot(browser, svg: svg, in: directory, width: 900, height: 464)
        #expect(png.count > 1000)
        #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], "a PNG")
        // The IHDR chunk: width and height, big-endian, at bytes 16 ..< 24.
        let width = png[16..<20].reduce(0) { $0 << 8 | Int($1) }, height = png[20..<24].reduce(0) { $0 << 8 | Int($1) }
        #expect(width == 900 && height == 464)
    }
}

/// A headless Chromium or Chrome, found on PATH.
enum Browser {
    static let names = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome", "headless_shell"]

    static func find() -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            for name in names {
                let url = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
                if FileManager.default.isExecutableFile(atPath: url.path) { return url }
            }
        }
        return nil
    }

    /// Draws the SVG at its size and returns the PNG's bytes.
    static func screenshot(_ browser: URL, svg: String, in directory: URL, width: Int, height: Int) throws -> Data {
        let chart = directory.appendingPathComponent("chart.svg")
        let png = directory.appendingPathComponent("chart.png")
        try svg.write(to: chart, atomically: true, encoding: .utf8)
        let drawing = try ChildProcess(
            browser.path,
            [
                "--headless", "--disable-gpu", "--no-sandbox", "--hide-scrollbars", "--user-data-dir=\(directory.appendingPathComponent("profile").path)",
                "--window-size=\(width),\(height)", "--screenshot=\(png.path)", chart.absoluteString,
            ],
            output: .null, errors: .null)
        let ended = drawing.wait()
        #expect(ended.succeeded, "the browser ended with \(ended)")
        return try Data(contentsOf: png)
    }
}

extension XMLElement {
    /// An attribute's value, by its name (looked up among the attributes: the elements are in SVG's
    /// default namespace, the attributes in none).
    func value(_ name: String) -> String? {
        attributes?.first { $0.name == name || $0.localName == name }?.stringValue
    }
}
