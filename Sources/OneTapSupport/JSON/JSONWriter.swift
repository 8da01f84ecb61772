/// Writes compact JSON straight into a buffer of its own, members in the order they are written: what
/// every record OneTap stores or emits is written with (``JSONRecord``: a session, a token file, an event
/// line, the command line's output), without building a tree first as `JSONEncoder` does.
///
/// Commas are the writer's business: ``key(_:)-(StaticString)`` starts a member, and every value after
/// a value in an array or object is preceded by one. Not copyable: it owns its buffer.
///
/// `@usableFromInline` (still `package`, outside the API), as are the storage and helpers its `@inlinable`
/// members touch, so that the package's other modules inline and specialise its hot members: a member
/// of a plain `package` type is never inlined into another module.
@usableFromInline
package struct JSONWriter: ~Copyable {
    @usableFromInline var base: UnsafeMutablePointer<UInt8>
    @usableFromInline var count = 0
    @usableFromInline var capacity: Int
    /// Whether the next member or element needs a comma before it.
    @usableFromInline var needsComma = false
    /// The last fixed key written, for the message of a value JSON cannot hold.
    @usableFromInline var lastKey: StaticString = ""

    /// An empty writer.
    /// - Parameter capacity: Bytes to start with (it grows as needed).
    package init(capacity: Int = 512) {
        self.capacity = max(capacity, 16)
        base = UnsafeMutablePointer<UInt8>.allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// The JSON written, as text.
    package var text: String { String(decoding: UnsafeBufferPointer(start: base, count: count), as: UTF8.self) }

    /// The JSON written, as bytes, lent to `body`.
    /// - Parameter body: Reads the bytes (valid only while it runs).
    /// - Returns: What `body` returns.
    package func withBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// Empties the writer for the next value, keeping its buffer (a loop that writes one line per input).
    package mutating func removeAll() {
        count = 0
        needsComma = false
        lastKey = ""
    }

    // MARK: Bytes

    @inlinable @inline(__always)
    mutating func reserve(_ extra: Int) {
        guard count + extra > capacity else { return }
        grow(to: count + extra)
    }

    /// Moves the bytes to a buffer of at least `needed` bytes (twice the capacity, or more).
    @usableFromInline
    mutating func grow(to needed: Int) {
        let grown = max(capacity * 2, needed)
        let new = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
        new.update(from: base, count: count)
        base.deallocate()
        base = new
        capacity = grown
    }

    @inlinable @inline(__always)
    mutating func append(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count += 1
    }

    @inlinable @inline(__always)
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        reserve(bytes.count)
        UnsafeMutableRawPointer(base + count).copyMemory(from: source, byteCount: bytes.count)
        count += bytes.count
    }

    @inlinable @inline(__always)
    mutating func append(_ text: StaticString) {
        append(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    @inlinable @inline(__always)
    mutating func separate() {
        if needsComma { append(UInt8(ascii: ",")) }
        needsComma = true
    }

    // MARK: Values

    /// Starts an object member: `"name":`.
    /// - Parameter name: The key, printable ASCII without quote or backslash.
    @inlinable @inline(__always)
    package mutating func key(_ name: StaticString) {
        separate()
        reserve(name.utf8CodeUnitCount + 3)
        base[count] = UInt8(ascii: "\"")
        (base + count + 1).update(from: name.utf8Start, count: name.utf8CodeUnitCount)
        count += name.utf8CodeUnitCount + 1
        base[count] = UInt8(ascii: "\"")
        base[count + 1] = UInt8(ascii: ":")
        count += 2
        needsComma = false
        lastKey = name
    }

    /// Starts an object member whose key is any text (escaped as needed).
    /// - Parameter name: The key.
    package mutating func key(escaping name: String) {
        string(name)
        append(UInt8(ascii: ":"))
        needsComma = false
        lastKey = ""
    }

    /// Writes a string, escaped as JSON needs (invalid UTF-8 is written as U+FFFD, as ``JSONString``
    /// does).
    /// - Parameter value: The text.
    /// - Complexity: O(*n*) in its UTF-8 length.
    @inlinable
    package mutating func string(_ value: String) {
        separate()
        var value = value
        value.withUTF8 { utf8 in
            if JSONString.needsNoEscape(utf8) {
                reserve(utf8.count + 2)
                base[count] = UInt8(ascii: "\"")
                if let source = utf8.baseAddress { (base + count + 1).update(from: source, count: utf8.count) }
                count += utf8.count + 1
                base[count] = UInt8(ascii: "\"")
                count += 1
            } else {
                JSONString.write(utf8) { append($0) }
            }
        }
    }

    /// Writes a string from bytes that may not be UTF-8 (a line of input quoted back): invalid
    /// sequences are written as U+FFFD.
    /// - Parameter utf8: The bytes.
    /// - Complexity: O(*n*) in their number.
    package mutating func string(utf8: UnsafeBufferPointer<UInt8>) {
        separate()
        JSONString.write(utf8) { append($0) }
    }

    /// Writes a value that is JSON text already: a nested value another ``JSONWriter`` wrote (the
    /// command line builds some of its records from parts written apart).
    /// - Parameter json: One JSON value, as a writer wrote it.
    package mutating func fragment(_ json: String) {
        separate()
        var json = json
        json.withUTF8 { append(UnsafeRawBufferPointer($0)) }
    }

    /// Writes an integer.
    /// - Parameter value: The integer.
    @inlinable
    package mutating func int(_ value: Int) {
        int(Int64(value))
    }

    /// Writes an integer.
    /// - Parameter value: The integer.
    @inlinable
    package mutating func int(_ value: Int64) {
        separate()
        reserve(20)
        if value < 0 {
            base[count] = UInt8(ascii: "-")
            count += 1
        }
        digits(value.magnitude)
    }

    /// Writes an unsigned integer (a token's version).
    /// - Parameter value: The integer.
    @inlinable
    package mutating func int(_ value: UInt64) {
        separate()
        reserve(20)
        digits(value)
    }

    /// Writes an integer's decimal digits, room for 20 reserved.
    @inlinable @inline(__always)
    mutating func digits(_ value: UInt64) {
        var magnitude = value
        let start = count
        repeat {
            base[count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
            count += 1
            magnitude /= 10
        } while magnitude > 0
        var digits = UnsafeMutableBufferPointer(start: base + start, count: count - start)
        digits.reverse()
    }

    /// Writes an instant as OneTap stores every instant: whole milliseconds since 1970 (rounded to the
    /// nearest, ``Foundation/Date/millisecondsSince1970``).
    /// - Parameter date: The instant.
    /// - Throws: ``JSONWriteError`` for an instant with no millisecond count a record stores (infinite, NaN, or
    ///   outside the years 1 to 9999), as ``double(_:)`` refuses a number JSON cannot hold.
    @usableFromInline
    package mutating func instant(_ date: Date) throws(JSONWriteError) {
        guard date.hasMillisecondsSince1970 else {
            let seconds = date.timeIntervalSince1970
            let key = lastKey.utf8CodeUnitCount == 0 ? "an instant" : "the value of \(lastKey)"
            throw JSONWriteError(value: seconds, message: "\(key) is \(seconds) s since 1970; JSON has no infinity or NaN, and a stored instant is whole milliseconds within the years 1 to 9999")
        }
        int(date.millisecondsSince1970)
    }

    /// Writes a number: a whole number below 10¹⁵ as an integer, anything else in Swift's shortest form
    /// that reads back as the same `Double`.
    /// - Parameter value: The number.
    /// - Throws: ``JSONWriteError`` for infinity or NaN, which JSON cannot hold (as `JSONEncoder`
    ///   throws).
    package mutating func double(_ value: Double) throws(JSONWriteError) {
        guard value.isFinite else {
            let key = lastKey.utf8CodeUnitCount == 0 ? "a number" : "the value of \(lastKey)"
            throw JSONWriteError(value: value, message: "\(key) is \(value); JSON has no infinity or NaN")
        }
        if value == value.rounded(.towardZero), value.magnitude < 1e15, !(value == 0 && value.sign == .minus) {
            int(Int(value))
        } else {
            separate()
            var text = value.description
            text.withUTF8 { append(UnsafeRawBufferPointer($0)) }
        }
    }

    /// Writes `true` or `false`.
    /// - Parameter value: The value.
    @inlinable
    package mutating func bool(_ value: Bool) {
        separate()
        append(value ? "true" : "false")
    }

    /// Writes `null`.
    @inlinable
    package mutating func null() {
        separate()
        append("null")
    }

    /// Writes an object whose members `body` writes with ``key(_:)-(StaticString)`` and a value each.
    /// - Parameter body: Writes the members.
    /// - Throws: What `body` throws.
    @inlinable @inline(__always)
    package mutating func object<Failure: Error>(_ body: (inout JSONWriter) throws(Failure) -> Void) throws(Failure) {
        try container(UInt8(ascii: "{"), UInt8(ascii: "}"), body)
    }

    /// Writes an array whose elements `body` writes, a value each.
    /// - Parameter body: Writes the elements.
    /// - Throws: What `body` throws.
    @inlinable @inline(__always)
    package mutating func array<Failure: Error>(_ body: (inout JSONWriter) throws(Failure) -> Void) throws(Failure) {
        try container(UInt8(ascii: "["), UInt8(ascii: "]"), body)
    }

    @inlinable @inline(__always)
    mutating func container<Failure: Error>(_ open: UInt8, _ close: UInt8, _ body: (inout JSONWriter) throws(Failure) -> Void) throws(Failure) {
        separate()
        append(open)
        needsComma = false
        try body(&self)
        append(close)
        needsComma = true
    }
}

/// A number ``JSONWriter`` cannot write (infinity, NaN), made an `EncodingError` (``encodingError``)
/// where the API hands it out: like ``JSONReadError``, kept apart from the resilient library type so
/// that throwing it costs nothing until it is thrown. `@usableFromInline` (still `package`, outside the API)
/// so that ``JSONWriter``'s `@inlinable` members may throw it.
@usableFromInline
package struct JSONWriteError: Error, Sendable {
    /// The number.
    package let value: Double
    /// What is wrong.
    package let message: String

    /// The same error as `JSONEncoder` would throw it.
    package var encodingError: EncodingError {
        .invalidValue(value, EncodingError.Context(codingPath: [], debugDescription: message))
    }
}
