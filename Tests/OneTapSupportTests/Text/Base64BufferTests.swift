import Testing
@testable import OneTapSupport

/// Base64 decoded into a caller's buffer: the same answers as `decode(_:)` (RFC 4648 §10's vectors, in
/// both alphabets), and nil when the bytes do not fit.
@Suite struct Base64BufferTests {
    static func decode(_ text: String, capacity: Int) -> [UInt8]? {
        let output = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: capacity)
        defer { output.deallocate() }
        var text = text
        guard let count = text.withUTF8({ Base64.decode($0, into: output) }) else { return nil }
        return Array(output[0..<count])
    }

    @Test(arguments: [
        ("", ""), ("Zg", "f"), ("Zg==", "f"), ("Zm8", "fo"), ("Zm8=", "fo"), ("Zm9v", "foo"), ("Zm9vYg", "foob"), ("Zm9vYmE=", "fooba"),
        ("Zm9vYmFy", "foobar"),
    ])
    func rfc4648(_ text: String, _ plain: String) {
        #expect(Self.decode(text, capacity: 16) == Array(plain.utf8))
        #expect(Base64.decode(text) == Array(plain.utf8))
    }

    @Test func bothAlphabetsAndTheRefusals() {
        #expect(Self.decode("-_-_", capacity: 8) == [0xfb, 0xff, 0xbf])
        #expect(Self.decode("+/+/", capacity: 8) == [0xfb, 0xff, 0xbf])
        // An attacker's read of the parsers: padding that does not complete the last group (`QQ=`, `QUJD=`, `=` alone)
        // and both alphabets' own characters in one text (`ab+_`) were taken.
        for bad in ["Zg=a", "Zh", "Z", "Zg===", "Zm 9v", "Zm9v\u{e9}", "Zg=", "Zm9v=", "Zm9v==", "=", "==", "Zm8==", "ab+_", "-/-/"] {
            #expect(Self.decode(bad, capacity: 8) == nil, "\(bad)")
            #expect(Base64.decode(bad) == nil, "\(bad)")
        }
    }

    @Test func tooLongForTheBufferIsNil() {
        #expect(Self.decode("Zm9vYmFy", capacity: 6) == [UInt8]("foobar".utf8))
        #expect(Self.decode("Zm9vYmFy", capacity: 5) == nil)
    }
}
