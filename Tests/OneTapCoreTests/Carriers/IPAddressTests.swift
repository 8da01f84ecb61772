import Foundation
import Testing
@testable import OneTapCore

@Suite struct IPAddressTests {
    @Test(arguments: [
        ("10.0.0.1", "10.0.0.1"),
        ("255.255.255.255", "255.255.255.255"),
        ("0.0.0.0", "0.0.0.0"),
        ("2409:8900::1", "2409:8900::1"),
        ("2409:8900:0:0:0:0:0:1", "2409:8900::1"),
        ("2409:8900:0000:0000:0000:0000:0000:0001", "2409:8900::1"),
        ("::", "::"),
        ("::1", "::1"),
        ("1::", "1::"),
        ("2001:DB8::A", "2001:db8::a"),
        ("2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"),
        ("2001:0:0:1:0:0:0:1", "2001:0:0:1::1"),
        ("2001:db8:1:2:3:4:5:6", "2001:db8:1:2:3:4:5:6"),
        ("2001:db8::1:0", "2001:db8::1:0"),
        ("1:0:1:1:1:1:1:1", "1:0:1:1:1:1:1:1"),
        ("::ffff:10.0.0.1", "::ffff:10.0.0.1"),
        ("::ffff:a00:1", "::ffff:10.0.0.1"),
        ("64:ff9b::1.2.3.4", "64:ff9b::102:304"),
        (" 240e:400::8 ", "240e:400::8"),
    ])
    func parseAndCanonicalForm(text: String, canonical: String) throws {
        let address = try IPAddress(text)
        #expect(address.description == canonical)
        #expect(try IPAddress(canonical) == address)
    }

    @Test func ipv4Views() throws {
        #expect(try IPAddress("10.0.0.1").ipv4 == 0x0A00_0001)
        #expect(try IPAddress("::ffff:10.0.0.1").ipv4 == 0x0A00_0001)
        #expect(try IPAddress("2409::1").ipv4 == nil)
        #expect(try IPAddress("2409::1").isIPv6)
        #expect(try !IPAddress("1.2.3.4").isIPv6)
    }

    @Test(arguments: [
        ("", ParseError.Kind.empty),
        ("1.2.3", .malformed),
        ("1.2.3.4.5", .malformed),
        ("256.1.1.1", .outOfRange),
        ("1.2.3.1000", .outOfRange),
        ("01.2.3.4", .malformed),
        ("1..3.4", .malformed),
        ("1.2.3.4.", .malformed),
        ("1:2:3:4:5:6:7:8:9", .malformed),
        ("1::2::3", .malformed),
        ("12345::", .malformed),
        (":1::", .malformed),
        ("1:", .malformed),
        (":::", .malformed),
        ("1:2:3:4:5:6:7::8", .malformed),
        ("fe80::1%eth0", .invalidCharacter),
        ("[2409::1]", .invalidCharacter),
        ("[2409::1]:443", .invalidCharacter),
        ("2409::g", .invalidCharacter),
        ("１.2.3.4", .nonASCIIDigit),
        ("1.2.3.4\u{0}", .invalidCharacter),
        ("-1.2.3.4", .invalidCharacter),
        (String(repeating: "1", count: 100), .malformed),
        ("::ffff:1.2.3.256", .malformed),
        ("1:2:3:4:5:6:7:1.2.3.4", .malformed),
    ])
    func malformedAddressesThrowTheExactKind(text: String, kind: ParseError.Kind) {
        #expect {
            try IPAddress(text)
        } throws: { error in
            let error = error as! ParseError
            return error.kind == kind && error.subject == .ipAddress
        }
    }

    @Test func theTextFormReadsBack() throws {
        let address = try IPAddress("2409:8900::1")
        #expect(try IPAddress(address.description) == address)
    }
}
