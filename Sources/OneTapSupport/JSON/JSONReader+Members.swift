// Reading a record's members: what every `init(reading:)` repeated before, said once. A record states
// only its own part, a member per line:
//
//     var id: String?, number: PhoneNumber?, session: LoginSessionID??
//     try reader.members { (key, reader) throws(JSONReadError) in
//         switch key {
//         case "id": try reader.member(&id, key)
//         case "number": try reader.parsed(&number, key)
//         case "session": try reader.parsed(&session, key)   // `null` reads as absent
//         default: break                                     // an unknown member is skipped
//         }
//     }
//
// A slot is nil until its member is read; a member written twice is refused where it stands, naming
// its key. A slot of a doubly optional type (`String??`) is a member that may be `null`.

/// A value a member holds that reads itself from the next JSON value: a string, a number, a flag, a
/// digest (and, through ``JSONReadable``, a nested record).
package protocol JSONScalar {
    /// Reads the value.
    /// - Parameter reader: The reader, at the value.
    /// - Throws: ``JSONReadError`` for a value of another type.
    init(scalar reader: inout JSONReader) throws(JSONReadError)
}

/// A value a member holds as text that it parses itself (a phone number, an account id): its
/// ``ParseError`` becomes the member's error message.
package protocol JSONParsedText {
    /// Parses the text.
    /// - Parameter text: The member's string.
    /// - Throws: ``ParseError`` for text that is no such value.
    init(_ text: String) throws(ParseError)
}

extension String: JSONScalar {
    /// Reads a string.
    /// - Parameter reader: The reader.
    /// - Throws: ``JSONReadError`` for a value that is no string.
    @inline(__always)
    package init(scalar reader: inout JSONReader) throws(JSONReadError) { self = try reader.string() }
}

extension Int: JSONScalar {
    /// Reads an integer.
    /// - Parameter reader: The reader.
    /// - Throws: ``JSONReadError`` for a value that is no integer in range.
    @inline(__always)
    package init(scalar reader: inout JSONReader) throws(JSONReadError) { self = try reader.int() }
}

extension Int64: JSONScalar {
    /// Reads an integer.
    /// - Parameter reader: The reader.
    /// - Throws: ``JSONReadError`` for a value that is no integer in range.
    @inline(__always)
    package init(scalar reader: inout JSONReader) throws(JSONReadError) { self = try reader.int64() }
}

extension UInt64: JSONScalar {
    /// Reads an unsigned integer.
    /// - Parameter reader: The reader.
    /// - Throws: ``JSONReadError`` for a value that is no such integer.
    @inline(__always)
    package init(scalar reader: inout JSONReader) throws(JSONReadError) { self = try reader.uint64() }
}

extension Bool: JSONScalar {
    /// Reads `true` or `false`.
    /// - Parameter reader: The reader.
    /// - Throws: ``JSONReadError`` for a value that is neither.
    @inline(__always)
    package init(scalar reader: inout JSONReader) throws(JSONReadError) { self = try reader.bool() }
}

extension SHA256Digest: JSONScalar {
    /// Reads a digest: 64 hexadecimal digits.
    /// - Parameter reader: The reader.
    /// - Throws: ``JSONReadError`` for a value that is no such string.
    @inline(__always)
    package init(scalar reader: inout JSONReader) throws(JSONReadError) { self = try reader.digest() }
}

extension JSONReader {
    /// Reads an object member by member: `body` is handed each key (and the reader, at its value); a
    /// value it leaves unread (an unknown member) is skipped.
    /// - Parameter body: Reads one member.
    /// - Throws: ``JSONReadError`` when the next value is no object or is malformed; what `body` throws.
    @inlinable @inline(__always)
    package mutating func members(_ body: (JSONKey, inout JSONReader) throws(JSONReadError) -> Void) throws(JSONReadError) {
        var cursor = try beginObject()
        while let key = try nextKey(in: &cursor) { try body(key, &self) }
    }

