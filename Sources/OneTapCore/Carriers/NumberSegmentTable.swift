/// Which carrier first issued each mainland mobile number prefix: `Data/number-segments.csv`.
///
/// The longest matching prefix wins: 15x is China Mobile, but 153 is Telecom and 155/156 are Unicom. A
/// well-formed number whose segment is not allocated resolves to ``Carrier/unknown``.
///
/// Since number portability (携号转网, 2019) the segment tells only the carrier that first issued the
/// number: a SIM's PLMN wins whenever both are known.
package struct NumberSegmentTable: DataTable {
    /// `number-segments.csv`, the table's file in `Data/`.
    package static let fileName = "number-segments.csv"

    /// The columns of the file.
    static let columns = ["prefix", "carrier", "kind", "note", "source"]

    /// Every row, in file order.
    package let segments: [NumberSegment]

    /// A decimal trie: `children[node * 10 + digit]` is the child node (0 = none; the root is node 0 and
    /// never a child); `match[node]` is 1 + the index of the segment ending at that node, or 0.
    private let children: [UInt16]
    private let match: [UInt16]
    /// The carrier and kind of each segment, for allocation-free lookups.
    private let carriers: [Carrier]
    private let kinds: [NumberSegment.Kind]

    /// The table built from `Data/number-segments.csv`: the default of every parameter that takes one
    /// (`@usableFromInline` for those default arguments; integrators pass a replacement or nothing).
    package static let builtIn: NumberSegmentTable = EmbeddedTable.load(NumberSegmentTable.self)

    /// Reads a table from CSV text.
    /// - Parameters:
    ///   - text: The file's text, in the `Data/number-segments.csv` format.
    ///   - file: The name used in errors.
    /// - Throws: ``TableError`` for a prefix that is not 3 to 7 ASCII digits of a mobile number (13 to 19 first), an unknown
    ///   carrier or kind, or a duplicate prefix.
    package init(csv text: String, file: String) throws(TableError) {
        let table = try CSVTable(text: text, file: file, columns: Self.columns)
        var segments: [NumberSegment] = []
        var children = [UInt16](repeating: 0, count: 10)
        var match: [UInt16] = [0]
        var listed = ListedKeys<String>()
        for row in try table.requiringRows("number segments") {
            let prefix = row[0]
            guard (3...7).contains(prefix.utf8.count), PhoneNumber.isMobilePrefix(Substring(prefix).utf8) else {
                throw row.error(
                    file, column: "prefix", .invalidValue, "\(QuotedInput(prefix)) is not 3 to 7 ASCII digits of a mobile number (13 to 19 first)")
            }
            let carrier = try Carrier.mainland(row[1], row: row, file: file, column: "carrier")
            let kind: NumberSegment.Kind = try row.choice(row[2], "kind", from: NumberSegment.Kind.allCases, file: file, column: "kind")
            try listed.insert(prefix, "prefix \(prefix)", at: row, file: file, column: "prefix")
            guard segments.count < Int(UInt16.max) - 1, children.count < Int(UInt16.max) * 10 - 80 else {
                throw row.error(file, .invalidValue, "the table has more rows than a segment table can hold")
            }
            var node = 0
            for byte in prefix.utf8 {
                let slot = node * 10 + Int(byte - 48)
                if children[slot] == 0 {
                    children[slot] = UInt16(match.count)
                    match.append(0)
                    children.append(contentsOf: repeatElement(0, count: 10))
                }
                node = Int(children[slot])
            }
            match[node] = UInt16(segments.count + 1)
            segments.append(NumberSegment(prefix: prefix, carrier: carrier, kind: kind, note: row[3], source: row[4], line: row.line))
        }
        self.segments = segments
        self.children = children
        self.match = match
        self.carriers = segments.map(\.carrier)
        self.kinds = segments.map(\.kind)
    }


    /// The index of the longest segment that prefixes `number`, or -1.
    @inline(__always)
    private func longestMatch(_ number: PhoneNumber) -> Int {
        // The first 7 digits, most significant first.
        var head = number.value / 10_000
        var digits: (Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0)
        digits.6 = Int(head % 10); head /= 10
        digits.5 = Int(head % 10); head /= 10
        digits.4 = Int(head % 10); head /= 10
        digits.3 = Int(head % 10); head /= 10
        digits.2 = Int(head % 10); head /= 10
        digits.1 = Int(head % 10); head /= 10
        digits.0 = Int(head)
        return withUnsafeBytes(of: &digits) { raw in
            let digits = raw.bindMemory(to: Int.self)
            var node = 0
            var best = -1
            for digit in digits {
                let child = Int(children[node &* 10 &+ digit])
                if child == 0 { break }
                node = child
                let found = Int(match[node])
                if found != 0 { best = found &- 1 }
            }
            return best
        }
    }

    /// The segment a number belongs to.
    /// - Parameter number: A parsed number.
    /// - Returns: The longest matching segment, or nil when the number's segment is not allocated.
    /// - Complexity: O(1): at most 7 steps down the trie; no allocation.
    package func segment(for number: PhoneNumber) -> NumberSegment? {
        let index = longestMatch(number)
        return index >= 0 ? segments[index] : nil
    }

    /// The carrier that first issued a number.
    /// - Parameter number: A parsed number.
    /// - Returns: The carrier, or ``Carrier/unknown`` for an unallocated segment.
    /// - Complexity: O(1); no allocation.
    @inline(__always)
    package func carrier(for number: PhoneNumber) -> Carrier {
        let index = longestMatch(number)
        return index >= 0 ? carriers[index] : .unknown
    }

    /// The carrier and kind of a number's segment in one walk, without copying the segment's text.
    /// - Parameter number: A parsed number.
    /// - Returns: The carrier and kind; `unknown` and nil for an unallocated segment.
    /// - Complexity: O(1); no allocation.
    @inline(__always)
    package func match(_ number: PhoneNumber) -> (carrier: Carrier, kind: NumberSegment.Kind?) {
        let index = longestMatch(number)
        return index >= 0 ? (carriers[index], kinds[index]) : (.unknown, nil)
    }
}
