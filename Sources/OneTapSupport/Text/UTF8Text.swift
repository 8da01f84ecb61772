extension String {
    /// The bytes as a string, or nil when they are not UTF-8: ASCII (the common case for codes, keys
    /// and ids) takes the specialised fast way, anything else is validated in full.
    ///
    /// The standard library's generic `String(validating:as:)` resolves its encoding at run time, which
    /// measured as most of the cost of reading a short code.
    /// - Parameter utf8: The bytes.
    /// - Complexity: O(*n*).
    @inlinable @inline(__always)
    package init?(validatingUTF8Fast utf8: UnsafeBufferPointer<UInt8>) {
        var high: UInt8 = 0
        for byte in utf8 { high |= byte }
        if high < 0x80 {
            self = String(decoding: utf8, as: UTF8.self)
        } else if let text = String(validating: utf8, as: UTF8.self) {
            self = text
        } else {
            return nil
        }
    }
}

extension String {
    /// Runs `body` over the string's UTF-8 bytes without copying them when the string is native (the
    /// usual case), copying only when it is not contiguous.
    @inlinable @inline(__always)
    package func withUTF8Bytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let result = utf8.withContiguousStorageIfAvailable(body) { return result }
        var copy = self
        return copy.withUTF8(body)
    }
}
