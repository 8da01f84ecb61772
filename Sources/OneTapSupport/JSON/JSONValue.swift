/// Any JSON value, kept as it came: what a deferred action's opaque payload and a guest's data are.
///
/// Numbers are kept as `Double` (JSON's own number); objects keep their members by name. ``json`` writes
/// objects with their keys sorted, so equal values write equal bytes; ``parse(_:)`` reads any JSON text
/// (an object with a key written twice is refused). It stays `Codable` for the app's own request types
/// that carry a payload (`struct FavouriteRequest: Codable { let payload: JSONValue }`); OneTap itself
/// reads and writes it with its own JSON reader and writer.
public enum JSONValue: Hashable, Sendable, Codable, CustomStringConvertible {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number.
    case number(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object.
    case object([String: JSONValue])

    /// Decodes any JSON value.
    /// - Parameter decoder: The decoder.
    /// - Throws: `DecodingError` for input that is not JSON.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// Encodes the value.
    /// - Parameter encoder: The encoder.
    /// - Throws: What the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// The value's JSON text, keys sorted: `{"a":1,"b":[true,null]}`.
    public var json: String {
        var out = ""
        write(to: &out)
        return out
    }

    /// The JSON text.
    public var description: String { json }

    private func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .number(let value):
            if value.isFinite, value == value.rounded(), abs(value) < 1e15 {
                out += String(Int64(value))
            } else if value.isFinite {
                out += "\(value)"
            } else {
                out += "null"   // JSON has no infinity or NaN
            }
        case .string(let value): out += JSONString.literal(value)
        case .array(let values):
            out += "["
            for (index, value) in values.enumerated() {
                if index > 0 { out += "," }
                value.write(to: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { out += "," }
                out += JSONString.literal(key) + ":"
                members[key]!.write(to: &out)
            }
            out += "}"
        }
    }

    /// Why the value's JSON text would not read back as the value, or nil when it would: it is nested deeper than
    /// ``JSONReader`` reads (512 levels), or holds a number JSON has no text for (infinity, NaN: written `null`).
    /// - Complexity: O(*n*) in the values it holds; its recursion stops past the reader's depth.
    package var unreadableAsJSON: String? { Self.unreadable(self, depth: 1) }

    private static func unreadable(_ value: JSONValue, depth: Int) -> String? {
        switch value {
        case .null, .bool, .string: nil
        case .number(let number): number.isFinite ? nil : "it holds a number JSON has no text for (\(number))"
        case .array(let values): unreadable(values, depth: depth)
        case .object(let members): unreadable(members.values, depth: depth)
        }
    }

    /// The first reason an array's or object's elements would not read back, the container at `depth`.
    private static func unreadable(_ elements: some Sequence<JSONValue>, depth: Int) -> String? {
        guard depth <= JSONReader.maximumDepth else { return "it is nested deeper than \(JSONReader.maximumDepth) levels" }
        for element in elements { if let problem = unreadable(element, depth: depth + 1) { return problem } }
        return nil
    }

    /// Whether two values write the same JSON text, byte for byte: how every store compares a value it holds (a
    /// database compares the text; `==` compares strings by canonical equivalence, `é` and `e` with a combining
    /// accent alike).
    /// - Parameters:
    ///   - one: A value, or nil.
    ///   - other: Another, or nil.
    /// - Returns: True when both are nil, or both write the same bytes.
    package static func sameText(_ one: JSONValue?, _ other: JSONValue?) -> Bool {
        switch (one, other) {
        case (nil, nil): true
        // Unequal finite values write unequal text: only equal ones, or ones holding a number JSON has no text for
        // (infinity and NaN write `null`, as `null` does), are written out.
        case (let one?, let other?):
            (one == other || one.unreadableAsJSON != nil || other.unreadableAsJSON != nil) && one.json.utf8.elementsEqual(other.json.utf8)
        default: false
        }
    }

    /// Reads JSON text.
    /// - Parameter text: The text.
    /// - Returns: The value.
    /// - Throws: `DecodingError` describing where the text stops being JSON (or names a key written twice
    ///   in one object).
    /// - Complexity: O(*n*) in the length of the text.
    public static func parse(_ text: String) throws(DecodingError) -> JSONValue {
        do {
            return try JSONReader.read(text.utf8, skippingByteOrderMark: true) { (reader) throws(JSONReadError) in try JSONValue(reading: &reader) }
        } catch {
            throw error.decodingError
        }
    }

