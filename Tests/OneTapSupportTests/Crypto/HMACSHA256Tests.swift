import Testing
@testable import OneTapSupport

/// RFC 4231's HMAC-SHA-256 test cases 1–7.
@Suite struct HMACTests {
    static func bytes(_ hex: String) -> [UInt8] {
        stride(from: 0, to: hex.count, by: 2).map { index -> UInt8 in
            let start = hex.index(hex.startIndex, offsetBy: index)
            return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16)!
        }
    }

    static let longKey = [UInt8](repeating: 0xaa, count: 131)

    @Test(arguments: [
        ([UInt8](repeating: 0x0b, count: 20), Array("Hi There".utf8), "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        (Array("Jefe".utf8), Array("what do ya want for nothing?".utf8), "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        ([UInt8](repeating: 0xaa, count: 20), [UInt8](repeating: 0xdd, count: 50), "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
        (bytes("0102030405060708090a0b0c0d0e0f10111213141516171819"), [UInt8](repeating: 0xcd, count: 50),
         "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
        (longKey, Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
         "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
        (longKey, Array("This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm.".utf8),
         "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
    ])
    func rfc4231(key: [UInt8], message: [UInt8], code: String) {
        #expect(HMACSHA256.authenticationCode(for: message, key: key).hex == code)
    }

    /// Test case 5 truncates the output to 128 bits.
    @Test func truncatedOutput() {
        let code = HMACSHA256.authenticationCode(for: Array("Test With Truncation".utf8), key: [UInt8](repeating: 0x0c, count: 20))
        #expect(code.hex.prefix(32) == "a3b6167473100ee06e0c796c2955552b")
    }

    @Test func constantTimeComparison() {
        let a = HMACSHA256.authenticationCode(for: [1, 2, 3], key: [9])
        let b = HMACSHA256.authenticationCode(for: [1, 2, 4], key: [9])
        #expect(HMACSHA256.constantTimeEquals(a, a))
        #expect(!HMACSHA256.constantTimeEquals(a, b))
    }
}

/// A prepared key shows nothing of its keyed midstates (a standards audit: `dump` printed both, as good as the key for
/// forging codes).
@Suite struct HMACKeyRedactionTests {
    @Test func dumpAndMirrorShowNoMidstate() {
        let key = HMACSHA256.Key(Array("a server key of thirty-two bytes".utf8))
        var dumped = ""
        dump(key, to: &dumped)
        #expect(dumped == "- HMACSHA256.Key(<redacted>)\n", "\(dumped)")
        #expect(Mirror(reflecting: key).children.isEmpty)
        #expect(String(reflecting: key) == "HMACSHA256.Key(<redacted>)")
    }
}
