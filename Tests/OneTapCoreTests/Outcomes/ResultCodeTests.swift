import Foundation
import Testing
@testable import OneTapCore

/// Result codes are the SDK's text, trimmed: `"000"` is not `"0"`.
@Suite struct ResultCodeTests {
    @Test(arguments: [
        ("103000", "103000"), (" 103000 ", "103000"), ("-8994014", "-8994014"), ("0", "0"), ("000", "000"), ("-0", "-0"),
        ("\t-8003\n", "-8003"), ("+103000", "+103000"), ("SUCCESS", "SUCCESS"), ("成功", "成功"), ("10 3000", "10 3000"),
        (String(repeating: "9", count: 64), String(repeating: "9", count: 64)),
    ])
    func keepsTheSDKsTextTrimmed(input: String, text: String) throws {
        let code = try ResultCode(input)
        #expect(code.text == text)
        #expect(code.description == text)
        #expect(try ResultCode(code.text) == code)
    }

    @Test func leadingZerosMakeAnotherCode() throws {
        let (zeros, zero, paddedZeros) = ("000", "0", " 000")
        #expect(try ResultCode(zeros) != ResultCode(zero))
        #expect(try ResultCode(paddedZeros) == ResultCode(zeros))
        let literal: ResultCode = "001"
        #expect(literal != 1)
    }

    @Test(arguments: [("103000", true), ("-8994014", true), ("000", true), ("-", false), ("+1", false), ("1a", false), ("SUCCESS", false)])
    func numericCodes(text: String, numeric: Bool) throws {
        #expect(try ResultCode(text).isNumeric == numeric)
    }

    @Test func integerLiteralsAreTheirDecimalText() {
        let literal: ResultCode = 103000
        let negative: ResultCode = -8994014
        #expect(literal.text == "103000" && negative.text == "-8994014")
    }

    @Test(arguments: [
        ("", ParseError.Kind.empty), ("  ", .empty), ("\t\n", .empty), ("103000\u{0}", .invalidCharacter), ("10\u{7}3", .invalidCharacter),
        ("1\u{85}", .invalidCharacter), (String(repeating: "9", count: 65), .wrongLength),
    ])
    func malformedCodes(text: String, kind: ParseError.Kind) {
        #expect {
            try ResultCode(text)
        } throws: { error in
            let error = error as! ParseError
            return error.kind == kind && error.subject == .resultCode
        }
    }

    /// A code is its text (spaces trimmed); a number an SDK sent is its digits.
    @Test func aCodeIsItsTextAndANumberItsDigits() throws {
        let codes = try [" 7 ", "-8994014", "000"].map { try ResultCode($0) } + [ResultCode(integerLiteral: 103000)]
        #expect(codes.map(\.text) == ["7", "-8994014", "000", "103000"])
        let empty = String()
        #expect(throws: ParseError.self) { try ResultCode(empty) }
    }
}