    /// Writes the value (objects with their keys sorted).
    /// - Parameter writer: The writer.
    /// - Throws: ``JSONWriteError`` for a number that is infinite or NaN.
    package func write(to writer: inout JSONWriter) throws(JSONWriteError) {
        switch self {
        case .null: writer.null()
        case .bool(let value): writer.bool(value)
        case .number(let value): try writer.double(value)
        case .string(let value): writer.string(value)
        case .array(let values):
            try writer.array { (writer) throws(JSONWriteError) in
                for value in values { try value.write(to: &writer) }
            }
        case .object(let members):
            try writer.object { (writer) throws(JSONWriteError) in
                for key in members.keys.sorted() {
                    writer.key(escaping: key)
                    try members[key, default: .null].write(to: &writer)
                }
            }
        }
    }

    /// Reads any JSON value; an object with a key written twice is refused.
    /// - Parameter reader: The reader.
    /// - Throws: ``JSONReadError`` for text that is not JSON.
    package init(reading reader: inout JSONReader) throws(JSONReadError) {
        switch try reader.peek() {
        case .null:
            _ = try reader.null()
            self = .null
        case .bool: self = .bool(try reader.bool())
        case .number: self = .number(try reader.double())
        case .string: self = .string(try reader.string())
        case .array: self = .array(try reader.elements { (reader) throws(JSONReadError) in try JSONValue(reading: &reader) })
        case .object:
            var members: [String: JSONValue] = [:]
            var cursor = try reader.beginObject()
            while let key = try reader.nextKey(in: &cursor) {
                let name = key.text
                guard members[name] == nil else { throw reader.duplicate(key) }
                members[name] = try JSONValue(reading: &reader)
            }
            self = .object(members)
        }
    }

    /// How deep arrays and objects nest in it: 0 for a scalar, 1 for `[]` or `[1]`, 2 for `[[1]]`.
    /// - Complexity: O(*n*) in the number of values.
    package var depth: Int {
        switch self {
        case .array(let values): 1 + (values.map(\.depth).max() ?? 0)
        case .object(let members): 1 + (members.values.map(\.depth).max() ?? 0)
        default: 0
        }
    }

    /// Whether the value's JSON text, as ``write(to:)`` writes it, is longer than `limit` bytes. A lower bound of
    /// the length is counted first, stopping as soon as it passes `limit` (so a huge value is not written); only a
    /// value that might fit is written to be measured. A value with a number JSON cannot hold (infinite, NaN) is
    /// longer than any limit.
    /// - Parameter limit: The bytes.
    /// - Returns: Whether it is longer.
    /// - Complexity: O(*n*) in the values read before the lower bound passes `limit`, then O(*n*) in the text.
    package func isLonger(than limit: Int) -> Bool {
        var count = 0
        var pending: [JSONValue] = [self]
        while let value = pending.popLast() {
            switch value {
            case .null, .bool: count += 4
            case .number: count += 1
            case .string(let text): count += text.utf8.count + 2
            case .array(let values):
                count += 2 + max(0, values.count - 1)
                if count > limit { return true }  // before a wide array is copied
                pending.append(contentsOf: values)
            case .object(let members):
                count += 2 + max(0, members.count - 1)
                for (key, member) in members {
                    count += key.utf8.count + 3
                    if count > limit { return true }
                    pending.append(member)
                }
            }
            if count > limit { return true }
        }
        var writer = JSONWriter(capacity: max(512, count))
        do {
            try write(to: &writer)
        } catch {
            return true
        }
        return writer.count > limit
    }

    /// The string, when this is one.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The members, when this is an object.
    public var objectValue: [String: JSONValue]? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// The elements, when this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    /// `"text"` as a JSON string.
    /// - Parameter value: The text.
    public init(stringLiteral value: String) { self = .string(value) }
    /// `42` as a JSON number.
    /// - Parameter value: The number.
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    /// `1.5` as a JSON number.
    /// - Parameter value: The number.
    public init(floatLiteral value: Double) { self = .number(value) }
    /// `true` or `false`.
    /// - Parameter value: The value.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// `[…]` as a JSON array.
    /// - Parameter elements: The elements.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// `[key: value, …]` as a JSON object (a later duplicate key wins).
    /// - Parameter elements: The members.
    public init(dictionaryLiteral elements: (String, JSONValue)...) { self = .object(Dictionary(elements, uniquingKeysWith: { $1 })) }
    /// `nil` as JSON `null`.
    /// - Parameter nilLiteral: Nothing.
    public init(nilLiteral: ()) { self = .null }
}

/// Any JSON value is a member's value: a pending action's payload, a merge plan's data.
extension JSONValue: JSONRecord {}
