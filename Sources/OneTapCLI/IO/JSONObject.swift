/// A JSON object written in the order its members are added, for the CLI's one-line records.
struct JSONObject {
    private(set) var text = "{"
    private var empty = true

    private mutating func key(_ name: String) {
        if !empty { text += "," }
        empty = false
        text += JSONObject.quote(name) + ":"
    }

    /// Adds a string member (`null` for nil).
    mutating func add(_ name: String, _ value: String?) {
        key(name)
        text += value.map(JSONObject.quote) ?? "null"
    }

    /// Adds an integer member.
    mutating func add(_ name: String, _ value: Int64) {
        key(name)
        text += String(value)
    }

    /// Adds a Boolean member.
    mutating func add(_ name: String, _ value: Bool) {
        key(name)
        text += value ? "true" : "false"
    }

    /// Adds an array of strings.
    mutating func add(_ name: String, _ values: [String]) {
        key(name)
        text += "[" + values.map(JSONObject.quote).joined(separator: ",") + "]"
    }

    /// Adds a member whose value is already JSON text.
    mutating func add(_ name: String, json: String) {
        key(name)
        text += json
    }

    /// The object's text.
    var json: String { text + "}" }

    /// A JSON string literal for `value` (RFC 8259 escapes).
    static func quote(_ value: String) -> String {
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
