import OneTap

/// A JSON object written in the order its members are added, for the CLI's one-line records.
package struct JSONObject {
    private(set) var text = "{"
    private var empty = true

    private mutating func key(_ name: String) {
        if !empty { text += "," }
        empty = false
        text += JSONString.literal(name) + ":"
    }

    /// Adds a string member (`null` for nil).
    mutating func add(_ name: String, _ value: String?) {
        key(name)
        text += value.map(JSONString.literal) ?? "null"
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
        text += "[" + values.map(JSONString.literal).joined(separator: ",") + "]"
    }

    /// Adds a member whose value is already JSON text.
    mutating func add(_ name: String, json: String) {
        key(name)
        text += json
    }

    /// Adds every member of another object, after this one's.
    mutating func merge(_ other: JSONObject) {
        let body = other.text.dropFirst()
        guard !body.isEmpty else { return }
        if !empty { text += "," }
        empty = false
        text += body
    }

    /// The object's text.
    package var json: String { text + "}" }
}
