import OneTapCore
import OneTapSupport

/// Hand-written SVG: elements appended as text, attributes and text escaped for XML, numbers written
/// with at most two decimals. What the charts are drawn with (no packages, no fonts embedded).
struct SVGWriter {
    private(set) var body = ""
    private var depth = 1

    /// The font stack: the platform's UI font, with CJK fallbacks for the carriers' Chinese names.
    static let fonts = "system-ui, -apple-system, 'Segoe UI', 'Noto Sans', 'Noto Sans CJK SC', 'PingFang SC', 'Microsoft YaHei', sans-serif"

    /// Text escaped for an XML attribute or element.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            // XML 1.0 allows no other control character, even escaped.
            case _ where scalar.value < 0x20 && scalar != "\t" && scalar != "\n": out += " "
            case _ where scalar.value == 0xFFFE || scalar.value == 0xFFFF: out += "\u{FFFD}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// `12`, `12.5`, `12.34`.
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let scaled = (value * 100).rounded()
        let whole = Int64(scaled / 100)
        let fraction = Int64(abs(scaled)) % 100
        let sign = scaled < 0 && whole == 0 ? "-" : ""
        if fraction == 0 { return sign + String(whole) }
        let decimals = fraction % 10 == 0 ? String(fraction / 10) : (fraction < 10 ? "0" : "") + String(fraction)
        return sign + String(whole) + "." + decimals
    }

    private static func attributes(_ list: [(String, String)]) -> String {
        list.map { " \($0.0)=\"\(escape($0.1))\"" }.joined()
    }

    private mutating func line(_ text: String) {
        body += String(repeating: "  ", count: depth) + text + "\n"
    }

    mutating func open(_ name: String, _ attributes: [(String, String)] = []) {
        line("<\(name)\(Self.attributes(attributes))>")
        depth += 1
    }

    mutating func close(_ name: String) {
        depth -= 1
        line("</\(name)>")
    }

    mutating func element(_ name: String, _ attributes: [(String, String)], title: String? = nil) {
        if let title {
            line("<\(name)\(Self.attributes(attributes))><title>\(Self.escape(title))</title></\(name)>")
        } else {
            line("<\(name)\(Self.attributes(attributes))/>")
        }
    }

    mutating func rect(x: Double, y: Double, width: Double, height: Double, fill: String, extra: [(String, String)] = [], title: String? = nil) {
        element("rect", extra + [("x", Self.number(x)), ("y", Self.number(y)), ("width", Self.number(width)), ("height", Self.number(height)), ("fill", fill)], title: title)
    }

    mutating func text(_ content: String, x: Double, y: Double, size: Double = 13, weight: String? = nil, fill: String = "#222222", anchor: String = "start",
                       extra: [(String, String)] = []) {
        var list = extra + [("x", Self.number(x)), ("y", Self.number(y)), ("font-size", Self.number(size)), ("fill", fill)]
        if anchor != "start" { list.append(("text-anchor", anchor)) }
        if let weight { list.append(("font-weight", weight)) }
        line("<text\(Self.attributes(list))>\(Self.escape(content))</text>")
    }

    mutating func lineSegment(x1: Double, y1: Double, x2: Double, y2: Double, stroke: String, width: Double = 1, extra: [(String, String)] = []) {
        element("line", extra + [("x1", Self.number(x1)), ("y1", Self.number(y1)), ("x2", Self.number(x2)), ("y2", Self.number(y2)), ("stroke", stroke),
                                 ("stroke-width", Self.number(width))])
    }

    /// The whole document.
    static func document(width: Double, height: Double, title: String, description: String, body: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <svg xmlns="http://www.w3.org/2000/svg" width="\(number(width))" height="\(number(height))" viewBox="0 0 \(number(width)) \(number(height))" \
        role="img" aria-labelledby="chart-title chart-desc" font-family="\(escape(fonts))">
          <title id="chart-title">\(escape(title))</title>
          <desc id="chart-desc">\(escape(description))</desc>
          <rect x="0" y="0" width="\(number(width))" height="\(number(height))" fill="#ffffff"/>
        \(body)</svg>

        """
    }
}

/// The colours of the outcomes (the Okabe–Ito palette, told apart with every common colour blindness).
enum ChartColors {
    static let oneTap = "#009E73"
    static let sms = "#0072B2"
    static let cancelled = "#E69F00"
    static let failed = "#D55E00"
    static let unfinished = "#999999"
    static let notLoggedIn = "#DDDDDD"
    static let text = "#222222"
    static let muted = "#555555"
}
