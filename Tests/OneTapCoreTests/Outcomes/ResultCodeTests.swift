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

    /// JSON carries a code as a string, exactly its text; a number an SDK sent decodes to its digits.
    @Test func codableWritesStringsAndReadsStringsAndIntegers() throws {
        let decoded = try JSONDecoder().decode([ResultCode].self, from: Data(#"[103000, "-8994014", " 7 ", "000"]"#.utf8))
        #expect(decoded.map(\.text) == ["103000", "-8994014", "7", "000"])
        #expect(String(decoding: try JSONEncoder().encode(decoded), as: UTF8.self) == #"["103000","-8994014","7","000"]"#)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([ResultCode].self, from: Data(#"[""]"#.utf8)) }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([ResultCode].self, from: Data("[true]".utf8)) }
    }
}
