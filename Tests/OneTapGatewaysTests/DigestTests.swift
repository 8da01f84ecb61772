import Foundation
@testable import OneTapGateways
import Testing

/// MD5, SHA-1 and HMAC against values computed outside the project (python3's `hashlib` and `hmac`).
@Suite struct DigestTests {
    @Test func md5MatchesPythonsHashlib() throws {
        #expect(Hex.encode(try Digest.md5.hash("")) == "d41d8cd98f00b204e9800998ecf8427e")
        #expect(Hex.encode(try Digest.md5.hash("一键登录 onetap")) == "a6457e0db94cd7a31eae7b5e48602e7e")
    }

    @Test func sha1MatchesPythonsHashlib() throws {
        #expect(Hex.encode(try Digest.sha1.hash("abc")) == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(Hex.encode(try Digest.sha1.hash("一键登录 onetap")) == "b6fa09e87815d072abe28520b03afc8b0c9629f9")
    }

    @Test func hmacMatchesPythonsHmac() throws {
        let fox = Array("The quick brown fox jumps over the lazy dog".utf8)
        #expect(Hex.encode(try Digest.sha1.hmac(key: Array("key".utf8), message: fox)) == "de7c9b85b8b78aa6bc8a7a36f70a90701c9db4d9")
        #expect(Hex.encode(try Digest.md5.hmac(key: Array("key".utf8), message: fox)) == "80070713463e7749b90c2dc24911e275")
        // A key longer than the block (64 bytes) is hashed first: python's hmac does the same.
        #expect(Hex.encode(try Digest.sha1.hmac(key: Array(0..<100), message: Array("一键登录".utf8))) == "4fd4b7bc9af38130a4a47b7f52cef9ad457d32ef")
    }

    @Test func hexRoundTripsAndRefusesGarbage() {
        #expect(Hex.encode([0x21, 0x3E, 0xF8], uppercase: true) == "213EF8")
        #expect(Hex.decode("213ef8") == [0x21, 0x3E, 0xF8])
        #expect(Hex.decode("213EF8") == [0x21, 0x3E, 0xF8])
        #expect(Hex.decode("213") == nil)
        #expect(Hex.decode("zz") == nil)
        #expect(Hex.decode("") == [])
    }
}
