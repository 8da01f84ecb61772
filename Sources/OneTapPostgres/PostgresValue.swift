import OneTap

/// A statement parameter or a result cell. Parameters always travel apart from the statement text, in
/// libpq's binary format with their type named, so no value is ever parsed as SQL.
package enum PostgresValue: Sendable, Hashable {
    /// SQL `NULL`.
    case null
    /// `text` (also `varchar` and `name` in results): UTF-8.
    case text(String)
    /// `bytea`: raw bytes (tokens are kept so, never as text the server might quote).
    case bytes([UInt8])
    /// `bigint` (also `integer` and `smallint` in results).
    case int64(Int64)
    /// `boolean`.
    case bool(Bool)
    /// `text[]`: a one-dimensional array without `NULL` elements.
    case textArray([String])
    /// `bigint[]`: a one-dimensional array without `NULL` elements.
    case int64Array([Int64])

    /// An instant as every column keeps one: whole milliseconds since 1970 (`bigint`, a column named
    /// `…_ms`), rounded to the nearest.
    /// - Parameter date: The instant.
    /// - Returns: The value.
    package static func instant(_ date: Date) -> PostgresValue { .int64(date.millisecondsSince1970) }

    /// The bound a query compares stored instants against (`expires_at_ms < $1`): the first whole
    /// millisecond at or after the instant, so the comparison means what it says for any `Date`.
    /// - Parameter date: The instant.
    /// - Returns: The value.
    package static func bound(_ date: Date) -> PostgresValue { .int64(date.millisecondsSince1970RoundedUp) }

    /// Instants as a `bigint[]` of milliseconds since 1970.
    /// - Parameter dates: The instants.
    /// - Returns: The value.
    package static func instants(_ dates: [Date]) -> PostgresValue { .int64Array(dates.map(\.millisecondsSince1970)) }

    /// The value as an integer, or nil.
    package var int64: Int64? {
        if case .int64(let value) = self { return value }
        return nil
    }

    /// The value as text, or nil.
    package var text: String? {
        if case .text(let value) = self { return value }
        return nil
    }

    /// The value as bytes, or nil.
    package var bytes: [UInt8]? {
        if case .bytes(let value) = self { return value }
        return nil
    }

    /// The value as a Boolean, or nil.
    package var bool: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The value as an instant (a `bigint` of milliseconds since 1970), or nil.
    package var instant: Date? {
        if case .int64(let value) = self { return Date(millisecondsSince1970: value) }
        return nil
    }

    /// The value as instants (a `bigint[]` of milliseconds since 1970), or nil.
    package var instants: [Date]? {
        if case .int64Array(let value) = self { return value.map(Date.init(millisecondsSince1970:)) }
        return nil
    }

    /// The value, or for `bytea` as many zero bytes (what a statement observer sees: tokens travel only as
    /// `bytea`, so none reaches it).
    package var zeroFilled: PostgresValue {
        if case .bytes(let bytes) = self { return .bytes([UInt8](repeating: 0, count: bytes.count)) }
        return self
    }

    /// Whether the value is SQL `NULL`.
    package var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}

/// What a statement returned: its rows (cells decoded from the binary format) and how many rows it
/// touched.
package struct PostgresRows: Sendable {
    /// The column names.
    package let columns: [String]
    /// The rows, each with one value per column.
    package let rows: [[PostgresValue]]
    /// The rows an `INSERT`, `UPDATE` or `DELETE` touched (`PQcmdTuples`), or the rows returned.
    package let affected: Int
    /// The command tag the server answered (`PQcmdStatus`): `INSERT 0 1`, `COMMIT`, or `ROLLBACK` for the
    /// `COMMIT` of a transaction a failed statement aborted.
    package var command: String = ""

    /// The first row, if any.
    package var first: [PostgresValue]? { rows.first }
}

/// PostgreSQL's binary formats for the types OneTap uses
/// (https://www.postgresql.org/docs/current/protocol-overview.html, the `*send` functions).
enum PostgresBinary {
    /// The types OneTap writes or reads, by their OIDs (from `pg_type`).
    enum OID: UInt32 {
        case bool = 16, bytea = 17, name = 19, int8 = 20, int2 = 21, int4 = 23, text = 25, oid = 26
        case textArray = 1009, int8Array = 1016, bpchar = 1042, varchar = 1043, void = 2278
    }

