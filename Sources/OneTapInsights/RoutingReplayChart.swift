import OneTapCore
import OneTapSupport

/// A routing replay as a chart: per carrier (and for all carriers), the recorded logins' bar above the
/// new policy's, each split into one-tap success, SMS success and neither (cancelled, failed,
/// unfinished), with the one-tap share's 95 % interval drawn as a whisker, and under them the SMS
/// messages, the costs and the mean time to login, current → new. A new policy whose outcome cannot be
/// estimated (a flow never observed) gets an empty dashed bar saying why. Titled as an estimate.
///
/// For tools: each carrier is a `<g class="carrier" data-carrier="…">` (`data-carrier="all"` for the
/// total), each bar a `<g class="scenario current|new">` (`new unknown` when unknown) holding
/// `<rect class="segment one-tap|sms|other" data-share="…">`, as wide as its share times ``barWidth``,
/// and a `<line class="interval">` from the one-tap share's low end to its high end.
public struct RoutingReplayChart: Sendable {
    /// The replay drawn.
    public let replay: RoutingReplay
    /// The new policy's name, for the title.
    public let policy: String
    /// Where the events came from, for the subtitle.
    public let source: String

    /// The width of a whole bar (100 % of the logins), in SVG units.
    public static let barWidth = 580.0
    /// Where the chart's parts stand: a block per carrier, its two bars one above the other.
    static let layout = ChartLayout(barX: 270, barWidth: barWidth, barHeight: 24, rowHeight: 132, top: 120)

    /// Creates a chart.
    /// - Parameters:
    ///   - replay: The replay.
    ///   - policy: The new policy's name (its file name).
    ///   - source: Where the events came from.
    public init(_ replay: RoutingReplay, policy: String, source: String) {
        self.replay = replay
        self.policy = policy
        self.source = source
    }

    /// The chart's SVG text.
    public var svg: String {
        var writer = SVGWriter()
        let blocks = replay.carriers + (replay.carriers.count > 1 ? [replay.total] : [])
        let layout = Self.layout
        let height = layout.height(rows: blocks.count, foot: 64)
        let title = "What-if replay of \(policy) — an estimate"
        let subtitle = "\(Number.grouped(replay.total.logins)) recorded logins from \(source); current (recorded) above, new policy (estimated) below"
        let legend: [(label: String, color: String)] = [("one-tap success", ChartColors.oneTap), ("SMS success", ChartColors.sms), ("neither (cancelled, failed, unfinished)", ChartColors.notLoggedIn)]
        layout.heading(&writer, title: title, subtitle: subtitle, legend: legend, characterWidth: 7.2, empty: blocks.isEmpty) { writer, x in
            writer.lineSegment(x1: x, y1: 83, x2: x + 24, y2: 83, stroke: ChartColors.text, width: 2)
            writer.text("95% interval of the one-tap share", x: x + 30, y: 88, size: 13)
        }
        for (index, block) in blocks.enumerated() {
            let y = layout.y(ofRow: index)
            writer.open("g", [("class", "carrier"), ("data-carrier", block.carrier?.rawValue ?? "all"), ("data-logins", String(block.logins)),
                              ("data-changed", String(block.changed))])
            writer.text(block.carrier?.englishName ?? "All carriers", x: 24, y: y + 16, size: 15, weight: "bold")
            let logins = "\(Number.grouped(block.logins)) login\(block.logins == 1 ? "" : "s")"
            writer.text([block.carrier?.chineseName, logins].compactMap { $0 }.joined(separator: " · "), x: 24, y: y + 34, size: 12, fill: ChartColors.muted)
            writer.text(block.changed == 0 ? "none planned differently" : "\(Number.grouped(block.changed)) planned differently", x: 24, y: y + 50,
                        size: 12, fill: ChartColors.muted)
            bar(&writer, block.current, label: "current", y: y)
            if let proposed = block.proposed {
                bar(&writer, proposed, label: "new", y: y + layout.barHeight + 10)
            } else {
                writer.open("g", [("class", "scenario new unknown")])
                writer.text("new", x: layout.barX - 10, y: y + layout.barHeight + 10 + 17, size: 12, fill: ChartColors.muted, anchor: "end")
                writer.rect(x: layout.barX, y: y + layout.barHeight + 10, width: layout.barWidth, height: layout.barHeight, fill: "none",
                            extra: [("stroke", ChartColors.muted), ("stroke-dasharray", "6 4")])
                writer.text("unknown: " + (block.unknown ?? "not estimated"), x: layout.barX + 8, y: y + layout.barHeight + 10 + 16, size: 11, fill: ChartColors.failed)
                writer.close("g")
            }
            writer.text(summary(block), x: layout.barX, y: y + 2 * layout.barHeight + 30, size: 12, extra: [("class", "figures")])
            writer.text(costs(block), x: layout.barX, y: y + 2 * layout.barHeight + 47, size: 12, fill: ChartColors.muted, extra: [("class", "costs")])
            writer.close("g")
        }
        let footY = layout.height(rows: blocks.count, foot: 16)
        let notes = [
            "An estimate. Logins the new policy plans the same way keep their recorded outcome; the others are modelled",
            "from each flow's recorded outcomes and times for the same carrier and situation (flows taken as independent).",
            "95% intervals: recorded shares Wilson score; estimated shares Wilson at the effective sample size (delta method).",
        ]
        for (index, note) in notes.enumerated() {
            writer.text(note, x: 24, y: footY + Double(index) * 15, size: 11, fill: ChartColors.muted, extra: [("class", "note")])
        }
        let description = blocks.map { block in
            "\(block.carrier?.englishName ?? "All carriers"): one-tap \(LoginFunnelChart.percent(block.current.oneTapShare.value)) now, "
                + (block.proposed.map { "\(LoginFunnelChart.percent($0.oneTapShare.value)) estimated" } ?? "unknown under the new policy")
        }.joined(separator: "; ")
        return SVGWriter.document(width: layout.width, height: height, title: title, description: description.isEmpty ? "no logins" : description, body: writer.body)
    }

