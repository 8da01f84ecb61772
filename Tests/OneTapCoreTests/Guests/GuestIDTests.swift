import Foundation
import Testing
@testable import OneTapCore

@Suite struct GuestIDTests {
    /// 128 bits from the generator as 22 URL-safe characters: what a generator gives decides the id, and
    /// nothing else goes into it (no device, no key).
    @Test func aGuestIDIsTheGeneratorsBitsOnly() throws {
        struct Fixed: RandomNumberGenerator {
            var state: UInt64
            mutating func next() -> UInt64 {
                defer { state &+= 1 }
                return state
            }
        }
        var a = Fixed(state: 7), b = Fixed(state: 7), c = Fixed(state: 8)
        let first = GuestID.random(using: &a)
        #expect(GuestID.random(using: &b) == first, "the same bits, the same id")
        #expect(GuestID.random(using: &c) != first)
        #expect(first.text.utf8.count == 22)
        #expect(try GuestID(first.text) == first)
        var system = SystemRandomNumberGenerator()
        let ids = (0..<100).map { _ in GuestID.random(using: &system) }
        #expect(Set(ids).count == 100)
    }

    @Test(arguments: ["", "short", String(repeating: "A", count: 23), "AAAAAAAAAAAAAAAAAAAA+/"])
    func aBadIDIsRefused(_ text: String) {
        #expect(throws: ParseError.self) { try GuestID(text) }
    }

    @Test func theHintKeepsOnlyTheMaskedNumber() throws {
        let hint = LastLoginHint(flow: .mobile, number: try PhoneNumber("13800138000"), at: Date(timeIntervalSince1970: 0))
        let json = try hint.json()
        #expect(hint.maskedNumber == "138****8000" && !json.contains("13800138000") && hint.wasOneTap)
        #expect("\(hint)" == "one-tap (mobile) 138****8000")
        #expect(LastLoginHint(flow: .sms, number: nil, at: Date(timeIntervalSince1970: 0)).description == "sms")
    }

    /// A guest id holds its characters inline (as an app session id does); it behaves as its text does.
    @Test func inlineCharactersBehaveAsTheText() throws {
        let texts = AppSessionIDTests.texts
        let ids = try texts.map { try GuestID($0) }
        #expect(ids.map(\.text) == texts)
        #expect(ids.sorted().map(\.text) == texts.sorted())
        #expect(Set(ids + (try texts.map { try GuestID($0) })).count == texts.count)
        var good = "AbCdEfGhIjKlMnOpQrStUv", bad = "AbCdEfGhIjKlMnOpQrStU+"
        #expect(good.withUTF8 { GuestID(utf8: $0) } == (try GuestID("AbCdEfGhIjKlMnOpQrStUv")))
        #expect(bad.withUTF8 { GuestID(utf8: $0) } == nil)
        #expect(try GuestID("AbCdEfGhIjKlMnOpQrStUv").description == "AbCdEfGhIjKlMnOpQrStUv")
    }
}
