/// A value OneTap stores or emits as a JSON document: written by the one ``JSONWriter`` and read by the
/// one ``JSONReader``, member by member, and by nothing else (no `Codable` form beside it).
///
/// A record writes its members in a fixed order and reads them in any order, skipping members it does not
/// know, refusing a known member written twice. Every instant in a stored record is whole milliseconds
/// since 1970 (``JSONWriter/instant(_:)``, ``JSONReader/instant()``); a stored format that changes keeps
/// reading its older forms. A value only ever written (an event line) is ``JSONWritable``; one only ever
/// read (a carrier's answer) is ``JSONReadable``.
package typealias JSONRecord = JSONWritable & JSONReadable

/// A value written as JSON by the one ``JSONWriter``: half of a ``JSONRecord``.
package protocol JSONWritable {
    /// Writes the value as one JSON value.
    /// - Parameter writer: The writer.
    /// - Throws: ``JSONWriteError`` for a number or an instant JSON cannot hold.
    func write(to writer: inout JSONWriter) throws(JSONWriteError)
}

/// A value read from JSON by the one ``JSONReader``: half of a ``JSONRecord``.
package protocol JSONReadable {
    /// Reads the value from the next JSON value.
    /// - Parameter reader: The reader, at the value.
    /// - Throws: ``JSONReadError`` naming the member at fault.
    init(reading reader: inout JSONReader) throws(JSONReadError)

    /// Whether a UTF-8 byte order mark before the document is skipped: for what an app, a carrier or a
    /// file hands over (and what `JSONDecoder` read before), not for a session (which never took one).
    static var skipsByteOrderMark: Bool { get }
}

extension JSONWritable {
    /// The value as one line of compact JSON.
    /// - Parameter capacity: Bytes to start the writer with.
    /// - Returns: The text.
    /// - Throws: ``JSONWriteError`` for a number or an instant JSON cannot hold.
    /// - Complexity: O(*n*) in the length of the text.
    package func jsonText(capacity: Int = 256) throws(JSONWriteError) -> String {
        var writer = JSONWriter(capacity: capacity)
        try write(to: &writer)
        return writer.text
    }

    /// The value as one line of compact JSON, failing as `JSONEncoder` fails: what a record's `json()`
    /// in the API returns.
    /// - Parameter capacity: Bytes to start the writer with.
    /// - Returns: The text.
    /// - Throws: `EncodingError.invalidValue` for a number or an instant JSON cannot hold.
    /// - Complexity: O(*n*) in the length of the text.
    package func encodedJSON(capacity: Int = 256) throws(EncodingError) -> String {
        do {
            return try jsonText(capacity: capacity)
        } catch {
            throw error.encodingError
        }
    }

    /// The value as one line of compact JSON, failing as `JSONEncoder` fails.
    /// - Returns: The text.
    /// - Throws: `EncodingError.invalidValue` for a number or an instant JSON cannot hold.
    package func json() throws(EncodingError) -> String { try encodedJSON() }
}

extension JSONReadable {
    /// No byte order mark, by default.
    package static var skipsByteOrderMark: Bool { false }

    /// Reads a value from one JSON text, nothing but white space after it.
    /// - Parameter json: The UTF-8 bytes.
    /// - Returns: The value.
    /// - Throws: ``JSONReadError`` naming the member at fault.
    /// - Complexity: O(*n*) in the number of bytes.
    package static func reading(_ json: some Collection<UInt8>) throws(JSONReadError) -> Self {
        try JSONReader.read(json, skippingByteOrderMark: skipsByteOrderMark) { (reader) throws(JSONReadError) in try Self(reading: &reader) }
    }

    /// Reads a value from its JSON as UTF-8 bytes, failing as `JSONDecoder` fails: what a record's
    /// `init(json:)` in the API does.
    /// - Parameter json: The bytes (a string's `utf8`, `[UInt8]`, `Data`, a column's bytes).
    /// - Throws: `DecodingError` whose coding path names the member at fault.
    /// - Complexity: O(*n*) in the number of bytes.
    package init(decoding json: some Collection<UInt8>) throws(DecodingError) {
        do {
            self = try Self.reading(json)
        } catch {
            throw error.decodingError
        }
    }

    /// Reads a value from its JSON text, failing as `JSONDecoder` fails.
    /// - Parameter json: The text.
    /// - Throws: `DecodingError` whose coding path names the member at fault.
    package init(json: String) throws(DecodingError) { try self.init(decoding: json.utf8) }

    /// Reads a value from its JSON as UTF-8 bytes (`[UInt8]`, `Data`, a column's bytes).
    /// - Parameter json: The bytes.
    /// - Throws: `DecodingError` whose coding path names the member at fault.
    package init(json: some Collection<UInt8>) throws(DecodingError) { try self.init(decoding: json) }
}

extension JSONReader {
    /// Refuses a key written twice.
    /// - Parameters:
    ///   - seen: Whether the member was read before (its slot holds a value: `unseen(format != nil, key)`).
    ///   - key: The key just read.
    /// - Throws: ``JSONReadError`` (corrupt) when the member was seen before.
    @inlinable @inline(__always)
    package func unseen(_ seen: Bool, _ key: JSONKey) throws(JSONReadError) {
        if seen { throw duplicate(key) }
    }

    /// A string that `parse` reads; its ``ParseError`` becomes the message, without a byte position.
    /// - Parameter parse: Makes the value from the text.
    /// - Returns: The value.
    /// - Throws: ``JSONReadError``: a mismatch for a value that is no string, corrupt when `parse` throws.
    @inlinable
    package mutating func parsed<Value>(_ parse: (String) throws(ParseError) -> Value) throws(JSONReadError) -> Value {
        let text = try string()
        do {
            return try parse(text)
        } catch {
            throw invalid(error.description)
        }
    }

    /// A SHA-256 digest: 64 hexadecimal digits.
    /// - Returns: The digest.
    /// - Throws: ``JSONReadError`` for a value that is no such string.
    package mutating func digest() throws(JSONReadError) -> SHA256Digest {
        let text = try string()
        guard let digest = SHA256Digest(hex: text) else { throw corrupt(SHA256Digest.problem) }
        return digest
    }

    /// A `dataCorrupted` error at one member of the object just read.
    /// - Parameters:
    ///   - reason: What is wrong.
    ///   - key: The member.
    /// - Returns: The error.
    package func corrupt(_ reason: String, at key: String) -> JSONReadError { corrupt(reason).at(key) }

    /// A `keyNotFound` error unless the member was read.
    /// - Parameters:
    ///   - value: The member's value, nil when it was absent.
    ///   - key: The member's key.
    /// - Returns: The value.
    /// - Throws: ``JSONReadError`` (missing) naming the key.
    @inlinable @inline(__always)
    package func required<Value>(_ value: Value?, _ key: StaticString) throws(JSONReadError) -> Value {
        guard let value else { throw missing(key) }
        return value
    }
}
