import Foundation
import Testing
@testable import OneTapSupport

@Suite struct OrderedJSONEncoderTests {
    struct Sample: Encodable {
        enum Keys: String, CodingKey { case zeta, alpha, list, nested, flag, number, none, text }
        func encode(to encoder: any Encoder) throws {
            var first = encoder.container(keyedBy: Keys.self)
            try first.encode("z", forKey: .zeta)
            try first.encode(1, forKey: .alpha)
            // A second container on the same encoder writes into the same object, as JSONEncoder's does.
            var second = encoder.container(keyedBy: Keys.self)
            try second.encode(["mobile", "sms"], forKey: .list)
            var nested = second.nestedContainer(keyedBy: Keys.self, forKey: .nested)
            try nested.encode(2.5, forKey: .number)
            try nested.encodeNil(forKey: .none)
            try second.encode(true, forKey: .flag)
            try second.encode("a\"b\n中", forKey: .text)
            try second.encode(7, forKey: .alpha)  // written twice: the first place, the last value
        }
    }

    @Test func membersComeInTheOrderTheyWereWritten() throws {
        #expect(try OrderedJSONEncoder.encode(Sample()) == #"{"zeta":"z","alpha":7,"list":["mobile","sms"],"nested":{"number":2.5,"none":null},"flag":true,"text":"a\"b\n中"}"#)
    }

    @Test func theTextIsJSONThatFoundationReadsBack() throws {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(OrderedJSONEncoder.encode(Sample()).utf8)) as? [String: Any])
        #expect(object["text"] as? String == "a\"b\n中")
        #expect(object["alpha"] as? Int == 7)
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity])
    func nonFiniteNumbersAreRefused(value: Double) {
        #expect(throws: EncodingError.self) { try OrderedJSONEncoder.encode(["x": value]) }
    }

    @Test func scalarsAndWholeNumbers() throws {
        #expect(try OrderedJSONEncoder.encode(3.0) == "3")
        #expect(try OrderedJSONEncoder.encode(-0.125) == "-0.125")
        #expect(try OrderedJSONEncoder.encode("46000") == #""46000""#)
        #expect(try OrderedJSONEncoder.encode([Int64.max]) == "[9223372036854775807]")
    }
}