    /// Reads a member's value into its slot.
    /// - Parameters:
    ///   - slot: Nil until the member is read.
    ///   - key: The member's key.
    /// - Throws: ``JSONReadError``: corrupt for a member written twice; what reading the value throws.
    @inline(__always)
    package mutating func member<Value: JSONScalar>(_ slot: inout Value?, _ key: JSONKey) throws(JSONReadError) {
        try member(&slot, key) { (reader) throws(JSONReadError) in try Value(scalar: &reader) }
    }

    /// Reads a member that may be `null` (absent) into its slot.
    /// - Parameters:
    ///   - slot: Nil until the member is read; `.some(nil)` for `null`.
    ///   - key: The member's key.
    /// - Throws: ``JSONReadError``: corrupt for a member written twice; what reading the value throws.
    @inline(__always)
    package mutating func member<Value: JSONScalar>(_ slot: inout Value??, _ key: JSONKey) throws(JSONReadError) {
        try member(&slot, key) { (reader) throws(JSONReadError) in try Value(scalar: &reader) }
    }

    /// Reads a nested record into its slot.
    /// - Parameters:
    ///   - slot: Nil until the member is read.
    ///   - key: The member's key.
    /// - Throws: ``JSONReadError``: corrupt for a member written twice; what the record throws.
    @inline(__always)
    package mutating func record<Value: JSONReadable>(_ slot: inout Value?, _ key: JSONKey) throws(JSONReadError) {
        try member(&slot, key) { (reader) throws(JSONReadError) in try Value(reading: &reader) }
    }

    /// Reads a nested record that may be `null` (absent) into its slot.
    /// - Parameters:
    ///   - slot: Nil until the member is read; `.some(nil)` for `null`.
    ///   - key: The member's key.
    /// - Throws: ``JSONReadError``: corrupt for a member written twice; what the record throws.
    @inline(__always)
    package mutating func record<Value: JSONReadable>(_ slot: inout Value??, _ key: JSONKey) throws(JSONReadError) {
        try member(&slot, key) { (reader) throws(JSONReadError) in try Value(reading: &reader) }
    }

    /// Reads an array member, each element with `element`, into its slot.
    /// - Parameters:
    ///   - slot: Nil until the member is read.
    ///   - key: The member's key.
    ///   - element: Reads one element.
    /// - Throws: ``JSONReadError``: corrupt for a member written twice; what reading the array throws.
    @inlinable @inline(__always)
    package mutating func elements<Element>(
        _ slot: inout [Element]?, _ key: JSONKey, _ element: (inout JSONReader) throws(JSONReadError) -> Element
    ) throws(JSONReadError) {
        try member(&slot, key) { (reader) throws(JSONReadError) in try reader.elements(element) }
    }

    /// Reads a member's text, parsed by its type, into its slot.
    /// - Parameters:
    ///   - slot: Nil until the member is read.
    ///   - key: The member's key.
    /// - Throws: ``JSONReadError``: corrupt for a member written twice or text the type refuses (its
    ///   ``ParseError``'s description); a mismatch for a value that is no string.
    @inline(__always)
    package mutating func parsed<Value: JSONParsedText>(_ slot: inout Value?, _ key: JSONKey) throws(JSONReadError) {
        try member(&slot, key) { (reader) throws(JSONReadError) in try reader.parsed { (text) throws(ParseError) in try Value(text) } }
    }

    /// Reads a member's text that may be `null` (absent), parsed by its type, into its slot.
    /// - Parameters:
    ///   - slot: Nil until the member is read; `.some(nil)` for `null`.
    ///   - key: The member's key.
    /// - Throws: ``JSONReadError``, as ``parsed(_:_:)-(Value?,_)``.
    @inline(__always)
    package mutating func parsed<Value: JSONParsedText>(_ slot: inout Value??, _ key: JSONKey) throws(JSONReadError) {
        try member(&slot, key) { (reader) throws(JSONReadError) in try reader.parsed { (text) throws(ParseError) in try Value(text) } }
    }

    /// Reads an array member of scalars into its slot.
    /// - Parameters:
    ///   - slot: Nil until the member is read.
    ///   - key: The member's key.
    /// - Throws: ``JSONReadError``: corrupt for a member written twice; what reading an element throws.
    @inline(__always)
    package mutating func member<Value: JSONScalar>(_ slot: inout [Value]?, _ key: JSONKey) throws(JSONReadError) {
        try elements(&slot, key) { (reader) throws(JSONReadError) in try Value(scalar: &reader) }
    }

