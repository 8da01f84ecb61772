import Foundation
import Testing
@testable import OneTapCore

@Suite struct PLMNTests {
    @Test(arguments: [
        ("46000", "460", "00"),
        ("460001", "460", "001"),
        ("460-00", "460", "00"),
        ("460 00", "460", "00"),
        ("460-001", "460", "001"),
        ("  46011\n", "460", "11"),
        ("\t460-20 ", "460", "20"),
        ("45412", "454", "12"),
        ("310260", "310", "260"),
        ("20801", "208", "01"),
        ("99999", "999", "99"),
        ("20000", "200", "00"),
        ("65536", "655", "36"),
    ])
    func acceptedForms(text: String, mcc: String, mnc: String) throws {
        let plmn = try PLMN(text)
        #expect(plmn.mcc == mcc)
        #expect(plmn.mnc == mnc)
        #expect(try PLMN(plmn.description) == plmn)
        #expect(try PLMN(plmn.compact) == plmn)
        #expect(try PLMN(mcc: mcc, mnc: mnc) == plmn)
        var copy = text
        #expect(try copy.withUTF8 { try PLMN(utf8: $0) } == plmn)
    }

    @Test func twoAndThreeDigitMNCsDiffer() throws {
        #expect(try PLMN("46001") != PLMN("460001"))
        #expect(try PLMN("460001").description == "460-001")
        #expect(try PLMN("46001").description == "460-01")
    }

    @Test(arguments: [
        // (input, kind)
        ("", ParseError.Kind.empty),
        ("   ", .empty),
        ("\n\t", .empty),
        ("65535", .placeholder),
        (" 65535 ", .placeholder),
        ("--", .placeholder),
        ("abc", .invalidCharacter),
        ("4600a", .invalidCharacter),
        ("CMCC", .invalidCharacter),
        ("+46000", .invalidCharacter),
        ("-46000", .invalidCharacter),
        ("460.00", .invalidCharacter),
        ("460_00", .invalidCharacter),
        ("460/00", .invalidCharacter),
        ("46000\u{0}", .invalidCharacter),
        ("\u{0}46000", .invalidCharacter),
        ("460\u{0}00", .invalidCharacter),
        ("4600", .wrongLength),
        ("460", .wrongLength),
        ("4", .wrongLength),
        ("4600000", .wrongLength),
        ("46000000", .wrongLength),
        (String(repeating: "4", count: 1 << 20), .wrongLength),
        ("460-0", .wrongLength),
        ("460-0000", .wrongLength),
        ("46-000", .malformed),
        ("4600-0", .malformed),
        ("460--00", .malformed),
        ("460 - 00", .malformed),
        ("460-", .wrongLength),
        ("４６０００", .nonASCIIDigit),
        ("460０0", .nonASCIIDigit),
        ("٤٦٠٠٠", .nonASCIIDigit),
        ("४६०००", .nonASCIIDigit),
        ("00101", .reserved),
        ("00000", .reserved),
        ("19999", .reserved),
        ("460 00 01", .malformed),
        ("中国移动", .invalidCharacter),
        ("46000🙂", .invalidCharacter),
    ])
    func malformedValuesThrowTheExactKind(text: String, kind: ParseError.Kind) {
        #expect {
            try PLMN(text)
        } throws: { error in
            let error = error as! ParseError
            return error.kind == kind && error.subject == .plmn && error.input == text
                && error.description.hasPrefix("invalid PLMN \"")
        }
    }

    @Test(arguments: [
        ("65535", "65535", ParseError.Kind.placeholder, ParseError.Subject.plmn),
        ("460", "65535", .placeholder, .plmn),
        ("--", "--", .placeholder, .plmn),
        ("", "00", .empty, .mcc),
        ("460", "", .empty, .mnc),
        ("46", "00", .wrongLength, .mcc),
        ("4600", "00", .wrongLength, .mcc),
        ("460", "0", .wrongLength, .mnc),
        ("460", "0000", .wrongLength, .mnc),
        ("４６０", "00", .nonASCIIDigit, .mcc),
        ("460", "0a", .invalidCharacter, .mnc),
        ("001", "01", .reserved, .mcc),
        ("-46", "00", .invalidCharacter, .mcc),
    ])
    func malformedPairsNameThePart(mcc: String, mnc: String, kind: ParseError.Kind, subject: ParseError.Subject) {
        #expect {
            try PLMN(mcc: mcc, mnc: mnc)
        } throws: { error in
            let error = error as! ParseError
            return error.kind == kind && error.subject == subject
        }
    }

    @Test func numericInitialiserChecksRanges() throws {
        #expect(try PLMN(mcc: 460, mnc: 0).description == "460-00")
        #expect(try PLMN(mcc: 460, mnc: 1, mncLength: 3).description == "460-001")
        #expect(throws: ParseError.self) { try PLMN(mcc: 1000, mnc: 0) }
        #expect(throws: ParseError.self) { try PLMN(mcc: 100, mnc: 0) }
        #expect(throws: ParseError.self) { try PLMN(mcc: 460, mnc: 100) }
        #expect(throws: ParseError.self) { try PLMN(mcc: 460, mnc: 1, mncLength: 4) }
    }

    @Test func errorMessagesExplain() {
        #expect(throws: ParseError(.plmn, .wrongLength, input: "4600", reason: "4 digits; a PLMN has 5 or 6 (a 3-digit MCC, then a 2- or 3-digit MNC)")) {
            try PLMN("4600")
        }
        #expect(throws: ParseError(.plmn, .invalidCharacter, input: "4600a", reason: "'a' at position 5 is not allowed")) {
            try PLMN("4600a")
        }
    }

    /// The text form (what a store or a log keeps) is the hyphenated one, and it reads back.
    @Test func theTextFormIsTheHyphenatedOne() throws {
        let plmn = try PLMN("46001")
        #expect(plmn.description == "460-01")
        #expect(try PLMN(plmn.description) == plmn)
        // South Africa's 655-35 survives the round trip although its compact form is the iOS placeholder.
        let southAfrica = try PLMN(mcc: "655", mnc: "35")
        #expect(try PLMN(southAfrica.description) == southAfrica)
        #expect(throws: ParseError.self) { try PLMN(southAfrica.compact) }
    }

    @Test func ordering() throws {
        #expect(try PLMN("46000") < PLMN("46001"))
        #expect(try PLMN("46099") < PLMN("460000"))
        #expect(try PLMN("45412") < PLMN("46000"))
    }
}
