import Foundation
import Testing
@testable import OneTapSupport

@Suite struct JSONValueTests {
    @Test(arguments: [
        (#"{"b":[true,null,1.5,-2],"a":"x"}"#, #"{"a":"x","b":[true,null,1.5,-2]}"#),
        (#"[]"#, "[]"),
        (#""\u00e9\n""#, #""é\n""#),
        ("12345678901", "12345678901"),
        ("false", "false"),
    ])
    func parsesAndWritesCanonically(_ input: String, _ output: String) throws {
        let value = try JSONValue.parse(input)
        #expect(value.json == output)
        #expect(try JSONValue.parse(value.json) == value)
    }

    @Test(arguments: ["", "{", "[1 2]", "nul", "{\"a\"}"])
    func refusesWhatIsNotJSON(_ input: String) {
        #expect(throws: (any Error).self) { try JSONValue.parse(input) }
    }
}
