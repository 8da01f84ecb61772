// A record a store keeps: its `format` member and its instants, checked against each other once, here.
// A record of this version names its format and holds whole milliseconds since 1970 (members named
// `…Ms`); the form `JSONEncoder` wrote before (no `format`), or a session's `onetap-session/1`, holds
// seconds (members without `Ms`), and is still read.

/// A record a store keeps as one document: its first member names its ``format``, the rest are its
/// own (``writeMembers(to:)``); it is read through ``JSONReader/storedRecord(_:legacy:_:)``, and a
/// byte order mark before it is skipped, as `JSONDecoder` skipped it when it read these records.
package protocol JSONStoredRecord: JSONRecord {
    /// The format this version writes (`onetap-sms-code/2`).
    static var format: String { get }

    /// Writes the record's members after `format`.
    /// - Parameter writer: The writer, inside the record's object.
    /// - Throws: ``JSONWriteError`` for an instant or a number JSON cannot hold.
    func writeMembers(to writer: inout JSONWriter) throws(JSONWriteError)
}

extension JSONStoredRecord {
    /// A byte order mark is skipped, as `JSONDecoder` skipped it when it read the record.
    package static var skipsByteOrderMark: Bool { true }

    /// Writes the record: `format`, then its own members.
    /// - Parameter writer: The writer.
    /// - Throws: ``JSONWriteError`` for an instant or a number JSON cannot hold.
    package func write(to writer: inout JSONWriter) throws(JSONWriteError) {
        try writer.object { (writer) throws(JSONWriteError) in
            writer.member("format", Self.format)
            try writeMembers(to: &writer)
        }
    }
}

extension JSONReader {
    /// Reads a stored record: its `format` member here, every other member by `body` (handed the key,
    /// the reader at its value, and the record's instants); then checks the format against `current`
    /// and against the form its instants came in (``storedFormat(_:_:_:)``).
    /// - Parameters:
    ///   - current: The format this version writes.
    ///   - legacy: What the older form's seconds count from.
    ///   - body: Reads one member.
    /// - Returns: Whether the record is in the current format (else in the older form).
    /// - Throws: ``JSONReadError``: what `body` throws; corrupt for another format or instants in the
    ///   other form's unit.
    package mutating func storedRecord(
        _ current: String, legacy: LegacyEpoch, _ body: (JSONKey, inout JSONReader, inout StoredInstants) throws(JSONReadError) -> Void
    ) throws(JSONReadError) -> Bool {
        var format: String?
        var instants = StoredInstants(legacy: legacy)
        try members { (key, reader) throws(JSONReadError) in
            if "format" ~= key { try reader.member(&format, key) } else { try body(key, &reader, &instants) }
        }
        return try storedFormat(format, current, instants)
    }

    /// Reads an instant as OneTap stores every instant: whole milliseconds since 1970 (an integer).
    /// - Returns: The instant.
    /// - Throws: ``JSONReadError`` when the next value is no integer, or one outside the years 1 to 9999
    ///   (``Foundation/Date/storableMilliseconds``: a record holding it could not be written again as it was).
    @inlinable @inline(__always)
    package mutating func instant() throws(JSONReadError) -> Date {
        let milliseconds = try int64()
        guard Date.storableMilliseconds.contains(milliseconds) else {
            throw corrupt("\(milliseconds) ms since 1970 lies outside the years 1 to 9999, which a stored instant holds")
        }
        return Date(millisecondsSince1970: milliseconds)
    }

    /// Reads an instant an older stored form holds as a number of seconds (any JSON number) since
    /// `epoch`, rounded to the millisecond as every instant now is.
    /// - Parameter epoch: What the seconds count from: 1970 (`LoginSession`'s `onetap-session/1`) or
    ///   2001-01-01 (what `JSONEncoder` wrote for a `Date`).
    /// - Returns: The instant.
    /// - Throws: ``JSONReadError`` when the next value is no number, or one no millisecond count holds.
    @usableFromInline
    package mutating func seconds(since epoch: LegacyEpoch) throws(JSONReadError) -> Date {
        let seconds = try double()
        let date = epoch == .unix ? Date(timeIntervalSince1970: seconds) : Date(timeIntervalSinceReferenceDate: seconds)
        guard date.hasMillisecondsSince1970 else { throw corrupt("an instant outside the years 1 to 9999, which a stored instant holds") }
        return date.roundedToMilliseconds
    }

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
}

/// What an older stored form counted its seconds from.
@usableFromInline
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
///
/// `@usableFromInline` (still `package`, outside the API) so that the package's other modules inline its
/// reads.
@usableFromInline
package struct StoredInstants {
    /// What an older form's seconds count from.
    @usableFromInline package let legacy: LegacyEpoch
    /// Whether an instant was read as seconds.
    @usableFromInline package internal(set) var seconds = false
    /// Whether an instant was read as milliseconds.
    @usableFromInline package internal(set) var milliseconds = false

    /// Starts reading a record's instants.
    /// - Parameter legacy: What its older form's seconds count from.
    @inlinable
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

extension StoredInstants {
    /// Reads an instant member into its slot.
    /// - Parameters:
    ///   - slot: Nil until the member is read.
    ///   - key: The member's key.
    ///   - inMilliseconds: The member's name in milliseconds (`createdAtMs`); any other name it is read
    ///     under holds seconds.
    ///   - reader: The reader, at the value.
    /// - Throws: ``JSONReadError``: corrupt for a member written twice; for a value that is no such number.
    @inlinable @inline(__always)
    package mutating func read(_ slot: inout Date?, _ key: JSONKey, _ inMilliseconds: StaticString, _ reader: inout JSONReader) throws(JSONReadError) {
        if slot != nil { throw reader.duplicate(key) }
        slot = try read(milliseconds: inMilliseconds ~= key, &reader)
    }

    /// Reads an instant member that may be `null` (absent) into its slot.
    /// - Parameters:
    ///   - slot: Nil until the member is read; `.some(nil)` for `null`.
    ///   - key: The member's key.
    ///   - inMilliseconds: The member's name in milliseconds.
    ///   - reader: The reader, at the value.
    /// - Throws: ``JSONReadError``, as ``read(_:_:_:_:)-(Date?,_,_,_)``.
    @inlinable @inline(__always)
    package mutating func read(_ slot: inout Date??, _ key: JSONKey, _ inMilliseconds: StaticString, _ reader: inout JSONReader) throws(JSONReadError) {
        if slot != nil { throw reader.duplicate(key) }
        slot = .some(try reader.null() ? nil : try read(milliseconds: inMilliseconds ~= key, &reader))
    }
}
