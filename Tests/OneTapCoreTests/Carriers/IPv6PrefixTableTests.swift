import Testing
@testable import OneTapCore

@Suite struct IPv6PrefixTableTests {
    let table = IPv6PrefixTable.builtIn

    /// A row of Data/ipv6-prefixes.csv, read independently: its network as two 64-bit halves, its length.
    struct Row: Sendable, CustomTestStringConvertible {
        let row: DataRow
        let high: UInt64
        let low: UInt64
        let length: Int
        var testDescription: String { row.testDescription }

        func holds(high: UInt64, low: UInt64) -> Bool {
            let maskHigh: UInt64 = length >= 64 ? ~0 : length == 0 ? 0 : ~0 << (64 - UInt64(length))
            let maskLow: UInt64 = length >= 128 ? ~0 : length <= 64 ? 0 : ~0 << (128 - UInt64(length))
            return high & maskHigh == self.high && low & maskLow == self.low
        }
    }

    /// The rows, with the network parsed by the tested address parser (IPAddressTests pin it to literal
    /// values) and the length by hand.
    static let rows: [Row] = DataFile.rows("ipv6-prefixes.csv").compactMap { row in
        let parts = row["prefix"].split(separator: "/")
        // A row that does not parse is left out, and `everyRowOfTheFileIsRead` fails.
        guard parts.count == 2, let length = Int(parts[1]), case .success(.v6(let high, let low)) = Result(catching: { try IPAddress(String(parts[0])) }) else {
            return nil
        }
        return Row(row: row, high: high, low: low, length: length)
    }

    @Test func everyRowOfTheFileIsRead() {
        #expect(Self.rows.count == DataFile.rows("ipv6-prefixes.csv").count)
    }

    /// The reference: the longest row of the file that holds the address.
    func reference(high: UInt64, low: UInt64) -> Row? {
        Self.rows.filter { $0.holds(high: high, low: low) }.max { $0.length < $1.length }
    }

    /// Every row of Data/ipv6-prefixes.csv: its first and last addresses resolve to the longest row of
    /// the file that holds them.
    @Test(arguments: rows)
    func everyRowResolves(row: Row) throws {
        let hostHigh: UInt64 = row.length >= 64 ? 0 : ~0 >> UInt64(row.length)
        let hostLow: UInt64 = row.length <= 64 ? ~0 : row.length >= 128 ? 0 : ~0 >> UInt64(row.length - 64)
        for (high, low) in [(row.high, row.low), (row.high | hostHigh, row.low | hostLow)] {
            let expected = try #require(reference(high: high, low: low))
            let match = try #require(table.prefix(for: .v6(high: high, low: low)))
            #expect(match.length == expected.length && match.high == expected.high && match.low == expected.low)
            #expect(match.carrier.rawValue == expected.row["carrier"] && match.pool.rawValue == expected.row["pool"])
        }
    }

    @Test(arguments: [
        ("2409:8900::1", Carrier?.some(.mobile)),
        ("2408:8400:1::1", .unicom),
        ("240e:400::1", .telecom),
        ("240e:300::1", nil),            // fixed broadband: not a SIM's address
        ("2409:8a00::1", nil),
        ("2001:db8::1", nil),            // documentation prefix: no carrier
        ("10.0.0.1", nil),               // IPv4 is never evidence
    ])
    func cellularCarrier(text: String, carrier: Carrier?) throws {
        #expect(table.cellularCarrier(for: try IPAddress(text)) == carrier)
    }

    @Test(arguments: [
        "2409:8900::1/24",   // host bits
        "2409:8900::/129",
        "2409:8900::/0",
        "2409:8900::",
        "10.0.0.0/8",
        "2409:89zz::/24",
        "2409:8900::/2x",
        "2409:8900::/+24",   // a sign or a leading zero: the other numeric columns take digits only
        "2409:8900::/024",
    ])
    func malformedPrefixesAreRefused(prefix: String) {
        #expect {
            try IPv6PrefixTable(csv: "prefix,carrier,pool,note,source\n\(prefix),mobile,cellular,n,s\n", file: "i.csv")
        } throws: { error in
            let error = error as! TableError
            return error.column == "prefix" && error.line == 2
        }
    }

    @Test func duplicateAndUnknownValuesAreRefused() {
        #expect(throws: TableError.self) {
            try IPv6PrefixTable(csv: "prefix,carrier,pool,note,source\n2409::/16,mobile,cellular,n,s\n2409:0::/16,mobile,cellular,n,s\n", file: "i.csv")
        }
        #expect(throws: TableError.self) {
            try IPv6PrefixTable(csv: "prefix,carrier,pool,note,source\n2409::/16,mobile,wifi,n,s\n", file: "i.csv")
        }
    }
}
