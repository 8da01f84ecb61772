import OneTap

/// Durations written as a whole number and a unit: `30d`, `12h`, `90m` or `45s`: the one reading of them, for every
/// command option that takes one (`token --lifetime`, `db reconcile --older-than`), and their description.
enum DurationText {
    /// Reads a duration: ASCII digits (no sign; more than 12 are out of range) and one unit, `d`, `h`, `m` or `s`, with spaces or tabs
    /// around them and none between.
    /// - Parameters:
    ///   - text: The value as given.
    ///   - range: The seconds the option allows.
    ///   - bounds: What the option allows, for the error (`a token lifetime is 1 second to ten years`).
    /// - Returns: The seconds.
    /// - Throws: ``ParseError`` with subject `duration`: `malformed` naming the text when it is not such a duration,
    ///   `out-of-range` when it is one outside `range`.
    static func seconds(_ text: String, in range: ClosedRange<Int64>, bounds: String) throws(ParseError) -> Int64 {
        let trimmed = text.trimmingCharacters(in: " \t")
        let scales: [Character: Int64] = ["d": 86_400, "h": 3600, "m": 60, "s": 1]
        guard let unit = trimmed.last, let scale = scales[unit] else {
            throw ParseError(.duration, .malformed, input: text, reason: "write a whole number and a unit: 30d, 12h, 90m or 45s")
        }
        let digits = trimmed.dropLast()
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 &- UInt8(ascii: "0") < 10 }) else {
            throw ParseError(.duration, .malformed, input: text, reason: "write a whole number and a unit: 30d, 12h, 90m or 45s")
        }
        guard digits.count <= 12, let value = Int64(digits) else {
            throw ParseError(.duration, .outOfRange, input: text, reason: bounds)
        }
        let seconds = value * scale   // at most 999,999,999,999 days: within Int64
        guard range.contains(seconds) else {
            throw ParseError(.duration, .outOfRange, input: text, reason: bounds)
        }
        return seconds
    }

    /// `29d 23h 0m 0s`, `14h 36m 13s`, `0s`: a span of time without a sign (the caller says which way).
    static func describe(_ seconds: Int64) -> String {
        var rest = seconds.magnitude
        let days = rest / 86_400; rest %= 86_400
        let hours = rest / 3600; rest %= 3600
        let minutes = rest / 60
        let parts = [(days, "d"), (hours, "h"), (minutes, "m"), (rest % 60, "s")]
        guard let first = parts.firstIndex(where: { $0.0 > 0 }) else { return "0s" }
        return parts[first...].map { "\($0.0)\($0.1)" }.joined(separator: " ")
    }
}
