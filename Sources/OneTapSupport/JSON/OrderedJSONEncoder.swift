/// Encodes an `Encodable` value as one line of compact JSON whose object members come in the order the
/// value's `encode(to:)` wrote them: what every NDJSON event line is written with, so the lines read the
/// same everywhere (Foundation's `JSONEncoder` on Linux orders keys by hash). A key written twice keeps
/// its first place and its last value, and two keyed containers taken from one encoder write one object,
/// as with `JSONEncoder`. Strings go through ``JSONString``; a `Date` encodes as its own `Encodable` form
/// does (seconds since 2001, like `JSONEncoder`'s default).
package enum OrderedJSONEncoder {
    /// Encodes a value.
    /// - Parameter value: The value.
    /// - Returns: The JSON text, without a line break.
    /// - Throws: `EncodingError.invalidValue` for a value that encodes nothing, or a non-finite number;
    ///   what the value's `encode(to:)` throws.
    package static func encode(_ value: some Encodable) throws -> String {
        let root = Node()
        try value.encode(to: NodeEncoder(node: root, codingPath: []))
        guard !root.isUnset else {
            throw EncodingError.invalidValue(value, EncodingError.Context(codingPath: [], debugDescription: "the value encoded nothing"))
        }
        var out = ""
        root.write(to: &out)
        return out
    }

    /// One value of the tree being built.
    fileprivate final class Node {
        enum Content {
            case unset
            case literal(String)
            case object(keys: [String], values: [String: Node])
            case array([Node])
        }

        var content: Content = .unset

        var isUnset: Bool {
            if case .unset = content { return true }
            return false
        }

        /// The member for a key, made (in the key's first place) if new; the node becomes an object.
        func member(_ key: String) -> Node {
            var keys: [String] = []
            var values: [String: Node] = [:]
            if case .object(let existingKeys, let existingValues) = content {
                keys = existingKeys
                values = existingValues
            }
            let node = Node()
            if values[key] == nil { keys.append(key) }
            values[key] = node
            content = .object(keys: keys, values: values)
            return node
        }

        func makeObject() {
            if case .object = content { return }
            content = .object(keys: [], values: [:])
        }

        func append() -> Node {
            var items: [Node] = []
            if case .array(let existing) = content { items = existing }
            let node = Node()
            items.append(node)
            content = .array(items)
            return node
        }

        func makeArray() {
            if case .array = content { return }
            content = .array([])
        }

        func write(to out: inout String) {
            switch content {
            case .unset: out += "null"
            case .literal(let text): out += text
            case .object(let keys, let values):
                out += "{"
                for (index, key) in keys.enumerated() {
                    if index > 0 { out += "," }
                    out += JSONString.literal(key)
                    out += ":"
                    values[key]!.write(to: &out)
                }
                out += "}"
            case .array(let items):
                out += "["
                for (index, item) in items.enumerated() {
                    if index > 0 { out += "," }
                    item.write(to: &out)
                }
                out += "]"
            }
        }
    }

    fileprivate struct NodeEncoder: Encoder {
        let node: Node
        let codingPath: [any CodingKey]
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            node.makeObject()
            return KeyedEncodingContainer(Keyed<Key>(node: node, codingPath: codingPath))
        }

        func unkeyedContainer() -> any UnkeyedEncodingContainer {
            node.makeArray()
            return Unkeyed(node: node, codingPath: codingPath)
        }

        func singleValueContainer() -> any SingleValueEncodingContainer {
            Single(node: node, codingPath: codingPath)
        }
    }

    /// The JSON text of a scalar, or an error for a number JSON cannot hold.
    fileprivate static func literal(_ value: Double, _ codingPath: [any CodingKey]) throws -> String {
        guard value.isFinite else {
            throw EncodingError.invalidValue(value, EncodingError.Context(codingPath: codingPath, debugDescription: "JSON has no \(value)"))
        }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    /// Encodes any value into a node: scalars directly, the rest through their `encode(to:)`.
    fileprivate static func encode<T: Encodable>(_ value: T, into node: Node, codingPath: [any CodingKey]) throws {
        switch value {
        case let text as String: node.content = .literal(JSONString.literal(text))
        case let flag as Bool: node.content = .literal(flag ? "true" : "false")
        case let number as Int: node.content = .literal(String(number))
        case let number as Int64: node.content = .literal(String(number))
        case let number as Double: node.content = .literal(try literal(number, codingPath))
        default: try value.encode(to: NodeEncoder(node: node, codingPath: codingPath))
        }
    }

    fileprivate struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let node: Node
        let codingPath: [any CodingKey]

        mutating func encodeNil(forKey key: Key) throws { node.member(key.stringValue).content = .literal("null") }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            try OrderedJSONEncoder.encode(value, into: node.member(key.stringValue), codingPath: codingPath + [key])
        }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
            let child = node.member(key.stringValue)
            child.makeObject()
            return KeyedEncodingContainer(Keyed<NestedKey>(node: child, codingPath: codingPath + [key]))
        }
        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            let child = node.member(key.stringValue)
            child.makeArray()
            return Unkeyed(node: child, codingPath: codingPath + [key])
        }
        mutating func superEncoder() -> any Encoder { NodeEncoder(node: node.member("super"), codingPath: codingPath) }
        mutating func superEncoder(forKey key: Key) -> any Encoder { NodeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key]) }
    }

    fileprivate struct Unkeyed: UnkeyedEncodingContainer {
        let node: Node
        let codingPath: [any CodingKey]
        var count: Int {
            if case .array(let items) = node.content { return items.count }
            return 0
        }

        mutating func encodeNil() throws { node.append().content = .literal("null") }
        mutating func encode<T: Encodable>(_ value: T) throws { try OrderedJSONEncoder.encode(value, into: node.append(), codingPath: codingPath) }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            let child = node.append()
            child.makeObject()
            return KeyedEncodingContainer(Keyed<NestedKey>(node: child, codingPath: codingPath))
        }
        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            let child = node.append()
            child.makeArray()
            return Unkeyed(node: child, codingPath: codingPath)
        }
        mutating func superEncoder() -> any Encoder { NodeEncoder(node: node.append(), codingPath: codingPath) }
    }

    fileprivate struct Single: SingleValueEncodingContainer {
        let node: Node
        let codingPath: [any CodingKey]

        mutating func encodeNil() throws { node.content = .literal("null") }
        mutating func encode(_ value: Bool) throws { node.content = .literal(value ? "true" : "false") }
        mutating func encode(_ value: String) throws { node.content = .literal(JSONString.literal(value)) }
        mutating func encode(_ value: Double) throws { node.content = .literal(try OrderedJSONEncoder.literal(value, codingPath)) }
        mutating func encode(_ value: Float) throws { node.content = .literal(try OrderedJSONEncoder.literal(Double(value), codingPath)) }
        mutating func encode(_ value: Int) throws { node.content = .literal(String(value)) }
        mutating func encode(_ value: Int8) throws { node.content = .literal(String(value)) }
        mutating func encode(_ value: Int16) throws { node.content = .literal(String(value)) }
        mutating func encode(_ value: Int32) throws { node.content = .literal(String(value)) }
        mutating func encode(_ value: Int64) throws { node.content = .literal(String(value)) }
        mutating func encode(_ value: UInt) throws { node.content = .literal(String(value)) }
        mutating func encode(_ value: UInt8) throws { node.content = .literal(String(value)) }
        mutating func encode(_ value: UInt16) throws { node.content = .literal(String(value)) }
        mutating func encode(_ value: UInt32) throws { node.content = .literal(String(value)) }
        mutating func encode(_ value: UInt64) throws { node.content = .literal(String(value)) }
        mutating func encode<T: Encodable>(_ value: T) throws { try OrderedJSONEncoder.encode(value, into: node, codingPath: codingPath) }
    }
}
