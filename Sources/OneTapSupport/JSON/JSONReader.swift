/// Reads JSON (RFC 8259) straight from bytes, value by value, into a type's own fields: what every
/// record OneTap stores or is handed is read with (``JSONRecord``: a session, a token file, a device
/// snapshot, a refresh answer), without building a tree first as `JSONDecoder` does.
///
/// It is stricter than `JSONDecoder`, never looser: an integer field takes only integer syntax (`2`,
/// not `2.0`), a known key written twice in one object is refused (`JSONDecoder` keeps the first; an
/// unknown key's values are skipped, as `JSONDecoder` skips them), strings
/// must be UTF-8 without lone surrogates, and nesting stops at 512 levels. The only texts it reads that
/// `JSONDecoder` (Swift 6.3, Linux) refuses are valid JSON: some spellings of zero with an exponent
/// (`0e5`, `0.00e1`, `-0.0e-7`), which RFC 8259 allows and this reader reads as 0. Errors are
/// ``JSONReadError``s (a `DecodingError` at the API's edge) whose coding path names the keys to the
/// value at fault, as `JSONDecoder`'s do.
///
/// `@usableFromInline` (still `package`, outside the API), as are the storage and helpers its `@inlinable`
/// members touch, so that the package's other modules inline and specialise its hot members: a member
/// of a plain `package` type is never inlined into another module.
@usableFromInline
package struct JSONReader {
    /// How deep arrays and objects may nest: 512 (as `JSONDecoder`).
    @usableFromInline package static let maximumDepth = 512

    @usableFromInline let bytes: UnsafeBufferPointer<UInt8>
    @usableFromInline var index = 0
    @usableFromInline var depth = 0
    /// Where keys with an escape are kept while the reader reads, made for the first such key.
    @usableFromInline var escapedKeys: EscapedKeys?
    /// The keys (and array indices) to the value being read, made into coding keys only for an error.
    /// (Kept in stack memory lent by ``read(_:_:)`` for the first ``inlineSteps`` steps, so keeping it
    /// costs no allocation and no reference counting; deeper paths move to ``PathStorage``. A path is
    /// never longer than the nesting, so at most ``maximumDepth``.)
    @usableFromInline var path: UnsafeMutableBufferPointer<Step>
    @usableFromInline var pathCount = 0
    /// Heap memory for a path deeper than ``inlineSteps``, made when first needed.
    @usableFromInline var deepPath: PathStorage?
    /// Path steps kept on the stack: 32 (768 bytes, within what the stack lends).
    @usableFromInline static let inlineSteps = 32

    @usableFromInline
    enum Step {
        case key(JSONKey)
        case index(Int)
    }

    /// The path to the value read, for a `DecodingError`: each key cut to 64 Unicode scalars and `…` (a request's
    /// key reaches an error only that long, combining marks and all).
    var codingPath: [JSONPathKey] {
        path[..<pathCount].map { step in
            switch step {
            case .key(let key):
                let text = key.text
                let scalars = text.unicodeScalars
                return JSONPathKey(scalars.count > 64 ? String(String.UnicodeScalarView(scalars.prefix(64))) + "…" : text)
            case .index(let index): return JSONPathKey(index: index)
            }
        }
    }

    @inlinable
    init(_ bytes: UnsafeBufferPointer<UInt8>, path: UnsafeMutableBufferPointer<Step>) {
        self.bytes = bytes
        self.path = path
    }

    @inlinable @inline(__always)
    mutating func push(_ step: Step) {
        if pathCount == path.count { growPath() }
        path[pathCount] = step
        pathCount += 1
    }

    @usableFromInline
    mutating func growPath() {
        let storage = PathStorage(capacity: Self.maximumDepth + 1)
        _ = storage.steps.initialize(from: path[..<pathCount])
        deepPath = storage
        path = storage.steps
    }

    @inlinable @inline(__always)
    mutating func pop() -> Step {
        pathCount -= 1
        return path[pathCount]
    }

    /// Reads one JSON text: `body` reads its value, and nothing but white space may follow it.
    /// - Parameters:
    ///   - input: The UTF-8 bytes.
    ///   - skippingByteOrderMark: Whether a UTF-8 byte order mark before the value is skipped (as
    ///     `JSONDecoder` skips it, for what an app or a file may send), rather than refused.
    ///   - body: Reads the value.
    /// - Returns: What `body` returns.
    /// - Throws: `JSONReadError` (corrupt) for input that is not one JSON value; what `body` throws.
    /// - Complexity: O(*n*) in the input's length, plus what `body` does.
    @inlinable
    package static func read<Bytes: Collection<UInt8>, Value>(
        _ input: Bytes, skippingByteOrderMark: Bool = false, _ body: (inout JSONReader) throws(JSONReadError) -> Value
    ) throws(JSONReadError) -> Value {
        func run(_ buffer: UnsafeBufferPointer<UInt8>) -> Result<Value, JSONReadError> {
            withUnsafeTemporaryAllocation(of: Step.self, capacity: inlineSteps) { path in
                run(buffer, path: path)
            }
        }
        func run(_ buffer: UnsafeBufferPointer<UInt8>, path: UnsafeMutableBufferPointer<Step>) -> Result<Value, JSONReadError> {
            var reader = JSONReader(buffer, path: path)
            return Result { () throws(JSONReadError) -> Value in
                if skippingByteOrderMark, buffer.count >= 3, buffer[0] == 0xEF, buffer[1] == 0xBB, buffer[2] == 0xBF { reader.index = 3 }
                reader.skipSpace()
                guard reader.index < buffer.count else { throw reader.corrupt("no JSON value: the input is empty") }
                let value = try body(&reader)
                reader.skipSpace()
                guard reader.index == buffer.count else { throw reader.corrupt("text after the JSON value") }
                return value
            }
        }
        let result = input.withContiguousStorageIfAvailable(run) ?? Array(input).withUnsafeBufferPointer(run)
        return try result.get()
    }

    // MARK: Structure

    /// The kinds of JSON value.
    @usableFromInline
    package enum Kind: CustomStringConvertible {
        /// `{…}`.
        case object
        /// `[…]`.
        case array
        /// `"…"`.
        case string
        /// `-1.5e3`.
        case number
        /// `true` or `false`.
        case bool
        /// `null`.
        case null

        /// `an object`, …, for a message.
        @usableFromInline package var description: String {
            switch self {
            case .object: "an object"
            case .array: "an array"
            case .string: "a string"
            case .number: "a number"
            case .bool: "a boolean"
            case .null: "null"
            }
        }
    }

    /// The kind of value a byte starts, or nil when it starts none: the one place that says so.
    @inlinable @inline(__always)
    static func kind(startedBy byte: UInt8) -> Kind? {
        switch byte {
        case UInt8(ascii: "{"): .object
        case UInt8(ascii: "["): .array
        case UInt8(ascii: "\""): .string
        case UInt8(ascii: "t"), UInt8(ascii: "f"): .bool
        case UInt8(ascii: "n"): .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): .number
        default: nil
        }
    }

    @inline(__always)
    static func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

    /// The kind of the next value, without reading it.
    /// - Returns: The kind.
    /// - Throws: `JSONReadError` (corrupt) when no value starts here.
    package mutating func peek() throws(JSONReadError) -> Kind {
        skipSpace()
        guard index < bytes.count else { throw corrupt("the input ends where a value should be") }
        guard let kind = Self.kind(startedBy: bytes[index]) else { throw corrupt("not JSON: no value starts here") }
        return kind
    }

    /// Where an object or array being read stands: what ``nextKey(in:)`` keeps between
    /// members.
    @usableFromInline
    package struct Cursor {
        @usableFromInline var started = false
        @usableFromInline var valueStart = 0

        @inlinable
        init() {}
    }

    /// Starts reading an object; read its members with ``nextKey(in:)``:
    ///
    /// ```swift
    /// var members = try reader.beginObject()
    /// while let key = try reader.nextKey(in: &members) {
    ///     switch key {
    ///     case "id": id = try reader.string()
    ///     default: break   // an unknown key: its value is skipped
    ///     }
    /// }
    /// ```
    /// - Returns: The cursor.
    /// - Throws: `JSONReadError` (mismatch) when the next value is no object.
    @inlinable
    package mutating func beginObject() throws(JSONReadError) -> Cursor { try begin(UInt8(ascii: "{"), .object) }

    /// The object's next key, or nil at its end; a value the caller left unread (an unknown key, as
    /// `JSONDecoder` ignores it) is skipped, checked as JSON.
    /// - Parameter cursor: From ``beginObject()``.
    /// - Returns: The key, valid until the next call.
    /// - Throws: `JSONReadError` (corrupt) for a malformed object.
    @inlinable
    package mutating func nextKey(in cursor: inout Cursor) throws(JSONReadError) -> JSONKey? {
        if cursor.started {
            if index == cursor.valueStart { try skipValue() }
            skipSpace()
            _ = pop()
            guard index < bytes.count else { throw corrupt("an object that never ends") }
            if closes(UInt8(ascii: "}")) { return nil }
            guard bytes[index] == UInt8(ascii: ",") else { throw corrupt("expected , or } after a member") }
            index += 1
            skipSpace()
        } else {
            cursor.started = true
            skipSpace()
            if closes(UInt8(ascii: "}")) { return nil }
        }
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw corrupt("expected a key in quotes") }
        let key = try self.key()
        skipSpace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw corrupt("expected : after a key") }
        index += 1
        push(.key(key))
        cursor.valueStart = index
        return key
    }

    /// Starts reading an array; read its elements while ``nextElement(in:)`` says there is one.
    /// - Returns: The cursor.
    /// - Throws: `JSONReadError` (mismatch) when the next value is no array.
    @inlinable
    package mutating func beginArray() throws(JSONReadError) -> Cursor { try begin(UInt8(ascii: "["), .array) }

    /// Starts reading an object or an array (`open` is its opening bracket), for ``beginObject()`` and
    /// ``beginArray()``.
    @inlinable
    mutating func begin(_ open: UInt8, _ expected: JSONReadError.Expected) throws(JSONReadError) -> Cursor {
        skipSpace()
        guard index < bytes.count, bytes[index] == open else { throw mismatch(expected) }
        try enter()
        return Cursor()
    }

    /// Whether the array has another element (the caller then reads it); an element left unread is
    /// skipped.
    /// - Parameter cursor: From ``beginArray()``.
    /// - Returns: False at the array's end.
    /// - Throws: `JSONReadError` (corrupt) for a malformed array.
    @inlinable
    package mutating func nextElement(in cursor: inout Cursor) throws(JSONReadError) -> Bool {
        var position = 0
        if cursor.started {
            if index == cursor.valueStart { try skipValue() }
            skipSpace()
            if case .index(let last) = pop() { position = last + 1 }
            guard index < bytes.count else { throw corrupt("an array that never ends") }
            if closes(UInt8(ascii: "]")) { return false }
            guard bytes[index] == UInt8(ascii: ",") else { throw corrupt("expected , or ] after an element") }
            index += 1
        } else {
            cursor.started = true
            skipSpace()
            if closes(UInt8(ascii: "]")) { return false }
        }
        push(.index(position))
        skipSpace()
        cursor.valueStart = index
        return true
    }

    /// Reads an array, each element with `element`.
    /// - Parameter element: Reads one element.
    /// - Returns: The elements.
    /// - Throws: `JSONReadError` when the next value is no array or is malformed; what `element` throws.
    @inlinable @inline(__always)
    package mutating func elements<Element>(_ element: (inout JSONReader) throws(JSONReadError) -> Element) throws(JSONReadError) -> [Element] {
        var out: [Element] = []
        var cursor = try beginArray()
        while try nextElement(in: &cursor) { out.append(try element(&self)) }
        return out
    }

    /// Whether the object or array being read ends here (`close` is its closing bracket): if so, the
    /// bracket is read and the nesting left.
    @inlinable @inline(__always)
    mutating func closes(_ close: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == close else { return false }
        index += 1
        depth -= 1
        return true
    }

    @inlinable
    mutating func enter() throws(JSONReadError) {
        depth += 1
        index += 1
        guard depth <= Self.maximumDepth else { throw corrupt("nested deeper than \(Self.maximumDepth) levels") }
    }

    /// Skips the next value, checking that it is JSON.
    /// - Throws: `JSONReadError` (corrupt) for malformed JSON.
    @usableFromInline
    package mutating func skipValue() throws(JSONReadError) {
        switch try peek() {
        case .object:
            var cursor = try beginObject()
            while try nextKey(in: &cursor) != nil {}
        case .array:
            var cursor = try beginArray()
            while try nextElement(in: &cursor) {}
        case .string: _ = try string()
        case .number: _ = try numberRange()
        case .bool: _ = try bool()
        case .null: try literal("null")
        }
    }
}

/// The steps of a path deeper than the reader keeps on the stack, freed with the reader.
@usableFromInline
final class PathStorage {
    let steps: UnsafeMutableBufferPointer<JSONReader.Step>

    init(capacity: Int) { steps = .allocate(capacity: capacity) }

    deinit { steps.deallocate() }
}
