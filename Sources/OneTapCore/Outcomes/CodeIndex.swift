/// An allocation-free index from (flow, code text) to a row: the lookup behind ``OutcomeTable`` and
/// ``ExchangeCodeTable``.
///
/// Open addressing over every flow at once. A code's first 8 bytes are packed into an integer and kept
/// with its length and flow, so a lookup of a typical code (at most 8 bytes: `"103000"`, `"-8994014"`)
/// compares two integers; a longer code also compares its remaining bytes. Text is compared exactly:
/// `"000"` and `"0"` are different codes.
package struct CodeIndex: Sendable {
    private let packed: [UInt64]
    /// Per slot: length << 8 | flow index; 0 = empty (a code is never empty).
    private let meta: [UInt16]
    /// Per slot: the row index.
    private let rows: [UInt16]
    /// Per slot: the bytes after the first 8, for codes longer than 8 bytes.
    private let tails: [[UInt8]]
    private let mask: Int

    /// Builds the index.
    /// - Parameter keys: One (flow, code) per row, in row order; at most 65,535 rows, no duplicates.
    package init(_ keys: [(flow: LoginFlow, code: ResultCode)]) {
        var capacity = 16
        while capacity < keys.count * 2 { capacity <<= 1 }
        var packed = [UInt64](repeating: 0, count: capacity)
        var meta = [UInt16](repeating: 0, count: capacity)
        var rows = [UInt16](repeating: 0, count: capacity)
        var tails = [[UInt8]](repeating: [], count: capacity)
        for (row, key) in keys.enumerated() {
            var text = key.code.text
            text.withUTF8 { bytes in
                let (word, length) = Self.pack(bytes)
                let keyMeta = UInt16(length) << 8 | UInt16(key.flow.index)
                var slot = Self.hash(word, keyMeta) & (capacity - 1)
                while meta[slot] != 0 { slot = (slot + 1) & (capacity - 1) }
                packed[slot] = word
                meta[slot] = keyMeta
                rows[slot] = UInt16(row)
                if bytes.count > 8 { tails[slot] = Array(bytes[8...]) }
            }
        }
        self.packed = packed
        self.meta = meta
        self.rows = rows
        self.tails = tails
        mask = capacity - 1
    }

    @inline(__always)
    private static func pack(_ bytes: UnsafeBufferPointer<UInt8>) -> (UInt64, Int) {
        var word: UInt64 = 0
        let count = min(bytes.count, 8)
        for index in 0..<count { word |= UInt64(bytes[index]) << (8 &* UInt64(index)) }
        return (word, bytes.count)
    }

    @inline(__always)
    private static func hash(_ word: UInt64, _ meta: UInt16) -> Int {
        let mixed = (word ^ (UInt64(meta) &* 0x9E37_79B9)) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: mixed >> 40)
    }

    /// The row of (flow, code), or nil when the index does not hold it.
    /// - Parameters:
    ///   - flow: The flow.
    ///   - bytes: The code's bytes, already trimmed.
    /// - Complexity: O(1) expected; no allocation.
    @inline(__always)
    package func row(_ flow: LoginFlow, _ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard bytes.count <= ResultCode.maximumBytes else { return nil }
        let (word, length) = Self.pack(bytes)
        let keyMeta = UInt16(length) << 8 | UInt16(flow.index)
        var slot = Self.hash(word, keyMeta) & mask
        while true {
            let found = meta[slot]
            if found == 0 { return nil }
            if found == keyMeta, packed[slot] == word, length <= 8 || tails[slot].elementsEqual(bytes[8...]) { return Int(rows[slot]) }
            slot = (slot &+ 1) & mask
        }
    }

    /// The row of (flow, code text as reported), trimming the text first.
    /// - Complexity: O(*n*) in the text's length; no allocation.
    @inline(__always)
    package func row(_ flow: LoginFlow, text: String) -> Int? {
        text.withUTF8Bytes { bytes in
            let range = ResultCode.spaceTrimmed(bytes)
            guard !range.isEmpty else { return nil }
            return row(flow, UnsafeBufferPointer(rebasing: bytes[range]))
        }
    }

    /// The row of (flow, code): the code's text is trimmed and valid already.
    /// - Complexity: O(1) expected; no allocation.
    @inline(__always)
    package func row(_ flow: LoginFlow, code: ResultCode) -> Int? {
        code.text.withUTF8Bytes { row(flow, $0) }
    }
}
