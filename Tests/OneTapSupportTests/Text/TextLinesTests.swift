import OneTapSupport
import Testing

/// A text's lines, one at a time: ending at LF or CRLF, never at a lone CR; an empty last line after a final break.
@Suite struct TextLinesTests {
    @Test(arguments: [
        ("", [""]),
        ("a", ["a"]),
        ("a\n", ["a", ""]),
        ("a\r\nb", ["a", "b"]),
        ("\n\n", ["", "", ""]),
        ("a\rb\n", ["a\rb", ""]),
        (" x \r\n\ty", [" x ", "\ty"]),
        ("第一行\n第二行", ["第一行", "第二行"]),
    ])
    func linesEndAtLFAndCRLF(text: String, expected: [String]) {
        #expect(TextLines(text[...]).map(String.init) == expected)
    }

    /// A last line without a break is read whole, once; after it there is nothing, however often asked.
    @Test func theLastLineNeedsNoBreakAndEndsTheLines() {
        var lines = TextLines(("first\n" + String(repeating: "x", count: 1 << 20))[...])
        #expect(lines.next() == "first")
        #expect(lines.next()?.count == 1 << 20)
        #expect(lines.next() == nil)
        #expect(lines.next() == nil)
    }
}
