import Testing
@testable import OneTapCore

/// An app session id holds its 22 characters inline; it behaves as its text does.
@Suite struct AppSessionIDTests {
    static let texts = [
        "AAAAAAAAAAAAAAAAAAAAAA", "AAAAAAAAAAAAAAAAAAAAAB", "BAAAAAAAAAAAAAAAAAAAAA", "aAAAAAAAAAAAAAAAAAAAAA", "-AAAAAAAAAAAAAAAAAAAAA",
        "_AAAAAAAAAAAAAAAAAAAAA", "0AAAAAAAAAAAAAAAAAAAAA", "zzzzzzzzzzzzzzzzzzzzzz", "AAAAAAAA_AAAAAAAAAAAAA", "AAAAAAAAAAAAAAAAAAAAA-",
    ]

    @Test func theTextReadsBackAndOrdersAsTheTextDoes() throws {
        let ids = try Self.texts.map { try AppSessionID($0) }
        #expect(ids.map(\.text) == Self.texts)
        #expect(ids.map(\.description) == Self.texts)
        // Sorted by the ids, the texts come out as sorting the strings puts them.
        #expect(ids.sorted().map(\.text) == Self.texts.sorted())
        for (left, right) in zip(ids, ids.dropFirst()) {
            #expect((left < right) == (left.text < right.text))
            #expect((right < left) == (right.text < left.text))
        }
    }

    @Test func equalTextsAreEqualIDsAndHashAlike() throws {
        let one = try AppSessionID("AbCdEfGhIjKlMnOpQrStUv")
        let again = try AppSessionID(String("xAbCdEfGhIjKlMnOpQrStUv".dropFirst()))
        #expect(one == again && one.hashValue == again.hashValue)
        #expect(one != (try AppSessionID("AbCdEfGhIjKlMnOpQrStUw")))
        #expect(Set([one, again]).count == 1)
    }

    /// A wrong length says how many characters came and how many an id has, with its article right.
    @Test func aWrongLengthIsSaidInPlainWords() {
        let error = #expect(throws: ParseError.self) { try AppSessionID("AbCdEfGhIjKlMnOpQrStU") }
        #expect(error?.reason == "21 characters; an app session id has 22")
        let guest = #expect(throws: ParseError.self) { try GuestID("AbCdEfGhIjKlMnOpQrStU") }
        #expect(guest?.reason == "21 characters; a guest id has 22")
    }

    @Test func bytesReadAsTheTextDoes() throws {
        var good = "AbCdEfGhIjKlMnOpQrStUv"
        #expect(good.withUTF8 { AppSessionID(utf8: $0) } == (try AppSessionID("AbCdEfGhIjKlMnOpQrStUv")))
        for bad in ["AbCdEfGhIjKlMnOpQrStU", "AbCdEfGhIjKlMnOpQrStUvw", "AbCdEfGhIjKlMnOpQrStU+", "AbCdEfGhIjKlMnOpQrStU.", ""] {
            var text = bad
            #expect(text.withUTF8 { AppSessionID(utf8: $0) } == nil, "\(bad)")
            #expect(throws: ParseError.self) { try AppSessionID(bad) }
        }
        _ = good
    }
}
