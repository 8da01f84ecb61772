import Testing
@testable import OneTapSupport

@Suite struct ParseErrorTests {
    @Test func descriptionNamesSubjectInputAndReason() {
        let error = ParseError(.plmn, .wrongLength, input: "4600", reason: "4 digits")
        #expect(error.description == #"invalid PLMN "4600": 4 digits"#)
    }

    @Test(arguments: [
        ("abc", #""abc""#),
        ("a\"b", #""a\"b""#),
        ("a\\b", #""a\\b""#),
        ("a\nb", #""a\nb""#),
        ("a\u{0}b", #""a\u{0}b""#),
        ("\u{7F}", #""\u{7f}""#),
    ])
    func quotesEscapeControlCharacters(input: String, expected: String) {
        #expect(QuotedInput(input).description == expected)
    }

    @Test func longInputsAreShortenedWithTheirSize() {
        let input = String(repeating: "9", count: 1 << 20)
        let text = QuotedInput(input).description
        #expect(text == "\"" + String(repeating: "9", count: 64) + "…\" (1048576 bytes)")
    }

    @Test(arguments: [
        (Unicode.Scalar(0)!, "NUL"),
        (" ", "a space"),
        ("a", "'a'"),
        ("\u{FF14}", "U+FF14 '４'"),
        ("\u{0664}", "U+0664 '٤'"),
        ("\u{3000}", "U+3000"),
    ] as [(Unicode.Scalar, String)])
    func charactersAreNamedReadably(scalar: Unicode.Scalar, expected: String) {
        #expect(describeCharacter(scalar) == expected)
    }
}