    private func bar(_ writer: inout SVGWriter, _ scenario: RoutingReplay.Scenario, label: String, y: Double) {
        let layout = Self.layout
        writer.open("g", [("class", "scenario \(label)")])
        writer.text(label, x: layout.barX - 10, y: y + 17, size: 12, fill: ChartColors.muted, anchor: "end")
        let oneTap = min(1, max(0, scenario.oneTapShare.value))
        let sms = min(1 - oneTap, max(0, scenario.smsShare.value))
        let other = max(0, 1 - oneTap - sms)
        var left = layout.barX
        for (name, share, color, text) in [("one-tap", oneTap, ChartColors.oneTap, "#ffffff"), ("sms", sms, ChartColors.sms, "#ffffff"), ("other", other, ChartColors.notLoggedIn, ChartColors.text)]
        where share > 0 {
            let width = layout.barWidth * share
            writer.rect(x: left, y: y, width: width, height: layout.barHeight, fill: color,
                        extra: [("class", "segment \(name)"), ("data-share", String(Self.rounded(share)))],
                        title: "\(label): \(name == "other" ? "neither" : name) \(LoginFunnelChart.percent(share))")
            let caption = LoginFunnelChart.percent(share)
            if width >= Double(caption.count) * 7 + 10 {
                writer.text(caption, x: left + width / 2, y: y + 14, size: 12, weight: "bold", fill: text, anchor: "middle")
            }
            left += width
        }
        let low = layout.barX + layout.barWidth * scenario.oneTapShare.low, high = layout.barX + layout.barWidth * scenario.oneTapShare.high
        if high > low {
            // Below the labels, in the bar's lowest fifth.
            let level = y + layout.barHeight - 5
            writer.lineSegment(x1: low, y1: level, x2: high, y2: level, stroke: ChartColors.text, width: 2, extra: [("class", "interval")])
            writer.lineSegment(x1: low, y1: level - 4, x2: low, y2: level + 4, stroke: ChartColors.text, width: 2)
            writer.lineSegment(x1: high, y1: level - 4, x2: high, y2: level + 4, stroke: ChartColors.text, width: 2)
        }
        writer.close("g")
    }

    private func summary(_ block: RoutingReplay.CarrierReplay) -> String {
        func change(_ value: (RoutingReplay.Scenario) -> String) -> String {
            value(block.current) + " → " + (block.proposed.map(value) ?? "unknown")
        }
        var parts = ["one-tap " + change { LoginFunnelChart.percent($0.oneTapShare.value) }, "SMS " + change { LoginFunnelChart.percent($0.smsShare.value) }]
        if block.current.meanTimeToLogin != nil {
            parts.append("mean time to login " + change { $0.meanTimeToLogin.map { Self.seconds($0.value) } ?? "—" })
        }
        return parts.joined(separator: " · ")
    }

    private func costs(_ block: RoutingReplay.CarrierReplay) -> String {
        func change(_ value: (RoutingReplay.Scenario) -> String) -> String {
            value(block.current) + " → " + (block.proposed.map(value) ?? "unknown")
        }
        var parts = ["SMS messages " + change { String(Int64($0.smsMessages.value.rounded())) }]
        if replay.smsPrice != nil { parts.append("SMS cost " + change { $0.smsCost.map { Number.money($0.value) } ?? "—" }) }
        if replay.oneTapPrice != nil { parts.append("one-tap cost " + change { $0.oneTapCost.map { Number.money($0.value) } ?? "—" }) }
        return parts.joined(separator: " · ")
    }

    static func seconds(_ milliseconds: Double) -> String {
        let tenths = Int64((milliseconds / 100).rounded())
        return "\(tenths / 10).\(tenths % 10) s"
    }

    static func rounded(_ share: Double) -> Double { (share * 1_000_000).rounded() / 1_000_000 }
}
