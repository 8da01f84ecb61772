/// Where a chart's parts stand, and the parts every chart draws the same way: a title and a subtitle, a
/// legend of coloured swatches, a "no logins" note, then one block per row (a carrier), its bars starting at
/// ``barX``. ``LoginFunnelChart`` and ``RoutingReplayChart`` are drawn on it; each says only what its
/// blocks hold.
struct ChartLayout {
    /// The chart's width, in SVG units.
    let width = 900.0
    /// Where bars start.
    let barX: Double
    /// The width of a whole bar (100 %).
    let barWidth: Double
    /// A bar's height.
    let barHeight: Double
    /// The height of one row's block.
    let rowHeight: Double
    /// Where the first block starts.
    let top: Double

    /// Where a row's block starts.
    /// - Parameter index: The row's index, from 0.
    /// - Returns: Its top.
    func y(ofRow index: Int) -> Double { top + Double(index) * rowHeight }

    /// The chart's height for its rows (room for one when there is none) and what stands under them.
    /// - Parameters:
    ///   - rows: How many rows.
    ///   - foot: The room under the last row.
    /// - Returns: The height.
    func height(rows: Int, foot: Double) -> Double { y(ofRow: max(1, rows)) + foot }

    /// Draws the title, the subtitle and the legend (each swatch followed by its label, left to right),
    /// then "no logins" when there are no rows.
    /// - Parameters:
    ///   - writer: The chart.
    ///   - title: The title.
    ///   - subtitle: The subtitle (where the events came from).
    ///   - legend: The legend's labels and their colours.
    ///   - characterWidth: The width a legend label's character is given.
    ///   - empty: Whether there are no rows.
    ///   - more: Draws what the legend holds after the swatches, from the x it is handed.
    func heading(
        _ writer: inout SVGWriter, title: String, subtitle: String, legend: [(label: String, color: String)], characterWidth: Double, empty: Bool,
        more: (inout SVGWriter, Double) -> Void = { _, _ in }
    ) {
        writer.text(title, x: 24, y: 36, size: 22, weight: "bold", extra: [("class", "title")])
        writer.text(subtitle, x: 24, y: 60, size: 13, fill: ChartColors.muted, extra: [("class", "subtitle")])
        var x = 24.0
        writer.open("g", [("class", "legend")])
        for (label, color) in legend {
            writer.rect(x: x, y: 76, width: 14, height: 14, fill: color)
            writer.text(label, x: x + 20, y: 88, size: 13)
            x += 20 + Double(label.count) * characterWidth + 22
        }
        more(&writer, x)
        writer.close("g")
        if empty { writer.text("no logins", x: 24, y: top + 30, size: 15, fill: ChartColors.muted) }
    }
}