    /// A parameter's type and bytes; nil bytes for `NULL`.
    static func encode(_ value: PostgresValue) -> (type: UInt32, bytes: [UInt8]?) {
        switch value {
        case .null: (0, nil)
        case .text(let text): (OID.text.rawValue, Array(text.utf8))
        case .bytes(let bytes): (OID.bytea.rawValue, bytes)
        case .int64(let number): (OID.int8.rawValue, bigEndian(number))
        case .bool(let flag): (OID.bool.rawValue, [flag ? 1 : 0])
        case .textArray(let texts):
            (OID.textArray.rawValue, array(of: .text, texts.map { Array($0.utf8) }))
        case .int64Array(let numbers):
            (OID.int8Array.rawValue, array(of: .int8, numbers.map(bigEndian)))
        }
    }

    /// The binary form of a one-dimensional array (`array_send`): dimensions, a no-nulls flag, the
    /// element type, the length and lower bound (1), then each element as its length and bytes. An empty
    /// array has no dimension.
    private static func array(of element: OID, _ items: [[UInt8]]) -> [UInt8] {
        var bytes = bigEndian(Int32(items.isEmpty ? 0 : 1)) + bigEndian(Int32(0)) + bigEndian(Int32(bitPattern: element.rawValue))
        if !items.isEmpty { bytes += bigEndian(Int32(items.count)) + bigEndian(Int32(1)) }
        for item in items { bytes += bigEndian(Int32(item.count)) + item }
        return bytes
    }

    /// The elements of a one-dimensional array of `element` in binary form, or nil for another shape,
    /// element type or a `NULL` element.
    private static func elements(_ bytes: UnsafeRawBufferPointer, of element: OID) -> [UnsafeRawBufferPointer]? {
        var offset = 0
        func int32() -> Int32? {
            guard offset + 4 <= bytes.count else { return nil }
            defer { offset += 4 }
            return bytes[offset..<offset + 4].reduce(Int32(0)) { $0 << 8 | Int32($1) }
        }
        guard let dimensions = int32(), let _ = int32(), let type = int32(), UInt32(bitPattern: type) == element.rawValue else { return nil }
        if dimensions == 0 { return offset == bytes.count ? [] : nil }
        guard dimensions == 1, let count = int32(), count >= 0, let _ = int32() else { return nil }
        // Each element takes 4 bytes at least (its length): a count the bytes cannot hold is refused before
        // anything is reserved for it (a server's 2³¹ − 1 would reserve 32 GiB).
        guard Int(count) <= (bytes.count - offset) / 4 else { return nil }
        var items: [UnsafeRawBufferPointer] = []
        items.reserveCapacity(Int(count))
        for _ in 0..<count {
            guard let length = int32(), length >= 0, offset + Int(length) <= bytes.count else { return nil }
            items.append(UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + Int(length)]))
            offset += Int(length)
        }
        return offset == bytes.count ? items : nil
    }

    /// A result cell's value, or nil when the type is not one OneTap reads.
    static func decode(type: UInt32, _ bytes: UnsafeRawBufferPointer) -> PostgresValue? {
        switch OID(rawValue: type) {
        case .text?, .varchar?, .name?, .bpchar?:
            return String(validating: bytes, as: UTF8.self).map(PostgresValue.text)
        case .bytea?:
            return .bytes(Array(bytes))
        case .int8? where bytes.count == 8:
            return .int64(bytes.reduce(Int64(0)) { $0 << 8 | Int64($1) })
        case .int4? where bytes.count == 4, .oid? where bytes.count == 4:
            let number = bytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            return .int64(type == OID.oid.rawValue ? Int64(number) : Int64(Int32(bitPattern: number)))
        case .int2? where bytes.count == 2:
            return .int64(Int64(Int16(bitPattern: UInt16(bytes[0]) << 8 | UInt16(bytes[1]))))
        case .bool? where bytes.count == 1:
            return .bool(bytes[0] != 0)
        case .void?:
            return .null
        case .textArray?:
            guard let items = elements(bytes, of: .text) else { return nil }
            var texts: [String] = []
            for item in items {
                guard let text = String(validating: item, as: UTF8.self) else { return nil }
                texts.append(text)
            }
            return .textArray(texts)
        case .int8Array?:
            guard let items = elements(bytes, of: .int8) else { return nil }
            var numbers: [Int64] = []
            numbers.reserveCapacity(items.count)
            for item in items {
                guard item.count == 8 else { return nil }
                numbers.append(item.reduce(Int64(0)) { $0 << 8 | Int64($1) })
            }
            return .int64Array(numbers)
        default:
            return nil
        }
    }

    private static func bigEndian(_ number: Int64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: number >> (56 - 8 * $0)) }
    }

    private static func bigEndian(_ number: Int32) -> [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: number >> (24 - 8 * $0)) }
    }

}
