import Foundation
import OneTap
@testable import OneTapGateways
import Testing

/// The captcha token a client sends is read strictly and never traps: garbage of every kind is a
/// ``CaptchaTokenError`` naming the member and the form expected, never quoting a value.
@Suite struct CaptchaTokenTests {
    @Test func theWidgetsObjectIsReadAndOtherMembersAreIgnored() throws {
        let members = try CaptchaToken.members(
            Secret(#"{"ret":0,"ticket":"t*-_","randstr":"@Vki","CaptchaAppId":"199999164","extra":{"a":[1,2]}}"#), gateway: "g",
            required: ["ticket", "randstr"], optional: ["ret"])
        #expect(members == ["ticket": "t*-_", "randstr": "@Vki", "ret": "0"])
    }

    @Test(arguments: [
        (#"{"ticket":"a\u0000b","randstr":"r"}"#, #""ticket" holds a control character"#),
        (#"{"ticket":1.5,"randstr":"r"}"#, #""ticket" is not a string"#),
        (#"{"ticket":"t","randstr":null}"#, #"no "randstr""#),
        (#"{"ticket":"t","ticket":"u","randstr":"r"}"#, "not JSON"),
        ("", "not JSON"), ("null", "not a JSON object"), (#""t:r""#, "not a JSON object"),
    ])
    func eachMalformedTokenNamesTheMemberNeverAValue(token: String, words: String) {
        let error = #expect(throws: CaptchaTokenError.self) { try CaptchaToken.members(Secret(token), gateway: "g", required: ["ticket", "randstr"]) }
        #expect(error?.description.contains(words) == true, "\(String(describing: error))")
        #expect(error?.description.contains("\"t\"") == false)
    }

    @Test func randomBytesNeverTrap() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array(#"{}[]":,\ticketrandstr0123456789.eE+-truefalsenull"#.utf8) + [0, 0x1F, 0x7F, 0xC3, 0xA9, 0xFF]
        for _ in 0..<2000 {
            let bytes = (0..<Int.random(in: 0...64, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }
            let text = String(decoding: bytes, as: UTF8.self)
            do {
                let members = try CaptchaToken.members(Secret(text), gateway: "g", required: ["ticket", "randstr"])
                #expect(members["ticket"]?.isEmpty == false && members["randstr"]?.isEmpty == false)
            } catch {
                #expect(error.description.hasPrefix("g: malformed captcha token: "))
            }
        }
    }
}
