import Testing
@testable import OneTapCore

@Suite struct DeviceIDTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let text: String
        let kind: ParseError.Kind?
        var testDescription: String { text.isEmpty ? "(empty)" : String(text.prefix(40)) }
    }

    static let cases: [Case] = [
        Case(text: "9774d56d682e549c", kind: nil),                            // an Android ID
        Case(text: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F", kind: nil),        // an identifierForVendor
        Case(text: String(repeating: "a", count: 128), kind: nil),
        Case(text: String(repeating: "a", count: 129), kind: .wrongLength),
        Case(text: "", kind: .empty),
        Case(text: "has space", kind: .invalidCharacter),
        Case(text: "tab\there", kind: .invalidCharacter),
        Case(text: "设备", kind: .invalidCharacter),
        Case(text: "\u{7F}", kind: .invalidCharacter),
    ]

    @Test(arguments: cases)
    func deviceIDs(_ test: Case) throws {
        if let kind = test.kind {
            let error = #expect(throws: ParseError.self) { try DeviceID(test.text) }
            #expect(error?.kind == kind && error?.subject == .deviceID)
        } else {
            #expect(try DeviceID(test.text).rawValue == test.text)
        }
    }

    @Test func theDescriptionHidesTheID() throws {
        let id = try DeviceID("9774d56d682e549c")
        #expect("\(id)" == "device(16 characters)")
    }
}
