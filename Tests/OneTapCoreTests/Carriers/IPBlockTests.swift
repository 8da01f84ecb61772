import Testing
@testable import OneTapCore
import OneTapSupport

/// CIDR blocks: what the notation reads as, what it refuses, and which addresses a block holds (the expected bits
/// written out by hand).
@Suite struct IPBlockTests {
    @Test func readsAnAddressAndItsPrefixLength() throws {
        let v4 = try IPBlock(cidr: "10.0.0.0/8", lengthRequired: true)
        #expect(v4.address == .v4(0x0A00_0000) && v4.length == 8)
        let v6 = try IPBlock(cidr: "2409:8900::/24", lengthRequired: true)
        #expect(v6.address == .v6(high: 0x2409_8900_0000_0000, low: 0) && v6.length == 24)
        #expect(try IPBlock(cidr: "0.0.0.0/0", lengthRequired: true).length == 0)
        #expect(try IPBlock(cidr: "::/128", lengthRequired: true).length == 128)
        // Without a length, where that is allowed: the address alone.
        #expect(try IPBlock(cidr: "192.0.2.10", lengthRequired: false).length == 32)
        #expect(try IPBlock(cidr: "2001:db8::7", lengthRequired: false).length == 128)
        #expect(try IPBlock(cidr: "2409:8900::/24", lengthRequired: true).description == "2409:8900::/24")
    }