    /// Reads an array member of nested records into its slot.
    /// - Parameters:
    ///   - slot: Nil until the member is read.
    ///   - key: The member's key.
    /// - Throws: ``JSONReadError``: corrupt for a member written twice; what reading an element throws.
    @inline(__always)
    package mutating func record<Value: JSONReadable>(_ slot: inout [Value]?, _ key: JSONKey) throws(JSONReadError) {
        try elements(&slot, key) { (reader) throws(JSONReadError) in try Value(reading: &reader) }
    }
}

// The members every record reads, as concrete members: a generic member constrained to a package
// protocol (``JSONScalar``) is never inlined into another module, so a record on a hot path (the login
// session's) reads its strings and integers through these instead, specialised where it is called.
extension JSONReader {
    /// Reads a member with `read` into its slot.
    /// - Parameters:
    ///   - slot: Nil until the member is read.
    ///   - key: The member's key.
    ///   - read: Reads the value.
    /// - Throws: ``JSONReadError``: corrupt for a member written twice; what `read` throws.
    @inlinable @inline(__always)
    package mutating func member<Value>(_ slot: inout Value?, _ key: JSONKey, _ read: (inout JSONReader) throws(JSONReadError) -> Value) throws(JSONReadError) {
        if slot != nil { throw duplicate(key) }
        slot = try read(&self)
    }

    /// Reads a member that may be `null` (absent) with `read` into its slot.
    /// - Parameters:
    ///   - slot: Nil until the member is read; `.some(nil)` for `null`.
    ///   - key: The member's key.
    ///   - read: Reads the value when it is not `null`.
    /// - Throws: ``JSONReadError``: corrupt for a member written twice; what `read` throws.
    @inlinable @inline(__always)
    package mutating func member<Value>(_ slot: inout Value??, _ key: JSONKey, _ read: (inout JSONReader) throws(JSONReadError) -> Value) throws(JSONReadError) {
        if slot != nil { throw duplicate(key) }
        slot = .some(try null() ? nil : try read(&self))
    }

    /// Reads a string member into its slot.
    /// - Parameters:
    ///   - slot: Nil until the member is read.
    ///   - key: The member's key.
    /// - Throws: ``JSONReadError``: corrupt for a member written twice; a mismatch for a value that is no string.
    @inlinable @inline(__always)
    package mutating func member(_ slot: inout String?, _ key: JSONKey) throws(JSONReadError) {
        try member(&slot, key) { (reader) throws(JSONReadError) in try reader.string() }
    }

    /// Reads a string member that may be `null` (absent) into its slot.
    /// - Parameters:
    ///   - slot: Nil until the member is read; `.some(nil)` for `null`.
    ///   - key: The member's key.
    /// - Throws: ``JSONReadError``, as ``member(_:_:)-(String?,_)``.
    @inlinable @inline(__always)
    package mutating func member(_ slot: inout String??, _ key: JSONKey) throws(JSONReadError) {
        try member(&slot, key) { (reader) throws(JSONReadError) in try reader.string() }
    }

    /// Reads an integer member into its slot.
    /// - Parameters:
    ///   - slot: Nil until the member is read.
    ///   - key: The member's key.
    /// - Throws: ``JSONReadError``: corrupt for a member written twice; a mismatch for a value that is no integer in range.
    @inlinable @inline(__always)
    package mutating func member(_ slot: inout Int?, _ key: JSONKey) throws(JSONReadError) {
        try member(&slot, key) { (reader) throws(JSONReadError) in try reader.int() }
    }

    /// Reads an integer member that may be `null` (absent) into its slot.
    /// - Parameters:
    ///   - slot: Nil until the member is read; `.some(nil)` for `null`.
    ///   - key: The member's key.
    /// - Throws: ``JSONReadError``, as ``member(_:_:)-(Int?,_)``.
    @inlinable @inline(__always)
    package mutating func member(_ slot: inout Int??, _ key: JSONKey) throws(JSONReadError) {
        try member(&slot, key) { (reader) throws(JSONReadError) in try reader.int() }
    }
}
