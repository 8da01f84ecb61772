import Foundation
import Testing
@testable import OneTapCore

/// Session ids: 128 random bits as 22 characters of URL-safe base64 without padding (RFC 4648 §5).
@Suite struct LoginSessionIDTests {
    static let urlSafe = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")

    @Test func aRandomIDIs22URLSafeCharacters() throws {
        for _ in 0..<1000 {
            let id = LoginSessionID.random()
            #expect(id.text.count == 22 && id.text.utf8.count == 22)
            #expect(id.text.allSatisfy(Self.urlSafe.contains), "\(id)")
            #expect(try LoginSessionID(id.text) == id)
            #expect(id.description == id.text)
        }
    }

    @Test func tenThousandRandomIDsAreDistinct() {
        let ids = (0..<10_000).map { _ in LoginSessionID.random().text }
        #expect(Set(ids).count == 10_000)
    }

    /// Seed 42's two SplitMix64 words, little-endian, in URL-safe base64 (worked out apart from the code).
    @Test func aSeededGeneratorGivesAFixedID() {
        var generator = SplitMix64(seed: 42)
        #expect(LoginSessionID.random(using: &generator).text == "lW7rLyYy170D8WayM-PvKA")
        var zero = SplitMix64(seed: 0)
        #expect(LoginSessionID.random(using: &zero).text == "r80dezmoIOL0Zbmhap54bg")
    }

    /// Any 128 bits encode as Foundation's base64 of the same bytes, made URL-safe and unpadded.
    @Test func idsAreTheBase64OfTheirBits() {
        var seeds = SplitMix64(seed: 7)
        for _ in 0..<500 {
            let seed = seeds.next()
            var words = SplitMix64(seed: seed)
            let bytes = (0..<2).flatMap { _ in withUnsafeBytes(of: words.next().littleEndian, Array.init) }
            let expected = Data(bytes).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            var generator = SplitMix64(seed: seed)
            #expect(LoginSessionID.random(using: &generator).text == expected)
        }
    }

    /// All-zero and all-one bits: the alphabet's two ends.
    @Test(arguments: [(UInt64(0), "AAAAAAAAAAAAAAAAAAAAAA"), (UInt64.max, "_____________________w")])
    func extremeBits(word: UInt64, text: String) {
        struct Constant: RandomNumberGenerator {
            let word: UInt64
            mutating func next() -> UInt64 { word }
        }
        var generator = Constant(word: word)
        #expect(LoginSessionID.random(using: &generator).text == text)
    }

    @Test(arguments: [
        ("", ParseError.Kind.empty),
        ("A", .wrongLength),
        ("AAAAAAAAAAAAAAAAAAAAA", .wrongLength),     // 21
        ("AAAAAAAAAAAAAAAAAAAAAAA", .wrongLength),   // 23
        ("AAAAAAAAAAAAAAAAAAAAAAAA", .wrongLength),  // 24, as padded base64 would be
        ("AAAAAAAAAAAAAAAAAAAA+A", .invalidCharacter),
        ("AAAAAAAAAAAAAAAAAAAA/A", .invalidCharacter),
        ("AAAAAAAAAAAAAAAAAAAA==", .invalidCharacter),
        ("AAAAAAAAAA AAAAAAAAAAA", .invalidCharacter),
        ("AAAAAAAAAAAAAAAAAAAAAé", .invalidCharacter),
        ("AAAAAAAAAAAAAAAAAAAAA\u{0}", .invalidCharacter),
    ])
    func parseRefusals(text: String, kind: ParseError.Kind) {
        #expect {
            try LoginSessionID(text)
        } throws: { error in
            let error = error as! ParseError
            return error.kind == kind && error.subject == .sessionID
        }
    }

    @Test func theTextFormIsTheIDItself() throws {
        let id = try LoginSessionID("lW7rLyYy170D8WayM-PvKA")
        #expect(id.description == "lW7rLyYy170D8WayM-PvKA")
        #expect(try LoginSessionID(id.description) == id)
        #expect(throws: ParseError.self) { try LoginSessionID("lW7rLyYy170D8WayM+PvKA") }
    }
}
