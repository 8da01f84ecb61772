#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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

    /// The value as one line of compact JSON, failing as `JSONEncoder` fails.
    /// - Returns: The text.
    /// - Throws: `EncodingError.invalidValue` for a number or an instant JSON cannot hold.
    package func json() throws(EncodingError) -> String {
        do {
            return try jsonText()
        } catch {
            throw error.encodingError
        }
    }
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

    /// Reads a value from its JSON text, failing as `JSONDecoder` fails.
    /// - Parameter json: The text.
    /// - Throws: `DecodingError` whose coding path names the member at fault.
    package init(json: String) throws(DecodingError) {
        do {
            self = try Self.reading(json.utf8)
        } catch {
            throw error.decodingError
        }
    }

    /// Reads a value from its JSON as UTF-8 bytes (`[UInt8]`, `Data`, a column's bytes).
    /// - Parameter json: The bytes.
    /// - Throws: `DecodingError` whose coding path names the member at fault.
    package init(json: some Collection<UInt8>) throws(DecodingError) {
        do {
            self = try Self.reading(json)
        } catch {
            throw error.decodingError
        }
    }
}

extension JSONReader {
    /// Refuses a key written twice.
    /// - Parameters:
    ///   - seen: Whether the member was read before (its slot holds a value: `unseen(format != nil, key)`).
    ///   - key: The key just read.
    /// - Throws: ``JSONReadError`` (corrupt) when the member was seen before.
    @inline(__always)
    package func unseen(_ seen: Bool, _ key: JSONKey) throws(JSONReadError) {
        if seen { throw duplicate(key) }
    }

    /// Reads an instant as OneTap stores every instant: whole milliseconds since 1970 (an integer).
    /// - Returns: The instant.
    /// - Throws: ``JSONReadError`` when the next value is no integer in `Int64`'s range.
    @inlinable @inline(__always)
    package mutating func instant() throws(JSONReadError) -> Date {
        Date(millisecondsSince1970: try int64())
    }

    /// Reads an instant an older stored form holds as a number of seconds (any JSON number) since
    /// `epoch`, rounded to the millisecond as every instant now is.
    /// - Parameter epoch: What the seconds count from: 1970 (`LoginSession`'s `onetap-session/1`) or
    ///   2001-01-01 (what `JSONEncoder` wrote for a `Date`).
    /// - Returns: The instant.
    /// - Throws: ``JSONReadError`` when the next value is no number, or one no millisecond count holds.
    package mutating func seconds(since epoch: LegacyEpoch) throws(JSONReadError) -> Date {
        let seconds = try double()
        let date = epoch == .unix ? Date(timeIntervalSince1970: seconds) : Date(timeIntervalSinceReferenceDate: seconds)
        guard date.hasMillisecondsSince1970 else { throw corrupt("an instant beyond what whole milliseconds in an Int64 hold") }
        return date.roundedToMilliseconds
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

    /// Checks a record's `format` member against the form its instants came in: a record OneTap writes
    /// now names its format and holds whole milliseconds; the form `JSONEncoder` wrote before (no
    /// `format`) holds seconds.
    /// - Parameters:
    ///   - format: The `format` member read, nil when there was none.
    ///   - current: The format this version writes.
    ///   - instants: The instants read.
    /// - Returns: Whether the record is in the current format (else in the older form).
    /// - Throws: ``JSONReadError`` (corrupt) for another format, or instants in the other form's unit.
    package func storedFormat(_ format: String?, _ current: String, _ instants: StoredInstants) throws(JSONReadError) -> Bool {
        guard let format else {
            if instants.milliseconds { throw corrupt("a record without a format holds its instants as seconds, not as milliseconds", at: "format") }
            return false
        }
        guard format == current else { throw corrupt("format \(QuotedInput(format)) is not \(current)", at: "format") }
        if instants.seconds { throw corrupt("\(current) holds its instants as whole milliseconds (…Ms), not as seconds", at: "format") }
        return true
    }

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

/// What an older stored form counted its seconds from.
package enum LegacyEpoch: Sendable {
    /// 1970-01-01T00:00:00Z.
    case unix
    /// 2001-01-01T00:00:00Z: `JSONEncoder`'s default for a `Date`.
    case reference
}

/// The instants of a stored record being read, in the form its members show: whole milliseconds since
/// 1970 (a name ending in `Ms`, every format OneTap writes now) or seconds (an older form: since 1970 in
/// `onetap-session/1`, since 2001 in what `JSONEncoder` wrote). A record checks the two against its
/// format once its members are read.
package struct StoredInstants {
    /// What an older form's seconds count from.
    package let legacy: LegacyEpoch
    /// Whether an instant was read as seconds.
    package private(set) var seconds = false
    /// Whether an instant was read as milliseconds.
    package private(set) var milliseconds = false

    /// Starts reading a record's instants.
    /// - Parameter legacy: What its older form's seconds count from.
    package init(legacy: LegacyEpoch) {
        self.legacy = legacy
    }

    /// Reads the value of an instant member.
    /// - Parameters:
    ///   - inMilliseconds: Whether the member holds whole milliseconds (its name ends in `Ms`), else
    ///     seconds since ``legacy``.
    ///   - reader: The reader, at the value.
    /// - Returns: The instant, to the millisecond.
    /// - Throws: ``JSONReadError`` for a value that is no such number.
    @inlinable
    package mutating func read(milliseconds inMilliseconds: Bool, _ reader: inout JSONReader) throws(JSONReadError) -> Date {
        if inMilliseconds {
            milliseconds = true
            return try reader.instant()
        }
        seconds = true
        return try reader.seconds(since: legacy)
    }
}
