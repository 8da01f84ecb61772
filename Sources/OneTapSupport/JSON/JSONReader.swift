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
package struct JSONReader {
    /// How deep arrays and objects may nest: 512 (as `JSONDecoder`).
    package static let maximumDepth = 512

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private var depth = 0
    /// Where keys with an escape are kept while the reader reads, made for the first such key.
    private var escapedKeys: EscapedKeys?
    /// The keys (and array indices) to the value being read, made into coding keys only for an error.
    /// (Kept in stack memory lent by ``read(_:_:)`` for the first ``inlineSteps`` steps, so keeping it
    /// costs no allocation and no reference counting; deeper paths move to ``PathStorage``. A path is
    /// never longer than the nesting, so at most ``maximumDepth``.)
    private var path: UnsafeMutableBufferPointer<Step>
    private var pathCount = 0
    /// Heap memory for a path deeper than ``inlineSteps``, made when first needed.
    private var deepPath: PathStorage?
    /// Path steps kept on the stack: 32 (768 bytes, within what the stack lends).
    private static let inlineSteps = 32

    fileprivate enum Step {
        case key(JSONKey)
        case index(Int)
    }

    private var codingPath: [JSONPathKey] {
        path[..<pathCount].map { step in
            switch step {
            case .key(let key): JSONPathKey(key.text)
            case .index(let index): JSONPathKey(index: index)
            }
        }
    }

    private init(_ bytes: UnsafeBufferPointer<UInt8>, path: UnsafeMutableBufferPointer<Step>) {
        self.bytes = bytes
        self.path = path
    }

    @inline(__always)
    private mutating func push(_ step: Step) {
        if pathCount == path.count { growPath() }
        path[pathCount] = step
        pathCount += 1
    }

    private mutating func growPath() {
        let storage = PathStorage(capacity: Self.maximumDepth + 1)
        _ = storage.steps.initialize(from: path[..<pathCount])
        deepPath = storage
        path = storage.steps
    }

    @inline(__always)
    private mutating func pop() -> Step {
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

    // MARK: Errors

    /// A `JSONReadError` (corrupt) at the value being read.
    /// - Parameter reason: What is wrong, without quoting the value.
    /// - Returns: The error.
    package func corrupt(_ reason: String) -> JSONReadError {
        JSONReadError(.corrupt, codingPath, "\(reason) (at byte \(index))")
    }

    /// A `JSONReadError` (corrupt) for a value that reads but makes no sense (`invalid PLMN "4600a": …`):
    /// the message alone, without the byte position ``corrupt(_:)`` adds.
    /// - Parameter reason: What is wrong.
    /// - Returns: The error.
    package func invalid(_ reason: String) -> JSONReadError {
        JSONReadError(.corrupt, codingPath, reason)
    }

    /// A `DecodingError.keyNotFound` for a member an object must have.
    /// - Parameter key: The key.
    /// - Returns: The error.
    package func missing(_ key: StaticString) -> JSONReadError {
        JSONReadError(.missing(JSONPathKey(key.description)), codingPath, "no value for \(key)")
    }

    /// A `JSONReadError` (corrupt) for a key written twice in one object.
    /// - Parameter key: The key.
    /// - Returns: The error.
    package func duplicate(_ key: JSONKey) -> JSONReadError {
        corrupt("\(QuotedInput(key.text)) appears twice in one object")
    }

    /// A value of another type than expected: `valueNotFound` for a `null` (as `JSONDecoder` says it),
    /// or, when what is here is no JSON value at all, that.
    private func mismatch(_ expected: JSONReadError.Expected) -> JSONReadError {
        if let problem = notAValue { return corrupt(problem) }
        guard let kind = Self.kind(startedBy: bytes[index]) else { return corrupt("not JSON: no value starts here") }
        if kind == .null { return JSONReadError(.valueNotFound(expected), codingPath, "expected \(expected), found null") }
        return JSONReadError(.mismatch(expected), codingPath, "expected \(expected), found \(kind)")
    }

    /// Why no JSON value starts here, or nil when one does (checked as far as a literal goes).
    private var notAValue: String? {
        guard index < bytes.count else { return "the input ends where a value should be" }
        guard let kind = Self.kind(startedBy: bytes[index]) else { return "not JSON: no value starts here" }
        let word: StaticString
        switch kind {
        case .null: word = "null"
        case .bool: word = bytes[index] == UInt8(ascii: "t") ? "true" : "false"
        default: return nil
        }
        return startsWith(word) ? nil : "not JSON: expected \(word)"
    }

    private func startsWith(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        return index + count <= bytes.count && JSONKey.same(UnsafeBufferPointer(rebasing: bytes[index..<(index + count)]), UnsafeBufferPointer(start: word.utf8Start, count: count))
    }

    // MARK: Structure

    /// The kinds of JSON value.
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
        package var description: String {
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
    @inline(__always)
    private static func kind(startedBy byte: UInt8) -> Kind? {
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
    private static func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

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
    package struct Cursor {
        fileprivate var started = false
        fileprivate var valueStart = 0
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
    package mutating func beginObject() throws(JSONReadError) -> Cursor {
        skipSpace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else { throw mismatch(.object) }
        try enter()
        return Cursor()
    }

    /// The object's next key, or nil at its end; a value the caller left unread (an unknown key, as
    /// `JSONDecoder` ignores it) is skipped, checked as JSON.
    /// - Parameter cursor: From ``beginObject()``.
    /// - Returns: The key, valid until the next call.
    /// - Throws: `JSONReadError` (corrupt) for a malformed object.
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
    package mutating func beginArray() throws(JSONReadError) -> Cursor {
        skipSpace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "[") else { throw mismatch(.array) }
        try enter()
        return Cursor()
    }

    /// Whether the array has another element (the caller then reads it); an element left unread is
    /// skipped.
    /// - Parameter cursor: From ``beginArray()``.
    /// - Returns: False at the array's end.
    /// - Throws: `JSONReadError` (corrupt) for a malformed array.
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
    @inline(__always)
    package mutating func elements<Element>(_ element: (inout JSONReader) throws(JSONReadError) -> Element) throws(JSONReadError) -> [Element] {
        var out: [Element] = []
        var cursor = try beginArray()
        while try nextElement(in: &cursor) { out.append(try element(&self)) }
        return out
    }

    /// Whether the object or array being read ends here (`close` is its closing bracket): if so, the
    /// bracket is read and the nesting left.
    @inline(__always)
    private mutating func closes(_ close: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == close else { return false }
        index += 1
        depth -= 1
        return true
    }

    private mutating func enter() throws(JSONReadError) {
        depth += 1
        index += 1
        guard depth <= Self.maximumDepth else { throw corrupt("nested deeper than \(Self.maximumDepth) levels") }
    }

    /// Skips the next value, checking that it is JSON.
    /// - Throws: `JSONReadError` (corrupt) for malformed JSON.
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

    // MARK: Scalars

    /// Reads an object's key, making a `String` only when it holds an escape.
    private mutating func key() throws(JSONReadError) -> JSONKey {
        let quote = index
        index += 1
        guard let (end, ascii) = try scanToQuote() else {
            index = quote
            let text = try string()
            let storage = escapedKeys ?? EscapedKeys()
            escapedKeys = storage
            return JSONKey(utf8: storage.keep(text))
        }
        let utf8 = UnsafeBufferPointer(rebasing: bytes[index..<end])
        guard ascii || Self.isUTF8(utf8) else { throw corrupt("a key that is not UTF-8") }
        index = end + 1
        return JSONKey(utf8: utf8)
    }

    /// From just after a string's opening quote: where its closing quote is, and whether every byte
    /// before it is ASCII; nil when an escape comes first.
    @inline(__always)
    private func scanToQuote() throws(JSONReadError) -> (end: Int, ascii: Bool)? {
        var position = index
        var high: UInt8 = 0
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") { return (position, high < 0x80) }
            if byte == UInt8(ascii: "\\") { return nil }
            if byte < 0x20 { throw JSONReadError(.corrupt, codingPath, "a control character in a string (JSON escapes them) (at byte \(position))") }
            high |= byte
            position += 1
        }
        throw corrupt("a string that never ends")
    }

    /// Reads a string.
    /// - Returns: The text, escapes resolved.
    /// - Throws: `JSONReadError` when the next value is no string, or is not valid (a control
    ///   character, a bad escape, a lone surrogate, bytes that are not UTF-8, no closing quote).
    /// - Complexity: O(*n*) in its length.
    package mutating func string() throws(JSONReadError) -> String {
        skipSpace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw mismatch(.string) }
        index += 1
        guard let (end, ascii) = try scanToQuote() else { return try escapedString() }
        let utf8 = UnsafeBufferPointer(rebasing: bytes[index..<end])
        let text: String
        if ascii {
            text = String(decoding: utf8, as: UTF8.self)
        } else {
            guard let valid = String(validating: utf8, as: UTF8.self) else { throw corrupt("a string that is not UTF-8") }
            text = valid
        }
        index = end + 1
        return text
    }

    /// Reads a string that holds no escape as its bytes in the input, without making a `String`.
    /// - Returns: The bytes (valid while the reader reads), or nil, reading nothing, when the string
    ///   holds an escape (read it with ``string()``).
    /// - Throws: `JSONReadError` when the next value is no string, or is not valid.
    package mutating func plainString() throws(JSONReadError) -> UnsafeBufferPointer<UInt8>? {
        skipSpace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw mismatch(.string) }
        index += 1
        guard let (end, ascii) = try scanToQuote() else {
            index -= 1
            return nil
        }
        let utf8 = UnsafeBufferPointer(rebasing: bytes[index..<end])
        guard ascii || Self.isUTF8(utf8) else { throw corrupt("a string that is not UTF-8") }
        index = end + 1
        return utf8
    }

    /// Whether bytes that are not all ASCII are UTF-8.
    private static func isUTF8(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool { String(validating: utf8, as: UTF8.self) != nil }

    /// A string that holds an escape, from just after its opening quote: its end found and its escapes
    /// resolved by the grammar both readers share (``JSONGrammar``).
    private mutating func escapedString() throws(JSONReadError) -> String {
        let end: Int
        do {
            end = try JSONGrammar.string(in: bytes, from: index).end
        } catch {
            index = error.at
            throw corrupt(error.problem.message)
        }
        var out: [UInt8] = []
        out.reserveCapacity(end - index)
        guard JSONGrammar.unescape(UnsafeBufferPointer(rebasing: bytes[index..<end]), repairing: false, { out.append($0) }) else {
            throw corrupt("a lone surrogate in a string")
        }
        guard let text = out.withUnsafeBufferPointer({ String(validatingUTF8Fast: $0) }) else { throw corrupt("a string that is not UTF-8") }
        index = end + 1
        return text
    }

    /// Reads an integer, written without a fraction or an exponent.
    /// - Returns: The integer.
    /// - Throws: `JSONReadError` when the next value is no number, is not an integer, or is out of
    ///   `Int`'s range.
    package mutating func int() throws(JSONReadError) -> Int {
        skipSpace()
        guard index < bytes.count, Self.kind(startedBy: bytes[index]) == .number else { throw mismatch(.integer) }
        let (range, integral) = try numberRange()
        guard integral else { throw corrupt("expected an integer, found a fraction or an exponent") }
        var position = range.lowerBound
        let negative = bytes[position] == UInt8(ascii: "-")
        if negative { position += 1 }
        var value = 0
        while position < range.upperBound {
            let digit = Int(bytes[position] - UInt8(ascii: "0"))
            let (shifted, overflow) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = negative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
            guard !overflow, !overflow2 else { throw corrupt("an integer out of range") }
            value = next
            position += 1
        }
        return value
    }

    /// Reads an integer, written without a fraction or an exponent.
    /// - Returns: The integer.
    /// - Throws: `JSONReadError` when the next value is no number, is not an integer, or is out of
    ///   `Int64`'s range.
    @inline(__always)
    package mutating func int64() throws(JSONReadError) -> Int64 { Int64(try int()) }

    /// Reads an unsigned integer, written without a sign, a fraction or an exponent (a token's version).
    /// - Returns: The integer.
    /// - Throws: `JSONReadError` when the next value is no number, is not such an integer, or is out of
    ///   `UInt64`'s range.
    package mutating func uint64() throws(JSONReadError) -> UInt64 {
        skipSpace()
        guard index < bytes.count, Self.kind(startedBy: bytes[index]) == .number else { throw mismatch(.integer) }
        let (range, integral) = try numberRange()
        guard integral else { throw corrupt("expected an integer, found a fraction or an exponent") }
        guard bytes[range.lowerBound] != UInt8(ascii: "-") else { throw corrupt("an integer out of range (below 0)") }
        var value: UInt64 = 0
        for position in range {
            let (shifted, overflow) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = shifted.addingReportingOverflow(UInt64(bytes[position] - UInt8(ascii: "0")))
            guard !overflow, !overflow2 else { throw corrupt("an integer out of range") }
            value = next
        }
        return value
    }

    /// Reads a number.
    /// - Returns: The nearest `Double`.
    /// - Throws: `JSONReadError` when the next value is no number, or is beyond `Double`'s range.
    package mutating func double() throws(JSONReadError) -> Double {
        skipSpace()
        guard index < bytes.count, Self.kind(startedBy: bytes[index]) == .number else { throw mismatch(.number) }
        let (range, integral) = try numberRange()
        // Fast path: an integer of at most 15 digits is a Double exactly.
        if integral, range.count <= 15 {
            var value = 0
            var position = range.lowerBound
            let negative = bytes[position] == UInt8(ascii: "-")
            if negative { position += 1 }
            while position < range.upperBound {
                value = value * 10 + Int(bytes[position] - UInt8(ascii: "0"))
                position += 1
            }
            if negative { return value == 0 ? -0.0 : -Double(value) }
            return Double(value)
        }
        let digits = UnsafeBufferPointer(rebasing: bytes[range])
        guard let value = Double(String(decoding: digits, as: UTF8.self)), value.isFinite else { throw corrupt("a number beyond a Double's range") }
        // Too small for a Double reads as 0 (`1e-400`): refused, as JSONDecoder refuses it, unless it is 0.
        if value == 0, digits.prefix(while: { $0 != UInt8(ascii: "e") && $0 != UInt8(ascii: "E") }).contains(where: { $0 &- UInt8(ascii: "1") < 9 }) {
            throw corrupt("a number beyond a Double's range (too small)")
        }
        return value
    }

    /// Reads `true` or `false`.
    /// - Returns: The value.
    /// - Throws: `JSONReadError` when the next value is neither.
    package mutating func bool() throws(JSONReadError) -> Bool {
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "t") {
            try literal("true")
            return true
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "f") {
            try literal("false")
            return false
        }
        throw mismatch(.boolean)
    }

    /// Reads a `null` if one comes next.
    /// - Returns: Whether it did.
    /// - Throws: `JSONReadError` (corrupt) for an `n` that does not start `null`.
    package mutating func null() throws(JSONReadError) -> Bool {
        skipSpace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "n") else { return false }
        try literal("null")
        return true
    }

    private mutating func literal(_ word: StaticString) throws(JSONReadError) {
        guard startsWith(word) else { throw corrupt("not JSON: expected \(word)") }
        index += word.utf8CodeUnitCount
    }

    /// Scans a number's syntax (RFC 8259 §6) from here, by the grammar both readers share.
    /// - Returns: Its bytes, and whether it has neither fraction nor exponent.
    private mutating func numberRange() throws(JSONReadError) -> (Range<Int>, integral: Bool) {
        skipSpace()
        let start = index
        do {
            let (end, integral) = try JSONGrammar.number(in: bytes, from: start)
            index = end
            return (start..<end, integral)
        } catch {
            index = error.at
            throw corrupt(error.problem.message)
        }
    }

    @inline(__always)
    private mutating func skipSpace() { index = JSONGrammar.endOfSpace(in: bytes, from: index) }
}

