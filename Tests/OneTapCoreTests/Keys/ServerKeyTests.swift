import Foundation
import Testing
@testable import OneTapCore

@Suite struct ServerKeyTests {
    @Test func aShortKeyIsRefusedWithoutQuotingIt() {
        let error = #expect(throws: ParseError.self) { try ServerKey(bytes: Array("sixteen-byte-key".utf8)) }
        #expect(error?.kind == .wrongLength)
        #expect(error.map { !"\($0)".contains("sixteen") && "\($0)".contains("16 bytes; a server key has at least 32") } == true)
    }

    struct Base64Case: Sendable, CustomTestStringConvertible {
        let text: String
        let bytes: Int?
        var testDescription: String { text.isEmpty ? "(empty)" : text }
    }

    /// 32 bytes 0x00…0x1f in base64 (standard and URL-safe, with and without padding), and texts that are not base64.
    static let cases: [Base64Case] = [
        Base64Case(text: "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=", bytes: 32),
        Base64Case(text: "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8", bytes: 32),
        Base64Case(text: "-_-_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwd", bytes: 33),
        Base64Case(text: "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8*", bytes: nil),
        Base64Case(text: "AAEC=AwQF", bytes: nil),
        Base64Case(text: "A", bytes: nil),
    ]

    @Test(arguments: cases)
    func base64Keys(_ test: Base64Case) throws {
        if let bytes = test.bytes {
            #expect(Base64.decode(test.text)?.count == bytes)
            _ = try ServerKey(base64: Secret(test.text))
        } else {
            #expect(Base64.decode(test.text) == nil)
            let error = #expect(throws: ParseError.self) { try ServerKey(base64: Secret(test.text)) }
            #expect(error?.input == "<redacted>")
        }
    }

    @Test func theDecodedBytesAreTheKeysBytes() throws {
        #expect(Base64.decode("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=") == Array(0..<32))
        #expect(Base64.decode("+/8=") == [0xFB, 0xFF])
        #expect(Base64.decode("-_8") == [0xFB, 0xFF])
    }

    @Test func aKeyNeverPrints() {
        let key = ServerKey.random()
        var dumped = ""
        dump(key, to: &dumped)
        for form in ["\(key)", String(reflecting: key), dumped] { #expect(form.contains("redacted"), "\(form)") }
    }
}
