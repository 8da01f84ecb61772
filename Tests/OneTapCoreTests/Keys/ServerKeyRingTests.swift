import Foundation
import Testing
@testable import OneTapCore

@Suite struct ServerKeyRingTests {
    /// 32 bytes 0x00…0x1f and 32 bytes 0x64…0x83, in base64 (computed with Python's base64 module).
    static let first = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="
    static let second = "ZGVmZ2hpamtsbW5vcHFyc3R1dnd4eXp7fH1+f4CBgoM="

    @Test func theFirstEntrySignsAndCommentsAndBlankLinesAreSkipped() throws {
        let ring = try ServerKeyRing(parsing: Secret("# newest first\n\n2026-12:\(Self.second)\r\n  2026-06 : \(Self.first)  \n"))
        #expect(ring.signingID.text == "2026-12")
        #expect(ring.ids.map(\.text) == ["2026-12", "2026-06"])
        let commas = try ServerKeyRing(parsing: Secret("a:\(Self.first),b:\(Self.second)"))
        #expect(commas.ids.map(\.text) == ["a", "b"])
    }

    @Test func itsDescriptionNamesTheIdsNeverAKey() throws {
        let ring = try ServerKeyRing(parsing: Secret("k2:\(Self.second)\nk1:\(Self.first)"))
        for text in ["\(ring)", String(reflecting: ring), "\(Mirror(reflecting: ring).children.map { "\($0)" })"] {
            #expect(!text.contains("ZGVm") && !text.contains("AAEC"))
        }
        #expect("\(ring)" == "ServerKeyRing(signing k2; also k1)")
    }

    struct BadRing: Sendable, CustomTestStringConvertible {
        let text: String
        let kind: ParseError.Kind
        let reason: String
        var testDescription: String { reason }
    }

    static let bad: [BadRing] = [
        BadRing(text: "", kind: .empty, reason: "a key ring has at least one key"),
        BadRing(text: "# only a comment\n", kind: .empty, reason: "a key ring has at least one key"),
        BadRing(text: first, kind: .malformed, reason: "entry 1 has no ':' between its id and its key (write id:base64)"),
        BadRing(text: "\(first):k1", kind: .invalidCharacter, reason: "entry 1's id is not 1 to 16 of A-Z, a-z, 0-9, _ and - (write id:base64)"),
        BadRing(text: "k1:\(first)\nk1:\(second)", kind: .malformed, reason: "the key id k1 is given twice"),
        BadRing(text: "k1:\(first)\nk2:c2hvcnQ=", kind: .wrongLength, reason: "the key k2 (entry 2): 5 bytes; a server key has at least 32"),
        BadRing(text: "k1:not base64!", kind: .malformed, reason: "the key k1 (entry 1): the text is not base64"),
        BadRing(text: "seventeen-chars-x:\(first)", kind: .wrongLength, reason: "entry 1's id is not 1 to 16 of A-Z, a-z, 0-9, _ and - (write id:base64)"),
    ]

    @Test(arguments: bad)
    func aBadRingSaysWhichEntryAndNeverQuotesAKey(_ test: BadRing) {
        let error = #expect(throws: ParseError.self) { try ServerKeyRing(parsing: Secret(test.text)) }
        #expect(error?.subject == .serverKeys)
        #expect(error?.kind == test.kind)
        #expect(error?.reason == test.reason)
        #expect(error?.input == "<redacted>")
        #expect(error.map { !"\($0)".contains("AAEC") && !"\($0)".contains("ZGVm") && !"\($0)".contains("c2hv") } == true)
    }

    @Test func keyIDs() throws {
        #expect(try KeyID("2026-12_a").text == "2026-12_a")
        #expect(throws: ParseError.self) { try KeyID("") }
        #expect(throws: ParseError.self) { try KeyID("a.b") }
        #expect(throws: ParseError.self) { try KeyID(String(repeating: "k", count: 17)) }
    }
}
