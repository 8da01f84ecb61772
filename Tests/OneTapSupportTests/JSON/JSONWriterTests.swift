import Foundation
import Testing
@testable import OneTapSupport

/// The JSON writer on its own: commas where they go, numbers in their shortest exact form, strings
/// escaped, and a buffer that grows without losing a byte.
@Suite struct JSONWriterTests {
    static func written(_ body: (inout JSONWriter) throws(JSONWriteError) -> Void, capacity: Int = 512) throws(JSONWriteError) -> String {
        var writer = JSONWriter(capacity: capacity)
        try body(&writer)
        return writer.text
    }

    @Test func commasGoBetweenMembersAndElements() throws {
        let text = try Self.written { writer in
            writer.object { writer in
                writer.key("a")
                writer.int(1)
                writer.key("b")
                writer.array { writer in
                    writer.bool(true)
                    writer.null()
                    writer.object { _ in }
                    writer.array { _ in }
                    writer.string("x")
                }
                writer.key("c")
                writer.object { writer in
                    writer.key("d")
                    writer.bool(false)
                }
                writer.key(escaping: "any \"key\"")
                writer.string("")
            }
        }
        #expect(text == #"{"a":1,"b":[true,null,{},[],"x"],"c":{"d":false},"any \"key\"":""}"#)
    }

    @Test(arguments: [(0, "0"), (7, "7"), (-7, "-7"), (1_796_083_200, "1796083200"), (Int.max, "9223372036854775807"), (Int.min, "-9223372036854775808")])
    func integers(_ value: Int, _ text: String) throws {
        #expect(try Self.written { $0.int(value) } == text)
    }

    /// Whole numbers below 10¹⁵ as integers; anything else as Swift's shortest exact form, which reads
    /// back as the same Double.
    @Test(arguments: [
        (1_796_083_200.0, "1796083200"), (1_796_083_200.25, "1796083200.25"), (0.1, "0.1"), (-2.5, "-2.5"), (0.0, "0"), (-0.0, "-0.0"),
        (999_999_999_999_999.0, "999999999999999"), (1e15, "1000000000000000.0"), (1e20, "1e+20"), (Double.leastNonzeroMagnitude, "5e-324"), (1.7976931348623157e308, "1.7976931348623157e+308"),
        (1_796_083_200.123_456, "1796083200.123456"),
    ])
    func numbers(_ value: Double, _ text: String) throws {
        let written = try Self.written { (writer) throws(JSONWriteError) in try writer.double(value) }
        #expect(written == text)
        let read = try JSONSerialization.jsonObject(with: Data(written.utf8), options: .fragmentsAllowed) as? NSNumber
        #expect(read?.doubleValue == value && read?.doubleValue.sign == value.sign)
    }

    @Test(arguments: [Double.infinity, -Double.infinity, Double.nan])
    func refusesWhatJSONCannotHold(_ value: Double) {
        #expect {
            try Self.written { (writer) throws(JSONWriteError) in
                try writer.object { (writer) throws(JSONWriteError) in
                    writer.key("createdAt")
                    try writer.double(value)
                }
            }
        } throws: { error in
            guard let error = error as? JSONWriteError, case .invalidValue = error.encodingError else { return false }
            return error.message.contains("the value of createdAt") && error.message.contains("no infinity or NaN")
        }
    }

    /// Strings escaped as RFC 8259 has them: quote, backslash and control characters escaped (a short
    /// form where there is one), everything else as it is.
    @Test(arguments: [
        ("plain", #""plain""#), ("", #""""#), ("a\"b\\c", #""a\"b\\c""#), ("line\nbreak\t\r\u{1}", #""line\nbreak\t\r\u0001""#),
        ("中国移动 😀", "\"中国移动 😀\""), ("\u{7F}/", #""\u007f/""#),
    ])
    func strings(_ text: String, _ literal: String) throws {
        #expect(try Self.written { $0.string(text) } == literal)
    }

    /// From a 16-byte start, thousands of values: every byte kept as the buffer grows.
    @Test func theBufferGrows() throws {
        let words = (0..<3000).map { "word-\($0)-" + String(repeating: "x", count: $0 % 37) }
        let text = try Self.written({ writer in
            writer.array { writer in
                for word in words { writer.string(word) }
            }
        }, capacity: 1)
        let read = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String])
        #expect(read == words)
    }
}
