import Foundation
import Testing
@testable import OneTapSupport

/// The JSON reader on its own: values read as RFC 8259 says, held against Foundation's parser on the
/// same text, and every way text stops being JSON refused with a reason and the path to it.
@Suite struct JSONReaderTests {
    static func value(_ text: String) throws(JSONReadError) -> JSONValue {
        try JSONReader.read(text.utf8) { (reader) throws(JSONReadError) in try JSONValue(reading: &reader) }
    }

    /// Documents read into values, compared with what Foundation's `JSONSerialization` reads from the
    /// same text (an independent parser).
    @Test(arguments: [
        #"{"b":[true,false,null,1.5,-2,0,-0,1e3,2.5E-3,123456789012345678],"a":"x"}"#,
        #"  [ 1 , [ ] , { } , "" ]  "#,
        #""\u00e9\n\t\r\b\f\/\\\"""#,
        #""\ud83d\ude00 and 中国移动""#,
        #"{"":"empty key","\u0041":"escaped key"}"#,
        "0.1", "-0.0", "1.7976931348623157e308", "5e-324", "9007199254740993", "123456789012345",
        "true", "null",
    ])
    func readsAsFoundationDoes(_ text: String) throws {
        let ours = try Self.value(text)
        let theirs = try JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed)
        #expect(ours == Self.value(foundation: theirs))
    }

    /// Foundation's object as a ``JSONValue`` (its numbers come as `NSNumber`s; booleans too).
    static func value(foundation object: Any) -> JSONValue {
        switch object {
        case is NSNull: return .null
        case let text as String: return .string(text)
        case let array as [Any]: return .array(array.map { value(foundation: $0) })
        case let members as [String: Any]: return .object(members.mapValues { value(foundation: $0) })
        case let number as NSNumber:
            // Foundation's booleans are NSNumbers of a class of their own (`__NSCFBoolean`).
            if String(describing: type(of: number)).contains("Boolean") { return .bool(number.boolValue) }
            return .number(number.doubleValue)
        default: return .string("unexpected \(type(of: object))")
        }
    }

    /// Negative zero keeps its sign (`==` alone cannot tell), and a number too small for a Double is
    /// refused rather than read as 0, as `JSONDecoder` refuses it; a subnormal is a number.
    @Test func zeroesAndTheSmallestNumbers() throws {
        func double(_ text: String) throws(JSONReadError) -> Double {
            try JSONReader.read(text.utf8) { (reader) throws(JSONReadError) in try reader.double() }
        }
        for text in ["-0", "-0.0", "-0e10", "-0.000E-5"] { #expect(try double(text).sign == .minus && double(text) == 0, "\(text)") }
        for text in ["0", "0.0", "0e-999", "0.000"] { #expect(try double(text).sign == .plus && double(text) == 0, "\(text)") }
        // RFC 8259 §6: `int [ frac ] [ exp ]` with int `0`, so these are numbers (JSONDecoder of Swift 6.3
        // refuses them; JSONSerialization reads them as 0).
        for text in ["0e5", "0E9", "0.00e1", "-0.0e-7", "[0e5]"] {
            let read = try JSONReader.read(text.utf8) { (reader) throws(JSONReadError) in try JSONValue(reading: &reader) }
            #expect(read == (text.hasPrefix("[") ? .array([.number(0)]) : .number(0)), "\(text)")
        }
        #expect(try double("5e-324") == Double.leastNonzeroMagnitude)
        #expect(try double("2.2250738585072014e-308") == Double.leastNormalMagnitude)
        for text in ["1e-400", "2e-324", "-3.5e-999", "0.0001e-330"] {
            #expect {
                try double(text)
            } throws: { error in
                (error as? JSONReadError)?.message.contains("too small") == true
            }
            #expect(throws: DecodingError.self, "JSONDecoder refuses \(text) too") { try JSONDecoder().decode([Double].self, from: Data("[\(text)]".utf8)) }
        }
    }

    @Test(arguments: [
        ("12", 12), ("-0", 0), ("9223372036854775807", Int.max), ("-9223372036854775808", Int.min), (" 7 ", 7),
    ])
    func readsIntegers(_ text: String, _ expected: Int) throws {
        #expect(try JSONReader.read(text.utf8) { (reader) throws(JSONReadError) in try reader.int() } == expected)
    }

    @Test(arguments: [
        ("9223372036854775808", "out of range"), ("-9223372036854775809", "out of range"), ("1.5", "expected an integer"),
        ("1e2", "expected an integer"), ("\"1\"", "expected an integer, found a string"), ("+1", "no value starts here"), ("", "the input is empty"),
    ])
    func refusesWhatIsNoInteger(_ text: String, _ why: String) {
        #expect {
            try JSONReader.read(text.utf8) { (reader) throws(JSONReadError) in try reader.int() }
        } throws: { error in
            (error as? JSONReadError)?.message.contains(why) == true
        }
    }

    /// Every malformed text, refused with the reason, whatever it is read as (some of which Foundation's
    /// `JSONSerialization` takes: a trailing comma, a byte-order mark, a key twice).
    @Test(arguments: [
        ("[1,]", "no value starts here"), ("[1 2]", "expected , or ]"), ("{\"a\" 1}", "expected :"), ("{\"a\":1,}", "expected a key"),
        ("{1:2}", "expected a key"), ("[", "the input ends"), ("{\"a\":[", "the input ends"), ("\"abc", "never ends"), ("tru", "expected true"),
        ("nulll", "text after"), ("01", "leading zero"), ("-", "without digits"), ("1.e3", "without digits"), ("1e", "without digits"),
        ("\"\\u00g0\"", "four hexadecimal digits"), ("\"\\ud800\\u0041\"", "lone surrogate"), ("\"\\q\"", "unknown escape"),
        ("\"a\u{1}b\"", "control character"), ("[1] [2]", "text after"), ("\u{FEFF}[]", "no value starts here"), ("1e999", "beyond a Double"),
        ("{\"a\":1,\"a\":2}", "appears twice"),
    ])
    func refusesWhatIsNotJSON(_ text: String, _ why: String) {
        #expect {
            try Self.value(text)
        } throws: { error in
            guard let error = error as? JSONReadError, case .corrupt = error.kind else { return false }
            return error.message.contains(why)
        }
    }

    @Test func refusesBytesThatAreNotUTF8InAStringOrAKey() {
        for bytes: [UInt8] in [[0x22, 0xC3, 0x28, 0x22], [0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D], [0x22, 0xED, 0xA0, 0x80, 0x22]] {
            #expect {
                try JSONReader.read(bytes) { (reader) throws(JSONReadError) in try JSONValue(reading: &reader) }
            } throws: { error in
                (error as? JSONReadError)?.message.contains("not UTF-8") == true
            }
        }
    }

    @Test func nestingStopsAt512Levels() throws {
        let deepest = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        #expect(try Self.value(deepest) != .null)
        let deeper = String(repeating: "[", count: 513) + String(repeating: "]", count: 513)
        #expect {
            try Self.value(deeper)
        } throws: { error in
            (error as? JSONReadError)?.message.contains("nested deeper than 512 levels") == true
        }
        // Far deeper than any stack would hold, recursively: refused at 513, without a trap.
        let huge = String(repeating: "{\"a\":", count: 100_000)
        #expect(throws: JSONReadError.self) { try Self.value(huge) }
    }

    /// An error names the keys and indices to the value at fault, as `JSONDecoder` names them.
    @Test func errorsNameThePath() throws {
        let text = #"{"a":[0,{"b":{"c":tru}}]}"#
        #expect {
            try Self.value(text)
        } throws: { error in
            guard let error = error as? JSONReadError else { return false }
            let decoding = error.decodingError
            guard case .dataCorrupted(let context) = decoding else { return false }
            return context.codingPath.map(\.stringValue) == ["a", "Index 1", "b", "c"] && error.description.hasPrefix("at a.[1].b.c: not JSON: expected true")
        }
    }

    /// A path deeper than the reader keeps on the stack (32 steps) is named whole all the same.
    @Test(arguments: [5, 31, 32, 33, 100, 511])
    func deepPathsAreNamedWhole(depth: Int) throws {
        let text = String(repeating: #"{"k":["#, count: depth / 2) + (depth % 2 == 1 ? #"{"k":tru}"# : "tru") + String(repeating: "]}", count: depth / 2)
        #expect {
            try Self.value(text)
        } throws: { error in
            guard let error = error as? JSONReadError else { return false }
            let expected = (0..<depth).map { $0 % 2 == 0 ? "k" : "Index 0" }
            return error.codingPath.map(\.stringValue) == expected && error.message.contains("expected true")
        }
    }

    @Test func aValueLeftUnreadIsSkippedAndChecked() throws {
        func firstKeyOnly(_ text: String) throws(JSONReadError) -> String? {
            try JSONReader.read(text.utf8) { (reader) throws(JSONReadError) in
                var cursor = try reader.beginObject()
                var first: String?
                while let key = try reader.nextKey(in: &cursor) {
                    if first == nil { first = key.text }
                }
                return first
            }
        }
        #expect(try firstKeyOnly(#"{"x": {"deep": [1, "two", {"three": null}]}, "y": true}"#) == "x")
        #expect(throws: JSONReadError.self) { try firstKeyOnly(#"{"x": [1, 2,], "y": true}"#) }
        #expect(try firstKeyOnly("{}") == nil)
    }

    @Test func keysMatchByTheirBytesWithOrWithoutEscapes() throws {
        let matched = try JSONReader.read(#"{"id":1,"\u0069d2":2,"i\"d":3,"":4}"#.utf8) { (reader) throws(JSONReadError) -> [String] in
            var cursor = try reader.beginObject()
            var names: [String] = []
            while let key = try reader.nextKey(in: &cursor) {
                switch key {
                case "id": names.append("id")
                case "id2": names.append("id2")
                case "i\"d": names.append("quoted")
                case "": names.append("empty")
                default: names.append("other:\(key.text)")
                }
                _ = try reader.int()
            }
            return names
        }
        #expect(matched == ["id", "id2", "quoted", "empty"])
    }

    @Test func theDecodingErrorsAreJSONDecodersKinds() {
        let missing = JSONReadError(.missing(JSONPathKey("id")), [JSONPathKey("plan")], "no value for id").decodingError
        guard case .keyNotFound(let key, let context) = missing else {
            Issue.record("not keyNotFound: \(missing)")
            return
        }
        #expect(key.stringValue == "id" && context.codingPath.map(\.stringValue) == ["plan"])
        let mismatch = JSONReadError(.mismatch(.integer), [], "expected an integer").decodingError
        guard case .typeMismatch(let type, _) = mismatch else {
            Issue.record("not typeMismatch: \(mismatch)")
            return
        }
        #expect(ObjectIdentifier(type) == ObjectIdentifier(Int.self))
    }
}
