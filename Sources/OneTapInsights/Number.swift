/// How numbers are written in the CLI's text and JSON, and the counts in the charts' text.
package enum Number {
    /// `12,345`.
    package static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var out = ""
        for (index, character) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { out += "," }
            out.append(character)
        }
        return (value < 0 ? "-" : "") + out
    }

    /// `80.4%`.
    package static func percent(_ share: Double) -> String { fixed(share * 100, 1) + "%" }

    /// `80.4% (75.3–84.7%)`.
    package static func share(_ estimate: Estimate) -> String {
        estimate.method == .exact && estimate.low == estimate.high ? percent(estimate.value)
            : "\(percent(estimate.value)) (\(fixed(estimate.low * 100, 1))–\(fixed(estimate.high * 100, 1))%)"
    }

    /// `850 ms`, `2.9 s`, `1.5 min`.
    package static func duration(_ milliseconds: Int64) -> String { duration(Double(milliseconds)) }

    package static func duration(_ milliseconds: Double) -> String {
        if milliseconds < 1000 { return "\(Int64(milliseconds.rounded())) ms" }
        if milliseconds < 120_000 { return fixed(milliseconds / 1000, 1) + " s" }
        return fixed(milliseconds / 60_000, 1) + " min"
    }

    /// `12.50`.
    package static func money(_ value: Double) -> String { fixed(value, 2) }

    /// A value with `digits` decimals, rounded half away from zero.
    package static func fixed(_ value: Double, _ digits: Int) -> String {
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let scaled = (value.magnitude * scale).rounded()
        guard scaled < 9e15 else { return String(value) }
        let whole = Int64(scaled)
        var text = String(whole)
        if digits > 0 {
            while text.count <= digits { text = "0" + text }
            text.insert(".", at: text.index(text.endIndex, offsetBy: -digits))
        }
        return (value < 0 && whole != 0 ? "-" : "") + text
    }

    /// A JSON number with at most 6 decimals (`0.804348`), `null` for a value JSON cannot hold.
    package static func json(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        var text = fixed(value, 6)
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        return text == "-0" ? "0" : text
    }
}
