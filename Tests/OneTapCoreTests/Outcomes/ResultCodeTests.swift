import Foundation
import Testing
@testable import OneTapCore

@Suite struct ResultCodeTests {
    @Test(arguments: [
        ("103000", Int64(103000)), (" 103000 ", 103000), ("-8994014", -8994014), ("0", 0), ("000", 0), ("-0", 0),
        ("9223372036854775807", .max), ("-9223372036854775808", .min), ("\t-8003\n", -8003),
    ])
    func parsesStringCodes(text: String, value: Int64) throws {
        let code = try ResultCode(text)
        #expect(code.value == value)
        #expect(try ResultCode(code.description) == code)
    }

    @Test func integerAndStringCodesAreTheSame() throws {
        let literal: ResultCode = 103000
        #expect(try ResultCode("103000") == literal)
        #expect(ResultCode(-8994014) == (try ResultCode("-8994014")))
    }

    @Test(arguments: [
        ("", ParseError.Kind.empty), ("  ", .empty), ("-", .malformed), ("+103000", .invalidCharacter),
        ("1.5", .invalidCharacter), ("1e3", .invalidCharacter), ("abc", .invalidCharacter), ("10 3000", .invalidCharacter),
        ("--1", .invalidCharacter), ("１０３０００", .nonASCIIDigit), ("9223372036854775808", .outOfRange),
        ("-9223372036854775809", .outOfRange), ("99999999999999999999999", .outOfRange), ("103000\u{0}", .invalidCharacter),
    ])
    func malformedCodes(text: String, kind: ParseError.Kind) {
        #expect {
            try ResultCode(text)
        } throws: { error in
            let error = error as! ParseError
            return error.kind == kind && error.subject == .resultCode
        }
    }

    @Test func codableAcceptsNumbersAndStrings() throws {
        let decoded = try JSONDecoder().decode([ResultCode].self, from: Data(#"[103000, "-8994014", " 7 "]"#.utf8))
        #expect(decoded == [103000, -8994014, 7])
        #expect(String(decoding: try JSONEncoder().encode(decoded), as: UTF8.self) == "[103000,-8994014,7]")
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([ResultCode].self, from: Data(#"["x"]"#.utf8)) }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([ResultCode].self, from: Data("[1.5]".utf8)) }
    }
}