    @Test(arguments: [
        ("10.0.0.0/33", true), ("2001:db8::/129", true), ("10.0.0.0/", true), ("10.0.0.0/x", true), ("10.0.0.0/-1", true),
        ("10.0.0.0/+8", true), ("10.0.0.0/08", true), ("10.0.0.0/8/8", true), ("10.0.0.0/0008", true), ("10.0.0.0", true),
        ("proxy.example/8", false), ("", false), ("/8", false), ("10.0.0.0/ 8", false), ("10.0.0.0/٨", false),
    ])
    func refusesWhatIsNotTheNotation(text: String, lengthRequired: Bool) {
        #expect {
            _ = try IPBlock(cidr: text, lengthRequired: lengthRequired)
        } throws: { error in
            guard let error = error as? ParseError else { return false }
            return error.subject == .ipAddress && error.input == text
        }
    }

    @Test func holdsTheAddressesThatShareItsLeadingBits() throws {
        let v4 = try IPBlock(cidr: "10.0.0.0/8", lengthRequired: true)
        #expect(try v4.contains(IPAddress("10.255.255.255")) && v4.contains(IPAddress("10.0.0.0")))
        #expect(try !v4.contains(IPAddress("11.0.0.0")) && !v4.contains(IPAddress("9.255.255.255")))
        let site = try IPBlock(cidr: "2001:db8:1::/48", lengthRequired: true)
        #expect(try site.contains(IPAddress("2001:db8:1:ffff::1")) && !site.contains(IPAddress("2001:db8:2::")))
        #expect(!site.contains(try IPAddress("10.0.0.1")))
        // Past the first 64 bits: 2001:db8::8000:0:0:0/65 holds the upper half of the /64's interface ids.
        let half = try IPBlock(cidr: "2001:db8::8000:0:0:0/65", lengthRequired: true)
        #expect(half.contains(.v6(high: 0x2001_0db8_0000_0000, low: 0x8000_0000_0000_0001)))
        #expect(!half.contains(.v6(high: 0x2001_0db8_0000_0000, low: 0x7FFF_FFFF_FFFF_FFFF)))
        #expect(!half.contains(.v6(high: 0x2001_0db8_0000_0001, low: 0x8000_0000_0000_0000)))
        // The whole family, and one address.
        let every = try IPBlock(cidr: "::/0", lengthRequired: true)
        #expect(every.contains(.v6(high: .max, low: .max)) && !every.contains(.v4(0)))
        let one = try IPBlock(cidr: "192.0.2.10", lengthRequired: false)
        #expect(one.contains(.v4(0xC000_020A)) && !one.contains(.v4(0xC000_020B)))
    }

    /// The lengths where a mask changes word or ends: /1, /31, /32, /63, /64, /65, /127, /128 (bits written out by hand).
    @Test func holdsTheRightAddressesAtTheWordEdges() throws {
        let one = try IPBlock(cidr: "128.0.0.0/1", lengthRequired: true)
        #expect(one.contains(.v4(0xFFFF_FFFF)) && !one.contains(.v4(0x7FFF_FFFF)))
        let pair = try IPBlock(cidr: "192.0.2.10/31", lengthRequired: true)
        #expect(pair.contains(.v4(0xC000_020B)) && !pair.contains(.v4(0xC000_020C)))
        let host = try IPBlock(cidr: "192.0.2.10/32", lengthRequired: true)
        #expect(host.contains(.v4(0xC000_020A)) && !host.contains(.v4(0xC000_020B)))
        let high = 0x2001_0db8_0000_0000 as UInt64
        let v63 = try IPBlock(cidr: "2001:db8::/63", lengthRequired: true)
        #expect(v63.contains(.v6(high: high | 1, low: .max)) && !v63.contains(.v6(high: high | 2, low: 0)))
        let v64 = try IPBlock(cidr: "2001:db8::/64", lengthRequired: true)
        #expect(v64.contains(.v6(high: high, low: .max)) && !v64.contains(.v6(high: high | 1, low: 0)))
        let v65 = try IPBlock(cidr: "2001:db8::8000:0:0:0/65", lengthRequired: true)
        #expect(v65.contains(.v6(high: high, low: .max)) && !v65.contains(.v6(high: high, low: 0x7FFF_FFFF_FFFF_FFFF)))
        let v127 = try IPBlock(cidr: "2001:db8::2/127", lengthRequired: true)
        #expect(v127.contains(.v6(high: high, low: 3)) && !v127.contains(.v6(high: high, low: 4)) && !v127.contains(.v6(high: high, low: 1)))
        let v128 = try IPBlock(cidr: "2001:db8::2/128", lengthRequired: true)
        #expect(v128.contains(.v6(high: high, low: 2)) && !v128.contains(.v6(high: high, low: 3)))
        #expect(try !IPBlock(cidr: "2001:db8::3/127", lengthRequired: true).hostBitsZero)
        #expect(try IPBlock(cidr: "2001:db8::3/128", lengthRequired: true).hostBitsZero)
        #expect(try !IPBlock(cidr: "192.0.2.11/31", lengthRequired: true).hostBitsZero)
        #expect(IPBlock.mask64(0) == 0 && IPBlock.mask64(1) == 0x8000_0000_0000_0000 && IPBlock.mask64(63) == 0xFFFF_FFFF_FFFF_FFFE)
        #expect(IPBlock.mask64(64) == .max && IPBlock.mask64(-63) == 0 && IPBlock.mask64(200) == .max)
    }

    /// A block from its parts takes a length out of range as the nearest one; its network clears the host bits.
    @Test func clampsItsLengthAndWritesItsNetwork() throws {
        #expect(IPBlock(.v4(0x0A00_0007), length: 40).length == 32 && IPBlock(.v4(0x0A00_0007), length: -1).length == 0)
        #expect(IPBlock(.v6(high: 1, low: 1), length: 129).length == 128)
        #expect(try IPBlock(cidr: "10.0.0.7/8", lengthRequired: true).network.description == "10.0.0.0/8")
        #expect(try IPBlock(cidr: "2001:db8::8000:0:0:1/65", lengthRequired: true).network.description == "2001:db8:0:0:8000::/65")
        #expect(try IPBlock(cidr: "2409:8900:0::/24", lengthRequired: true).description == "2409:8900::/24")
    }

    @Test func tellsANetworkFromAnAddressInIt() throws {
        #expect(try IPBlock(cidr: "10.0.0.0/8", lengthRequired: true).hostBitsZero)
        #expect(try !IPBlock(cidr: "10.0.0.7/8", lengthRequired: true).hostBitsZero)
        #expect(try IPBlock(cidr: "2409:8900::/24", lengthRequired: true).hostBitsZero)
        #expect(try !IPBlock(cidr: "2409:8900::1/24", lengthRequired: true).hostBitsZero)
        #expect(try !IPBlock(cidr: "2409:89ff::/24", lengthRequired: true).hostBitsZero)
        #expect(try IPBlock(cidr: "2001:db8::8000:0:0:0/65", lengthRequired: true).hostBitsZero)
        #expect(try !IPBlock(cidr: "2001:db8::4000:0:0:0/65", lengthRequired: true).hostBitsZero)
        #expect(try IPBlock(cidr: "0.0.0.0/0", lengthRequired: true).hostBitsZero)
        #expect(try !IPBlock(cidr: "0.0.0.1/0", lengthRequired: true).hostBitsZero)
    }
}
