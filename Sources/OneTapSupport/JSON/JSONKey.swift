/// An object member's key as ``JSONReader`` found it, matched against the keys a type knows without
/// making a `String` (`switch key { case "id": … }`). Valid only inside the body it is handed to.
///
/// `@usableFromInline` (still `package`, outside the API) so that the package's other modules inline its
/// matching: a member of a plain `package` type is never inlined into another module.
@usableFromInline
package struct JSONKey {
    /// The key's bytes: in the input, or (for a key that held an escape) decoded into the reader's
    /// ``EscapedKeys``.
    @usableFromInline let utf8: UnsafeBufferPointer<UInt8>

    @inlinable
    init(utf8: UnsafeBufferPointer<UInt8>) { self.utf8 = utf8 }

    /// The key as text.
    package var text: String { String(decoding: utf8, as: UTF8.self) }

    /// Whether the key is `pattern`.
    /// - Parameters:
    ///   - pattern: A key the type knows.
    ///   - key: The key read.
    /// - Returns: True when they are the same bytes.
    @inlinable @inline(__always)
    package static func ~= (pattern: StaticString, key: JSONKey) -> Bool {
        same(key.utf8, UnsafeBufferPointer(start: pattern.utf8Start, count: pattern.utf8CodeUnitCount))
    }

    /// Whether two runs of bytes are the same.
    @inlinable @inline(__always)
    package static func same(_ lhs: UnsafeBufferPointer<UInt8>, _ rhs: UnsafeBufferPointer<UInt8>) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for position in 0..<lhs.count where lhs[position] != rhs[position] { return false }
        return true
    }
}

/// The decoded bytes of keys that held an escape (rare: no writer of ours escapes a key), kept while the
/// reader reads so that a ``JSONKey`` can point at them as it points into the input.
@usableFromInline
final class EscapedKeys {
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
