import Foundation
@testable import OneTapSupport
import Testing

@Suite struct JSONStringTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let input: [UInt8]
        let literal: String
        var testDescription: String { literal }
    }

    static let cases: [Case] = [
        Case(input: Array("460-00".utf8), literal: #""460-00""#),
        Case(input: [], literal: #""""#),
        Case(input: Array(#"a"b\c"#.utf8), literal: #""a\"b\\c""#),
        Case(input: [0x0A, 0x0D, 0x09], literal: #""\n\r\t""#),
        Case(input: [0x00, 0x01, 0x1F, 0x7F], literal: #""\u0000\u0001\u001f\u007f""#),
        Case(input: Array("中国移动".utf8), literal: "\"中国移动\""),
        Case(input: [0x34, 0x36, 0xFF, 0x30], literal: "\"46\u{FFFD}0\""),
        Case(input: [0xE4, 0xB8], literal: "\"\u{FFFD}\u{FFFD}\""),          // truncated sequence
        Case(input: [0xED, 0xA0, 0x80], literal: "\"\u{FFFD}\u{FFFD}\u{FFFD}\""),  // encoded surrogate
        Case(input: [0xC0, 0xAF], literal: "\"\u{FFFD}\u{FFFD}\""),          // overlong
        // C1 and format characters escaped (as Python's json.dumps writes them), the rest as it is.
        Case(input: Array("a\u{9B}b\u{200D}c\u{202E}\u{E0001} 用户🙂é".utf8), literal: #""a\u009bb\u200dc\u202e\udb40\udc01 "# + "用户🙂é\""),
        // The line and paragraph separators escaped (as `json.dumps` does with `ensure_ascii`): an attacker's read found a
        // line splitter (Python's `splitlines`) saw a forged line break in them.
        Case(input: Array("a\u{2028}b\u{2029}c".utf8), literal: #""a\u2028b\u2029c""#),
    ]

    /// The byte and string forms write the same literal, and a JSON parser reads it back;
    /// each invalid byte becomes one U+FFFD.
    @Test(arguments: cases)
    func escapes(_ test: Case) throws {
        var written: [UInt8] = []
        test.input.withUnsafeBufferPointer { bytes in JSONString.write(bytes) { written.append(contentsOf: $0) } }
        #expect(String(decoding: written, as: UTF8.self) == test.literal)
        let decoded = try JSONSerialization.jsonObject(with: Data(written), options: .fragmentsAllowed) as? String
        #expect(decoded != nil)
        if let text = String(validating: test.input, as: UTF8.self) {
            #expect(decoded == text)   // valid text comes back unchanged
            #expect(JSONString.literal(text) == test.literal)
        }
    }
}
