import OneTapCore
import OneTapSupport

/// The login funnel as a chart a person reads at a glance: one stacked bar per row (per carrier, as
/// `onetap stats --svg` draws it), its segments one-tap success, SMS success, cancelled, failed and
/// unfinished, as wide as their share of the row's logins, each labelled with its count and share; under
/// each bar the row's most frequent failure codes. Hand-written SVG 1.1 (no script, no external
/// resource): it opens in any browser and embeds in a page or a README.
///
/// For tools: each bar is a `<g class="bar">` with `data-carrier`, `data-first-flow` (when split by
/// it) and `data-logins`; each segment a `<rect class="segment one-tap|sms|cancelled|failed|unfinished">`
/// with `data-count`, whose width is its count over the row's logins times the bar's width
/// (``barWidth``); segments with no logins are left out.
public struct LoginFunnelChart: Sendable {
    /// The funnel drawn.
    public let funnel: LoginFunnel
    /// Where the events came from, for the subtitle.
    public let source: String

    /// The width of a whole bar (100 % of a row's logins), in SVG units.
    public static let barWidth = 640.0
    /// Where the chart's parts stand.
    static let layout = ChartLayout(barX: 220, barWidth: barWidth, barHeight: 30, rowHeight: 104, top: 112)
    /// The most characters of 12-unit text that fit between the bar's start and the chart's edge.
    static let lineCharacters = 96

    /// The segments in the order drawn: class, legend label, colour.
    static let segments: [(name: String, label: String, color: String)] = [
        ("one-tap", "one-tap success", ChartColors.oneTap), ("sms", "SMS success", ChartColors.sms), ("cancelled", "cancelled", ChartColors.cancelled),
        ("failed", "failed", ChartColors.failed), ("unfinished", "unfinished", ChartColors.unfinished),
    ]

    /// Creates a chart.
    /// - Parameters:
    ///   - funnel: The funnel (by carrier for one bar per carrier).
    ///   - source: Where its events came from (a file name), for the subtitle.
    public init(_ funnel: LoginFunnel, source: String) {
        self.funnel = funnel
        self.source = source
    }

