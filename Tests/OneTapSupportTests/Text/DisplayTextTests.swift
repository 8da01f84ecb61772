import OneTapSupport
import Testing

/// What may be shown of outside text: Unicode's general categories Cc (controls: C0, DEL, C1) and Cf (formats:
/// U+200E LEFT-TO-RIGHT MARK, U+202E RIGHT-TO-LEFT OVERRIDE, U+2066 LEFT-TO-RIGHT ISOLATE, U+FEFF) are replaced
/// by U+FFFD; letters of any script, marks and symbols are kept.
@Suite struct DisplayTextTests {
    @Test(arguments: [
        ("plain ascii", "plain ascii"),
        ("\u{1B}]0;owned\u{7}\u{1B}[2J", "\u{FFFD}]0;owned\u{FFFD}\u{FFFD}[2J"),
        ("a\u{9B}31mb", "a\u{FFFD}31mb"),
        ("file\u{202E}txt.exe", "file\u{FFFD}txt.exe"),
        ("\u{200E}\u{2066}x\u{FEFF}", "\u{FFFD}\u{FFFD}x\u{FFFD}"),
        ("用户 🙂 cafe\u{301}", "用户 🙂 cafe\u{301}"),
        // An attacker's read of the parsers: U+2028 and U+2029 (Zl, Zp) passed, and readers that split lines on them
        // (Python's `splitlines`, JavaScript before ES2019) saw a forged line.
        ("a\u{2028}b\u{2029}c", "a\u{FFFD}b\u{FFFD}c"),
    ])
    func unsafeCharactersAreReplaced(_ text: String, _ shown: String) {
        #expect(DisplayText.label(text) == shown)
        #expect(DisplayText.line(text) == shown)
    }

    @Test func aLabelIsBoundedInScalarsALineIsNot() {
        let long = String(repeating: "e\u{301}", count: 300)   // 300 characters, 600 scalars
        #expect(DisplayText.label(long).unicodeScalars.count == 128)
        #expect(DisplayText.label(long, limit: 200).unicodeScalars.count == 200)
        #expect(DisplayText.line(long) == long)
    }

    @Test func outputKeepsItsTabsAndLineFeedsALabelDoesNot() {
        #expect(DisplayText.line("a\tb\nc\r") == "a\tb\nc\u{FFFD}")
        #expect(DisplayText.line("é\tb\nc\r") == "é\tb\nc\u{FFFD}")
        #expect(DisplayText.label("a\tb\nc\r") == "a\u{FFFD}b\u{FFFD}c\u{FFFD}")
    }

    /// What errors quote of a vendor's text (a request id, a code, a serial): at most 128 scalars, control and
    /// format characters replaced (a gateway attacker's read found a 10,000-character request id with an escape
    /// sequence and a forged log line reaching an SMS error's message).
    @Test func aLabelIsBoundedAndHoldsNoControlOrFormatCharacter() {
        let forged = String(repeating: "R", count: 10_000) + "\u{1B}[2J\n2026-01-01 level=info msg=forged"
        #expect(DisplayText.label(forged) == String(repeating: "R", count: 128))
        #expect(DisplayText.label("X\u{1B}[31m\nforged\u{202E}") == "X\u{FFFD}[31m\u{FFFD}forged\u{FFFD}")
        #expect(DisplayText.label("8906582E-6722-请求") == "8906582E-6722-请求")
        // One character of 10,001 scalars (a letter and 10,000 combining accents) is no way around the bound.
        let heaped = DisplayText.label("a" + String(repeating: "\u{301}", count: 10_000))
        #expect(heaped.unicodeScalars.count == 128 && heaped.utf8.count <= 512, "\(heaped.unicodeScalars.count) scalars")
    }
}
