/// Which mainland carrier an IPv6 address belongs to: `Data/ipv6-prefixes.csv`.
///
/// iOS 16.4+ hides the SIM's MCC/MNC from apps; when a request travelled over cellular alone, the
/// client's IPv6 address comes from its carrier's mobile pool and names the carrier. The longest
/// matching prefix wins. Rows in a `non-cellular` pool (home broadband, legacy blocks) are not evidence
/// of a SIM's carrier.
package struct IPv6PrefixTable: DataTable {
    /// `ipv6-prefixes.csv`, the table's file in `Data/`.
    package static let fileName = "ipv6-prefixes.csv"

    /// What part of a carrier's address space a prefix is.
    package enum Pool: String, Hashable, Sendable, CaseIterable, Codable, DescribedByID {
        /// A carrier's whole allocation: cellular, broadband and data centres mixed.
        case allocation
        /// The carrier's 4G/5G cellular pool.
        case cellular
        /// Home broadband or legacy blocks: an address here is not a SIM's.
        case nonCellular = "non-cellular"
    }

    /// One row of the table.
    package struct Prefix: Hashable, Sendable, CustomStringConvertible {
        /// The network's first 64 bits (host bits zero).
        package let high: UInt64
        /// The network's last 64 bits (host bits zero).
        package let low: UInt64
        /// The prefix length, 1 ... 128.
        package let length: Int
        /// The carrier the block belongs to.
        package let carrier: Carrier
        /// What part of the carrier's space it is.
        package let pool: Pool
        /// A short note.
        package let note: String
        /// Where the fact comes from.
        package let source: String
        /// The row's line in its file.
        package let line: Int
        /// The first ``length`` bits of each half set, computed once: an address is held when its bits under them are the
        /// network's (two masks and two comparisons a row).
        private let maskHigh: UInt64, maskLow: UInt64

        /// A row.
        /// - Parameters:
        ///   - high: The network's first 64 bits, host bits zero.
        ///   - low: The network's last 64 bits, host bits zero.
        ///   - length: The prefix length.
        ///   - carrier: The carrier.
        ///   - pool: The pool.
        ///   - note: A short note.
        ///   - source: Where the fact comes from.
        ///   - line: The row's line.
        init(high: UInt64, low: UInt64, length: Int, carrier: Carrier, pool: Pool, note: String, source: String, line: Int) {
            self.high = high
            self.low = low
            self.length = length
            self.carrier = carrier
            self.pool = pool
            self.note = note
            self.source = source
            self.line = line
            maskHigh = IPBlock.mask64(length)
            maskLow = IPBlock.mask64(length - 64)
        }

        /// The CIDR text, e.g. `"2409:8900::/24"`.
        package var cidr: String { "\(IPAddress.v6(high: high, low: low))/\(length)" }
        /// `2409:8900::/24 → mobile (cellular)`.
        package var description: String { "\(cidr) → \(carrier) (\(pool))" }

        /// Whether the prefix holds an address.
        /// - Parameter address: The address; IPv4 addresses are never held.
        /// - Returns: True when the address's first ``length`` bits are the prefix's.
        package func contains(_ address: IPAddress) -> Bool {
            guard case .v6(let high, let low) = address else { return false }
            return contains(high: high, low: low)
        }

        @inline(__always)
        func contains(high addressHigh: UInt64, low addressLow: UInt64) -> Bool {
            // The row's network has no host bits (checked when read): the address's first `length` bits are compared.
            addressHigh & maskHigh == high && addressLow & maskLow == low
        }
    }

    /// The columns of the file.
    static let columns = ["prefix", "carrier", "pool", "note", "source"]

    /// Every row, in file order.
    package let prefixes: [Prefix]
    /// The rows, longest prefix first, for matching.
    private let byLength: [Prefix]

    /// The table built from `Data/ipv6-prefixes.csv`: the default of every parameter that takes one
    /// (`@usableFromInline` for those default arguments; integrators pass a replacement or nothing).
    package static let builtIn: IPv6PrefixTable = EmbeddedTable.load(IPv6PrefixTable.self)

    /// Reads a table from CSV text.
    /// - Parameters:
    ///   - text: The file's text, in the `Data/ipv6-prefixes.csv` format.
    ///   - file: The name used in errors.
    /// - Throws: ``TableError`` for a prefix that is not IPv6 CIDR with zero host bits, an unknown
    ///   carrier or pool, or a duplicate prefix.
    package init(csv text: String, file: String) throws(TableError) {
        let table = try CSVTable(text: text, file: file, columns: Self.columns)
        var prefixes: [Prefix] = []
        var listed = ListedKeys<String>()
        for row in try table.requiringRows("IPv6 prefixes") {
            let field = row[0]
            let block: IPBlock
            do {
                block = try IPBlock(cidr: field, lengthRequired: true)
            } catch {
                throw row.error(
                    file, column: "prefix", .invalidValue, "\(QuotedInput(field)) is not IPv6 CIDR notation such as 2409:8900::/24: \(error.reason)")
            }
            guard case .v6(let high, let low) = block.address else {
                throw row.error(file, column: "prefix", .invalidValue, "\(QuotedInput(field)) is IPv4; this table holds IPv6 prefixes")
            }
            guard block.length > 0 else {
                throw row.error(file, column: "prefix", .invalidValue, "\(QuotedInput(field)) is every address: a prefix is 1 to 128 bits long")
            }
            guard block.hostBitsZero else {
                throw row.error(file, column: "prefix", .invalidValue, "\(field) has host bits set beyond /\(block.length)")
            }
            let carrier = try Carrier.mainland(row[1], row: row, file: file, column: "carrier")
            let pool: Pool = try row.choice(row[2], "pool", from: Pool.allCases, file: file, column: "pool")
            let key = block.description
            try listed.insert(key, "prefix \(key)", at: row, file: file, column: "prefix")
            prefixes.append(Prefix(high: high, low: low, length: block.length, carrier: carrier, pool: pool, note: row[3], source: row[4], line: row.line))
        }
        self.prefixes = prefixes
        self.byLength = prefixes.sorted { $0.length > $1.length }
    }

    /// The longest prefix that holds an address.
    /// - Parameter address: The address; IPv4 addresses match nothing.
    /// - Returns: The matching row, or nil.
    /// - Complexity: O(*p*) in the number of rows (a few dozen); no allocation.
    package func prefix(for address: IPAddress) -> Prefix? {
        guard case .v6(let high, let low) = address else { return nil }
        for prefix in byLength where prefix.contains(high: high, low: low) {
            return prefix
        }
        return nil
    }

    /// The carrier an address is evidence of: the matching row's carrier unless the row is a
    /// `non-cellular` pool.
    /// - Parameter address: The client's address.
    /// - Returns: The carrier, or nil when the address is not a mainland carrier's cellular address.
    /// - Complexity: O(*p*); no allocation.
    package func cellularCarrier(for address: IPAddress) -> Carrier? {
        guard let match = prefix(for: address), match.pool != .nonCellular else { return nil }
        return match.carrier
    }
}
