import Testing
@testable import OneTapCore
import OneTapSupport

/// An account id's rule (1 to 100 bytes of UTF-8, no control character: C0, DEL, C1), through the throwing
/// initialiser (its error names the character's position, counted in characters from 1) and through the byte
/// initialiser the access-token verifier reads with, which must agree with it on every case. The expectations
/// are Unicode's: U+0080 to U+009F are the C1 controls, U+00A0 (no-break space) is not one.
@Suite struct AccountIDTests {
    /// Texts that are account ids.
    static let valid = ["42", "user@example.com", "café", "cafe\u{301}", "用户-7", "a\u{A0}b", String(repeating: "x", count: 100), "🙂"]

    /// Texts that are not, with the kind refused and, for a control character, its position.
    static let invalid: [(text: String, kind: ErrorKind<ParseError>, position: Int?)] = [
        ("", .empty, nil),
        (String(repeating: "x", count: 101), .wrongLength, nil),
        (String(repeating: "é", count: 51), .wrongLength, nil),  // 102 bytes in 51 characters
        ("a\u{7}b", .invalidCharacter, 2),
        ("\u{0}", .invalidCharacter, 1),
        ("\u{7F}", .invalidCharacter, 1),
        ("用户\u{85}x", .invalidCharacter, 3),  // NEL, a C1 control after two three-byte characters
        ("é\u{9F}", .invalidCharacter, 2),
        ("line\nbreak", .invalidCharacter, 5),
    ]

    @Test(arguments: valid)
    func anIDIsTakenByBothInitialisers(text: String) throws {
        let id = try AccountID(text)
        #expect(id.rawValue.utf8.elementsEqual(text.utf8))
        var copy = text
        #expect(copy.withUTF8 { AccountID(utf8: $0) } == id)
    }

    @Test(arguments: invalid.indices)
    func aTextThatIsNoIDIsRefusedByBothAndTheErrorNamesThePosition(index: Int) {
        let (text, kind, position) = Self.invalid[index]
        #expect { try AccountID(text) } throws: { error in
            guard let error = error as? ParseError, error.kind == kind else { return false }
            return position.map { error.reason.contains("at position \($0) is a control character") } ?? true
        }
        var copy = text
        #expect(copy.withUTF8 { AccountID(utf8: $0) } == nil)
    }

    /// Two ids are equal when their bytes are, at every length around the comparison's eight-byte steps and
    /// wherever the one differing byte stands; canonically equivalent texts with other bytes are not equal.
    @Test func idsAreEqualExactlyWhenTheirBytesAre() throws {
        for count in 1...40 {
            let bytes = (0..<count).map { UInt8(0x61 + $0 % 26) }
            let id = try AccountID(String(decoding: bytes, as: UTF8.self))
            let same = try AccountID(String(decoding: bytes, as: UTF8.self) + "")
            #expect(id == same && id.hashValue == same.hashValue, "\(count) bytes")
            let longer = try AccountID(String(decoding: bytes + [0x61], as: UTF8.self))
            #expect(id != longer, "\(count) bytes and one more")
            for position in 0..<count {
                var other = bytes
                other[position] = 0x5A
                let differing = try AccountID(String(decoding: other, as: UTF8.self))
                #expect(id != differing, "\(count) bytes, byte \(position) differs")
            }
        }
        let composed: AccountID = "caf\u{E9}", decomposed: AccountID = "cafe\u{301}"
        #expect(composed != decomposed)
    }

    @Test func bytesThatAreNoUTF8AreRefused() {
        for bytes: [UInt8] in [[0xC3], [0xFF], [0x61, 0xC2], [0xED, 0xA0, 0x80]] {
            #expect(bytes.withUnsafeBufferPointer { AccountID(utf8: $0) } == nil, "\(bytes)")
        }
    }
}
