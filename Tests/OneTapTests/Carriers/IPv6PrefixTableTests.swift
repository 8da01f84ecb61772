import Testing
@testable import OneTap

@Suite struct IPv6PrefixTableTests {
    let table = IPv6PrefixTable.builtIn

    /// The reference: the longest row that holds the address.
    func reference(_ address: IPAddress) -> IPv6PrefixTable.Prefix? {
        guard case .v6(let high, let low) = address else { return nil }
        return table.prefixes.filter { $0.contains(high: high, low: low) }.max { $0.length < $1.length }
    }

    /// Every row of Data/ipv6-prefixes.csv: its first and last addresses resolve to the longest row
    /// holding them.
    @Test(arguments: IPv6PrefixTable.builtIn.prefixes)
    func everyRowResolves(prefix: IPv6PrefixTable.Prefix) throws {
        let first = IPAddress.v6(high: prefix.high, low: prefix.low)
        let hostHigh: UInt64 = prefix.length >= 64 ? 0 : ~0 >> UInt64(prefix.length)
        let last = IPAddress.v6(high: prefix.high | hostHigh, low: prefix.length >= 64 ? prefix.low : ~0)
        for address in [first, last] {
            let match = try #require(table.prefix(for: address))
            #expect(match == reference(address))
            #expect(match.carrier == prefix.carrier)  // sub-rows never change the carrier
        }
        #expect(try IPv6PrefixTable(csv: "prefix,carrier,pool,note,source\n\(prefix.cidr),\(prefix.carrier),\(prefix.pool),n,s\n", file: "x").prefixes.count == 1)
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