/// An object member's key as ``JSONReader`` found it, matched against the keys a type knows without
/// making a `String` (`switch key { case "id": … }`). Valid only inside the body it is handed to.
package struct JSONKey {
    /// The key's bytes: in the input, or (for a key that held an escape) decoded into the reader's
    /// ``EscapedKeys``.
    fileprivate let utf8: UnsafeBufferPointer<UInt8>

    fileprivate init(utf8: UnsafeBufferPointer<UInt8>) { self.utf8 = utf8 }

    /// The key as text.
    package var text: String { String(decoding: utf8, as: UTF8.self) }

    /// Whether the key is `pattern`.
    /// - Parameters:
    ///   - pattern: A key the type knows.
    ///   - key: The key read.
    /// - Returns: True when they are the same bytes.
    @inline(__always)
    package static func ~= (pattern: StaticString, key: JSONKey) -> Bool {
        same(key.utf8, UnsafeBufferPointer(start: pattern.utf8Start, count: pattern.utf8CodeUnitCount))
    }

    /// Whether two runs of bytes are the same.
    @inline(__always)
    package static func same(_ lhs: UnsafeBufferPointer<UInt8>, _ rhs: UnsafeBufferPointer<UInt8>) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for position in 0..<lhs.count where lhs[position] != rhs[position] { return false }
        return true
    }
}

/// The steps of a path deeper than the reader keeps on the stack, freed with the reader.
private final class PathStorage {
    let steps: UnsafeMutableBufferPointer<JSONReader.Step>

    init(capacity: Int) { steps = .allocate(capacity: capacity) }

    deinit { steps.deallocate() }
}

/// The decoded bytes of keys that held an escape (rare: no writer of ours escapes a key), kept while the
/// reader reads so that a ``JSONKey`` can point at them as it points into the input.
private final class EscapedKeys {
    private var buffers: [UnsafeMutableBufferPointer<UInt8>] = []

    func keep(_ text: String) -> UnsafeBufferPointer<UInt8> {
        let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: text.utf8.count)
        _ = buffer.initialize(from: text.utf8)
        buffers.append(buffer)
        return UnsafeBufferPointer(buffer)
    }

    deinit {
        for buffer in buffers { buffer.deallocate() }
    }
}
