import Foundation
import Testing
@testable import OneTapCore

@Suite struct PhoneNumberTests {
    @Test(arguments: [
        "13800138000", "+86 138 0013 8000", "0086-138-0013-8000", "86 13800138000", "+8613800138000",
        "8613800138000", "008613800138000", "138-0013-8000", "138 0013 8000", " 13800138000\n", "+86-138-0013-8000",
        "0086 138 0013 8000",
    ])
    func acceptedForms(text: String) throws {
        let number = try PhoneNumber(text)
        #expect(number.digits == "13800138000")
        #expect(number.masked == "138****8000")
        #expect(try PhoneNumber(number.description) == number)
        var copy = text
        #expect(try copy.withUTF8 { try PhoneNumber(utf8: $0) } == number)
    }

    @Test(arguments: [
        ("", ParseError.Kind.empty),
        ("  ", .empty),
        ("1380013800", .wrongLength),
        ("138001380000", .wrongLength),
        ("86138001380", .notMobile),
        ("+86 138", .wrongLength),
        (String(repeating: "1", count: 1 << 20), .wrongLength),
        ("1380013800a", .invalidCharacter),
        ("138.0013.8000", .invalidCharacter),
        ("(138)00138000", .invalidCharacter),
        ("1380013800\u{0}0", .invalidCharacter),
        ("++8613800138000", .invalidCharacter),
        ("１３８００１３８０００", .nonASCIIDigit),
        ("١٣٨٠٠١٣٨٠٠٠", .nonASCIIDigit),
        ("+852 9123 4567", .foreignNumber),
        ("+1 650 253 0000", .foreignNumber),
        ("00852 91234567", .foreignNumber),
        ("01012345678", .notMobile),
        ("+86 010 1234 5678", .notMobile),
        ("23800138000", .notMobile),
        ("138--0013-8000", .malformed),
        ("-13800138000", .malformed),
        ("13800138000-", .malformed),
        ("138 - 0013 8000", .malformed),
    ])
    func malformedNumbersThrowTheExactKind(text: String, kind: ParseError.Kind) {
        #expect {
            try PhoneNumber(text)
        } throws: { error in
            let error = error as! ParseError
            return error.kind == kind && error.subject == .phoneNumber && error.input == text
        }
    }

    @Test func valueInitialiserChecksRange() throws {
        #expect(try PhoneNumber(value: 13800138000).digits == "13800138000")
        #expect(throws: ParseError.self) { try PhoneNumber(value: 9_999_999_999) }
        #expect(throws: ParseError.self) { try PhoneNumber(value: 20_000_000_000) }
    }

    @Test func textFormReadsBack() throws {
        let number = try PhoneNumber("+86 138 0013 8000")
        #expect(number.description == "13800138000")
        #expect(try PhoneNumber(number.description) == number)
    }

    @Test func prefixes() throws {
        let number = try PhoneNumber("13912345678")
        #expect(number.prefix(3) == 139)
        #expect(number.prefix(7) == 1391234)
        #expect(number.prefix(11) == 13912345678)
    }

    @Test(arguments: [
        ("the provider failed (13800138000 not allowed)", "the provider failed (138****8000 not allowed)"),
        ("8613912345678 and 19900001111", "86139****5678 and 199****1111"),
        ("code 103000, no number", "code 103000, no number"),
        ("12345678901 starts 12: not mobile", "12345678901 starts 12: not mobile"),
        ("138001380001 is 12 digits", "138001380001 is 12 digits"),
        ("", ""),
        ("13800138000", "138****8000"),
        ("中文13800138000中文", "中文138****8000中文"),
        // An attacker's read: the forms `PhoneNumber(_:)` reads (single spaces or hyphens between digits, +86, 0086)
        // are numbers in text too.
        ("138 0013 8000", "138 **** 8000"),
        ("138-0013-8000", "138-****-8000"),
        ("+86 138 0013 8000", "+86 138 **** 8000"),
        ("+86-13800138000", "+86-138****8000"),
        ("008613800138000", "0086138****8000"),
        ("1380 0138 000", "138* ***8 000"),
        ("attempt 3 13800138000", "attempt 3 138****8000"),
        ("code 103000 13800138000 13900139000", "code 103000 138****8000 139****9000"),
        ("138  0013  8000 (two spaces) and 138/0013/8000", "138  0013  8000 (two spaces) and 138/0013/8000"),
        ("12 3456 7890 1 is not mobile", "12 3456 7890 1 is not mobile"),
    ])
    func numbersInTextAreMasked(text: String, masked: String) {
        #expect(PhoneNumber.maskingNumbers(in: text) == masked)
    }
}
