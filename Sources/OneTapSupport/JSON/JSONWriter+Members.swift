// Writing a record's members: a key and its value in one call, and an optional member left out when it
// is nil (as every record and event line leaves it out), so that a record states only its members:
//
//     writer.member("id", id)
//     writer.member("session", session?.text)     // absent when nil
//     try writer.instant("expiresAtMs", expiresAt)

extension JSONWriter {
    /// Writes a string member.
    /// - Parameters:
    ///   - name: The key.
    ///   - value: The text.
    @inlinable @inline(__always)
    package mutating func member(_ name: StaticString, _ value: String) {
        key(name)
        string(value)
    }

    /// Writes a string member, or nothing when `value` is nil.
    /// - Parameters:
    ///   - name: The key.
    ///   - value: The text, or nil.
    @inlinable @inline(__always)
    package mutating func member(_ name: StaticString, _ value: String?) {
        guard let value else { return }
        member(name, value)
    }

    /// Writes an integer member.
    /// - Parameters:
    ///   - name: The key.
    ///   - value: The integer.
    @inlinable @inline(__always)
    package mutating func member(_ name: StaticString, _ value: Int) {
        key(name)
        int(value)
    }

    /// Writes an integer member.
    /// - Parameters:
    ///   - name: The key.
    ///   - value: The integer.
    @inlinable @inline(__always)
    package mutating func member(_ name: StaticString, _ value: Int64) {
        key(name)
        int(value)
    }

    /// Writes an unsigned integer member.
    /// - Parameters:
    ///   - name: The key.
    ///   - value: The integer.
    @inlinable @inline(__always)
    package mutating func member(_ name: StaticString, _ value: UInt64) {
        key(name)
        int(value)
    }

    /// Writes a `true` or `false` member.
    /// - Parameters:
    ///   - name: The key.
    ///   - value: The flag.
    @inlinable @inline(__always)
    package mutating func member(_ name: StaticString, _ value: Bool) {
        key(name)
        bool(value)
    }

    /// Writes a `true` or `false` member, or nothing when `value` is nil.
    /// - Parameters:
    ///   - name: The key.
    ///   - value: The flag, or nil.
    @inlinable @inline(__always)
    package mutating func member(_ name: StaticString, _ value: Bool?) {
        guard let value else { return }
        member(name, value)
    }

    /// Writes a member whose value is a record (or any value that writes itself).
    /// - Parameters:
    ///   - name: The key.
    ///   - value: The value.
    /// - Throws: What the value's ``JSONWritable/write(to:)`` throws.
    @inline(__always)
    package mutating func member(_ name: StaticString, _ value: some JSONWritable) throws(JSONWriteError) {
        key(name)
        try value.write(to: &self)
    }

    /// Writes a member whose value is a record, or nothing when `value` is nil.
    /// - Parameters:
    ///   - name: The key.
    ///   - value: The value, or nil.
    /// - Throws: What the value's ``JSONWritable/write(to:)`` throws.
    @inline(__always)
    package mutating func member(_ name: StaticString, _ value: (some JSONWritable)?) throws(JSONWriteError) {
        guard let value else { return }
        try member(name, value)
    }

    /// Writes an array member whose elements write themselves (records).
    /// - Parameters:
    ///   - name: The key.
    ///   - values: The elements, in order.
    /// - Throws: What an element's ``JSONWritable/write(to:)`` throws.
    @inline(__always)
    package mutating func member<Element: JSONWritable>(_ name: StaticString, elements values: some Sequence<Element>) throws(JSONWriteError) {
        key(name)
        try array { (writer) throws(JSONWriteError) in
            for value in values { try value.write(to: &writer) }
        }
    }

    /// Writes an array member of objects, each element's members written by `body`.
    /// - Parameters:
    ///   - name: The key.
    ///   - values: The elements, in order.
    ///   - body: Writes one element's members, inside its object.
    @inlinable @inline(__always)
    package mutating func member<Element>(_ name: StaticString, objects values: some Sequence<Element>, _ body: (inout JSONWriter, Element) -> Void) {
        key(name)
        array { writer in
            for value in values { writer.object { writer in body(&writer, value) } }
        }
    }

    /// Writes an array member of strings.
    /// - Parameters:
    ///   - name: The key.
    ///   - values: The strings, in order.
    @inlinable @inline(__always)
    package mutating func member(_ name: StaticString, strings values: some Sequence<String>) {
        key(name)
        array { writer in
            for value in values { writer.string(value) }
        }
    }

    /// Writes an instant member as OneTap stores every instant: whole milliseconds since 1970.
    /// - Parameters:
    ///   - name: The key (`…Ms`).
    ///   - date: The instant.
    /// - Throws: ``JSONWriteError`` for an instant with no millisecond count, as ``instant(_:)``.
    @inlinable @inline(__always)
    package mutating func instant(_ name: StaticString, _ date: Date) throws(JSONWriteError) {
        key(name)
        try instant(date)
    }

    /// Writes an instant member, or nothing when `date` is nil.
    /// - Parameters:
    ///   - name: The key (`…Ms`).
    ///   - date: The instant, or nil.
    /// - Throws: ``JSONWriteError`` for an instant with no millisecond count, as ``instant(_:)``.
    @inlinable @inline(__always)
    package mutating func instant(_ name: StaticString, _ date: Date?) throws(JSONWriteError) {
        guard let date else { return }
        try instant(name, date)
    }
}
