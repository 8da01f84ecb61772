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
            writer.key("steps")
            try writer.array { (writer) throws(JSONWriteError) in
                for step in steps { try step.write(to: &writer) }
            }
            writer.key("merged")
            try JSONValue.object(merged).write(to: &writer)
            writer.key("kept")
            writer.array { writer in
                for kind in kept { writer.string(kind) }
            }
            writer.key("moved")
            Self.write(moved, to: &writer)
            writer.key("discarded")
            Self.write(discarded, to: &writer)
        }
    }

    private static func write(_ lists: [String: [String]], to writer: inout JSONWriter) {
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
        var members = try reader.beginObject()
        while let key = try reader.nextKey(in: &members) {
            switch key {
            case "steps":
                try reader.unseen(steps != nil, key)
                steps = try reader.elements { (reader) throws(JSONReadError) in try Step(reading: &reader) }
            case "merged":
                try reader.unseen(merged != nil, key)
                guard case .object(let members) = try JSONValue(reading: &reader) else { throw reader.corrupt("expected an object of data by kind") }
                merged = members
            case "kept":
                try reader.unseen(kept != nil, key)
                kept = try reader.elements { (reader) throws(JSONReadError) in try reader.string() }
            case "moved":
                try reader.unseen(moved != nil, key)
                moved = try Self.lists(&reader)
            case "discarded":
                try reader.unseen(discarded != nil, key)
                discarded = try Self.lists(&reader)
            default: break
            }
        }
        self.init(
            steps: try reader.required(steps, "steps"), merged: try reader.required(merged, "merged"), kept: try reader.required(kept, "kept"),
            moved: try reader.required(moved, "moved"), discarded: try reader.required(discarded, "discarded"))
    }

    private static func lists(_ reader: inout JSONReader) throws(JSONReadError) -> [String: [String]] {
        var lists: [String: [String]] = [:]
        var members = try reader.beginObject()
        while let key = try reader.nextKey(in: &members) {
            let kind = key.text
            guard lists[kind] == nil else { throw reader.duplicate(key) }
            lists[kind] = try reader.elements { (reader) throws(JSONReadError) in try reader.string() }
        }
        return lists
    }
}

extension MergePlan.Step: JSONRecord {
    package func write(to writer: inout JSONWriter) throws(JSONWriteError) {
        try writer.object { (writer) throws(JSONWriteError) in
            switch self {
            case .write(let kind, let value):
                writer.key("write")
                try writer.object { (writer) throws(JSONWriteError) in
                    writer.key("kind")
                    writer.string(kind)
                    writer.key("value")
                    try value.write(to: &writer)
                }
            case .removeGuest(let kind):
                writer.key("removeGuest")
                writer.object { writer in
                    writer.key("kind")
                    writer.string(kind)
                }
            }
        }
    }

    package init(reading reader: inout JSONReader) throws(JSONReadError) {
        var step: MergePlan.Step?
        var members = try reader.beginObject()
        while let key = try reader.nextKey(in: &members) {
            let write: Bool
            switch key {
            case "write": write = true
            case "removeGuest": write = false
            default: throw reader.corrupt("a step is {\"write\": …} or {\"removeGuest\": …}")
            }
            try reader.unseen(step != nil, key)
            var kind: String?, value: JSONValue?
            var fields = try reader.beginObject()
            while let field = try reader.nextKey(in: &fields) {
                switch field {
                case "kind":
                    try reader.unseen(kind != nil, field)
                    kind = try reader.string()
                case "value" where write:
                    try reader.unseen(value != nil, field)
                    value = try JSONValue(reading: &reader)
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
