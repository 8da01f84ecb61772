import OneTap

/// A JSON object for the CLI's one-line records, members in the order they are added: a thin layer over
/// the package's one ``JSONWriter``, which writes the text (keys and strings escaped by it). A member may
/// hold a value another writer wrote apart (a nested record, a number the CLI formats itself).
package struct JSONObject {
    /// One member's value, kept until the object is written.
    private enum Value {
        case string(String?)
        case integer(Int64)
        case bool(Bool)
        case strings([String])
        case fragment(String)
        case object(JSONObject)
    }

    private var members: [(name: String, value: Value)] = []

    /// An empty object.
    package init() {}

    /// Adds a string member (`null` for nil).
    mutating func add(_ name: String, _ value: String?) {
        members.append((name, .string(value)))
    }

    /// Adds an integer member.
    mutating func add(_ name: String, _ value: Int64) {
        members.append((name, .integer(value)))
    }

    /// Adds integer members, in the order given.
    mutating func add(counts: KeyValuePairs<String, Int>) {
        for (name, count) in counts { members.append((name, .integer(Int64(count)))) }
    }

    /// Adds a Boolean member.
    mutating func add(_ name: String, _ value: Bool) {
        members.append((name, .bool(value)))
    }

    /// Adds an array of strings.
    mutating func add(_ name: String, _ values: [String]) {
        members.append((name, .strings(values)))
    }

    /// Adds a member whose value is JSON text a writer wrote already.
    mutating func add(_ name: String, json: String) {
        members.append((name, .fragment(json)))
    }

    /// Adds a member whose value is another object.
    mutating func add(_ name: String, object: JSONObject) {
        members.append((name, .object(object)))
    }

    /// Adds every member of another object, after this one's.
    mutating func merge(_ other: JSONObject) {
        members += other.members
    }

    /// Writes the object.
    /// - Parameter writer: The writer.
    package func write(to writer: inout JSONWriter) {
        writer.object { writer in
            for (name, value) in members {
                writer.key(escaping: name)
                switch value {
                case .string(let text?): writer.string(text)
                case .string(nil): writer.null()
                case .integer(let number): writer.int(number)
                case .bool(let flag): writer.bool(flag)
                case .strings(let texts):
                    writer.array { writer in
                        for text in texts { writer.string(text) }
                    }
                case .fragment(let json): writer.fragment(json)
                case .object(let object): object.write(to: &writer)
                }
            }
        }
    }

    /// The object's text.
    package var json: String {
        var writer = JSONWriter(capacity: 64 + 32 * members.count)
        write(to: &writer)
        return writer.text
    }
}
