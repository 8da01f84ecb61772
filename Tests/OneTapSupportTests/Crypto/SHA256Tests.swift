import Testing
@testable import OneTapSupport

/// The NIST vectors of FIPS 180-4 (the "SHA-256" examples and the CAVP short and long message tests).
@Suite struct SHA256Tests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        ("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
         "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"),
    ])
    func nistExamples(message: String, digest: String) {
        #expect(SHA256.hash(Array(message.utf8)).hex == digest)
    }

    @Test func aMillionAs() {
        #expect(SHA256.hash(repeatElement(UInt8(ascii: "a"), count: 1_000_000)).hex == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// CAVP SHA256ShortMsg: messages given as hex.
    @Test(arguments: [
        ("d3", "28969cdfa74a12c82f3bad960b0b000aca2ac329deea5c2328ebc6f2ba9802c1"),
        ("11af", "5ca7133fa735326081558ac312c620eeca9970d1e70a4b95533d956f072d1f98"),
        ("74cb9381d89f5aa73368", "73d6fad1caaa75b43b21733561fd3958bdc555194a037c2addec19dc2d7a52bd"),
    ])
    func cavpShortMessages(hex: String, digest: String) {
        let bytes = stride(from: 0, to: hex.count, by: 2).map { index -> UInt8 in
            let start = hex.index(hex.startIndex, offsetBy: index)
            return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16)!
        }
        #expect(SHA256.hash(bytes).hex == digest)
    }

    /// Every padding boundary: 55, 56, 63, 64 and 65 bytes, fed whole and in pieces, agree.
    @Test(arguments: [55, 56, 63, 64, 65, 119, 120, 128])
    func piecesAgreeWithTheWhole(length: Int) {
        let message = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        var pieces = SHA256()
        pieces.update(message.prefix(length / 3))
        pieces.update(message.dropFirst(length / 3))
        #expect(pieces.finalize() == SHA256.hash(message))
    }

    @Test func digestsReadAndWriteHex() throws {
        let digest = SHA256.hash(Array("abc".utf8))
        #expect(SHA256Digest(hex: digest.hex) == digest)
        #expect(SHA256Digest(hex: digest.hex.uppercased()) == digest)
        #expect(SHA256Digest(hex: "zz" + digest.hex.dropFirst(2)) == nil)
        #expect(SHA256Digest(hex: String(digest.hex.dropLast())) == nil)
    }
}