    /// The chart's SVG text.
    public var svg: String {
        var writer = SVGWriter()
        let summary = funnel.summary
        let rows = funnel.rows.filter { $0.logins > 0 }
        let layout = Self.layout
        let height = layout.height(rows: rows.count, foot: 40)
        let title = "Login funnel by carrier"
        var subtitle = "\(Number.grouped(summary.logins)) logins from \(source)"
        if let first = summary.first, let last = summary.last {
            subtitle += " · \(Timestamp.format(milliseconds: first).prefix(16).replacingOccurrences("T", " ")) to \(Timestamp.format(milliseconds: last).prefix(16).replacingOccurrences("T", " ")) UTC"
        }
        layout.heading(&writer, title: title, subtitle: subtitle, legend: Self.segments.map { ($0.label, $0.color) }, characterWidth: 7.4, empty: rows.isEmpty)
        for (index, row) in rows.enumerated() {
            let y = layout.y(ofRow: index)
            var attributes: [(String, String)] = [("class", "bar")]
            if let carrier = row.carrier { attributes.append(("data-carrier", carrier.rawValue)) }
            if let flow = row.firstFlow { attributes.append(("data-first-flow", flow.rawValue)) }
            attributes.append(("data-logins", String(row.logins)))
            writer.open("g", attributes)
            writer.text(row.carrier?.englishName ?? "All carriers", x: 24, y: y + 14, size: 15, weight: "bold")
            let detail = [row.carrier?.chineseName, row.firstFlow.map { "first \($0.rawValue)" }, "\(Number.grouped(row.logins)) login\(row.logins == 1 ? "" : "s")"].compactMap { $0 }.joined(separator: " · ")
            writer.text(detail, x: 24, y: y + 32, size: 12, fill: ChartColors.muted)
            // The bar: a thin frame, then each segment as wide as its share.
            writer.rect(x: layout.barX, y: y, width: layout.barWidth, height: layout.barHeight, fill: "#f4f4f4", extra: [("class", "frame")])
            var left = layout.barX
            let counts = [row.oneTap, row.sms, row.cancelled, row.failed, row.unfinished]
            var parts: [String] = []
            for (segment, count) in zip(Self.segments, counts) where count > 0 {
                let share = Double(count) / Double(row.logins)
                let width = layout.barWidth * share
                let label = "\(Number.grouped(count)) · \(Self.percent(share))"
                writer.rect(
                    x: left, y: y, width: width, height: layout.barHeight, fill: segment.color,
                    extra: [("class", "segment \(segment.name)"), ("data-count", String(count))],
                    title: "\(segment.label): \(Number.grouped(count)) of \(Number.grouped(row.logins)) logins (\(Self.percent(share)))")
                if width >= Double(label.count) * 6.6 + 10 {
                    writer.text(label, x: left + width / 2, y: y + 20, size: 12, weight: "bold", fill: "#ffffff", anchor: "middle", extra: [("class", "segment-label")])
                }
                parts.append("\(segment.label) \(Number.grouped(count)) (\(Self.percent(share)))")
                left += width
            }
            writer.text(parts.joined(separator: " · "), x: layout.barX, y: y + layout.barHeight + 18, size: 12, extra: [("class", "counts")])
            let share = row.oneTapShare
            writer.text("one-tap \(Self.percent(share.value)) (\(Self.percent(share.low))–\(Self.percent(share.high)))", x: 24, y: y + 50, size: 12,
                        fill: ChartColors.oneTap, extra: [("class", "share")])
            // As many of the top failure codes as fit on one line beside the bar.
            var failures = ""
            for code in row.topFailures.prefix(3) {
                let item = "\(code.code)\(code.meaning.isEmpty ? "" : " " + Self.short(code.meaning)) ×\(Number.grouped(code.count))"
                let line = failures.isEmpty ? "top failures: " + item : failures + " · " + item
                guard line.count <= Self.lineCharacters else { break }
                failures = line
            }
            if !failures.isEmpty {
                writer.text(failures, x: layout.barX, y: y + layout.barHeight + 36, size: 12, fill: ChartColors.muted, extra: [("class", "failures")])
            }
            if row.alerts.count > 0 {
                let cost = row.alerts.cost.map { " (cost \(Number.money($0)))" } ?? ""
                writer.text(
                    "⚠ \(Number.grouped(row.alerts.count)) misconfiguration alert\(row.alerts.count == 1 ? "" : "s"): \(Number.grouped(row.alerts.toSMS)) of \(Number.grouped(row.alerts.logins)) logins went on to SMS\(cost)",
                    x: layout.barX, y: y + layout.barHeight + 54, size: 12, fill: ChartColors.failed, extra: [("class", "alerts")])
            }
            writer.close("g")
        }
        let description = rows.map { row in
            "\(row.carrier?.englishName ?? "All carriers"): \(row.logins) logins, one-tap \(row.oneTap), SMS \(row.sms), cancelled \(row.cancelled), failed \(row.failed), unfinished \(row.unfinished)"
        }.joined(separator: "; ")
        return SVGWriter.document(width: layout.width, height: height, title: "\(title): \(subtitle)", description: description.isEmpty ? "no logins" : description, body: writer.body)
    }

    static func percent(_ share: Double) -> String {
        let tenths = Int64((share * 1000).rounded())
        return "\(tenths / 10).\(tenths % 10)%"
    }

    /// A meaning cut to its first clause, at most 24 characters (parentheses left out).
    static func short(_ meaning: String) -> String {
        let first = (meaning.split(separator: ":").first.map(String.init) ?? meaning).split(separator: "(").first.map { String($0).trimmingSpaces } ?? meaning
        return first.count > 24 ? String(first.prefix(23)).trimmingSpaces + "…" : first
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        var text = Substring(self)
        while text.first == " " { text = text.dropFirst() }
        while text.last == " " { text = text.dropLast() }
        return String(text)
    }
}

extension Substring {
    fileprivate func replacingOccurrences(_ target: Character, _ replacement: Character) -> String {
        String(map { $0 == target ? replacement : $0 })
    }
}
