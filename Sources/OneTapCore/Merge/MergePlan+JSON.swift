// A merge plan's JSON, inside a journal's:
//
//     {"steps":[{"write":{"kind":"cart","value":[…]}},{"removeGuest":{"kind":"cart"}}],
//      "merged":{"cart":[…]},"kept":["scores"],"moved":{"favourites":["a"]},"discarded":{}}
//
// The shape `JSONEncoder` gave it in earlier versions (a step as an object with one member named after its case),
// kept so both journal forms read with one reader. Objects are written with their keys sorted.

extension MergePlan: JSONRecord {
    package func write(to writer: inout JSONWriter) throws(JSONWriteError) {
        try writer.object { (writer) throws(JSONWriteError) in
            try writer.member("steps", elements: steps)
            try writer.member("merged", JSONValue.object(merged))
            writer.member("kept", strings: kept)
            Self.write("moved", moved, to: &writer)
            Self.write("discarded", discarded, to: &writer)
        }
    }

    /// Writes a member that holds lists of items by kind, the kinds sorted.
    private static func write(_ name: StaticString, _ lists: [String: [String]], to writer: inout JSONWriter) {
        writer.key(name)
        writer.object { writer in
            for kind in lists.keys.sorted() {
                writer.key(escaping: kind)
                writer.array { writer in
                    for item in lists[kind, default: []] { writer.string(item) }
                }
            }
        }
    }

    package init(reading reader: inout JSONReader) throws(JSONReadError) {
        var steps: [Step]?, merged: [String: JSONValue]?, kept: [String]?, moved: [String: [String]]?, discarded: [String: [String]]?
        try reader.members { (key, reader) throws(JSONReadError) in
            switch key {
            case "steps": try reader.record(&steps, key)
            case "merged":
                if merged != nil { throw reader.duplicate(key) }
                guard case .object(let data) = try JSONValue(reading: &reader) else { throw reader.corrupt("expected an object of data by kind") }
                merged = data
            case "kept": try reader.member(&kept, key)
            case "moved": try Self.lists(&moved, key, &reader)
            case "discarded": try Self.lists(&discarded, key, &reader)
            default: break
            }
        }
        self.init(
            steps: try reader.required(steps, "steps"), merged: try reader.required(merged, "merged"), kept: try reader.required(kept, "kept"),
            moved: try reader.required(moved, "moved"), discarded: try reader.required(discarded, "discarded"))
    }

    /// Reads a member that holds lists of items by kind (`moved`, `discarded`) into its slot.
    private static func lists(_ slot: inout [String: [String]]?, _ key: JSONKey, _ reader: inout JSONReader) throws(JSONReadError) {
        if slot != nil { throw reader.duplicate(key) }
        var lists: [String: [String]] = [:]
        try reader.members { (kind, reader) throws(JSONReadError) in
            var items = lists[kind.text]
            try reader.member(&items, kind)
            lists[kind.text] = items
        }
        slot = lists
    }
}

extension MergePlan.Step: JSONRecord {
    package func write(to writer: inout JSONWriter) throws(JSONWriteError) {
        try writer.object { (writer) throws(JSONWriteError) in
            switch self {
            case .write(let kind, let value):
                writer.key("write")
                try writer.object { (writer) throws(JSONWriteError) in
                    writer.member("kind", kind)
                    try writer.member("value", value)
                }
            case .removeGuest(let kind):
                writer.key("removeGuest")
                writer.object { writer in writer.member("kind", kind) }
            }
        }
    }

    package init(reading reader: inout JSONReader) throws(JSONReadError) {
        var step: MergePlan.Step?
        try reader.members { (key, reader) throws(JSONReadError) in
            let write: Bool
            switch key {
            case "write": write = true
            case "removeGuest": write = false
            default: throw reader.corrupt("a step is {\"write\": …} or {\"removeGuest\": …}")
            }
            if step != nil { throw reader.duplicate(key) }
            var kind: String?, value: JSONValue?
            try reader.members { (field, reader) throws(JSONReadError) in
                switch field {
                case "kind": try reader.member(&kind, field)
                case "value" where write: try reader.record(&value, field)
                default: break
                }
            }
            let named = try reader.required(kind, "kind")
            step = write ? .write(kind: named, value: try reader.required(value, "value")) : .removeGuest(kind: named)
        }
        guard let step else { throw reader.corrupt("a step is {\"write\": …} or {\"removeGuest\": …}") }
        self = step
    }
}
