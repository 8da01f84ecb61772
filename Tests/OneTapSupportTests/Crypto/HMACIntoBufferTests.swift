import Testing
@testable import OneTapSupport

/// The HMAC and SHA-256 written into a caller's buffer give the same bytes as the allocating forms:
/// RFC 4231 test case 2 and FIPS 180-4's "abc".
@Suite struct HMACIntoBufferTests {
    static func hex(_ buffer: UnsafeMutableBufferPointer<UInt8>) -> String {
        buffer.prefix(32).map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }

    @Test func rfc4231Case2() {
        let key = HMACSHA256.Key(Array("Jefe".utf8))
        let message = Array("what do ya want for nothing?".utf8)
        let code = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 40)
        defer { code.deallocate() }
        code.initialize(repeating: 0xEE)
        message.withUnsafeBufferPointer { key.authenticationCode(for: $0, into: code) }
        #expect(Self.hex(code) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        #expect(code[32...].allSatisfy { $0 == 0xEE })  // nothing past the 32 bytes is written
    }

    @Test func sha256Abc() {
        var hasher = SHA256()
        hasher.update(Array("abc".utf8))
        let digest = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 32)
        defer { digest.deallocate() }
        hasher.finalize(into: digest)
        #expect(Self.hex(digest) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }
}
