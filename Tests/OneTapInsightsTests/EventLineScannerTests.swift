import Foundation
import Testing
import OneTapCore
@testable import OneTapInsights
import OneTapSupport

/// The byte scanner behind `onetap stats`: the fields it finds, the values it skips, the lines it refuses.
@Suite struct EventLineScannerTests {
    /// Scans a line and hands back the text of each found string field, and the numbers.
    static func scan(_ line: String) throws -> [String: String] {
        var line = line
        return try line.withUTF8 { bytes -> [String: String] in
            let fields = try EventLineScanner.scan(bytes)
            var found: [String: String] = [:]
            let spans: [(String, EventLineScanner.Span)] = [
                ("at", fields[.at]), ("area", fields[.area]), ("event", fields[.event]), ("session", fields[.session]), ("carrier", fields[.carrier]),
                ("evidence", fields[.evidence]), ("platform", fields[.platform]), ("flow", fields[.flow]), ("code", fields[.code]), ("action", fields[.action]),
                ("meaning", fields[.meaning]), ("ending", fields[.ending]), ("condition", fields[.condition]),
            ]
            for (name, span) in spans where span.isPresent { found[name] = EventValues.text(bytes, span) }
            if let version = fields.version { found["v"] = String(version) }
            if let elapsed = fields.elapsed { found["elapsedMs"] = String(elapsed) }
            if let attempt = fields.attempt { found["attempt"] = String(attempt) }
            if fields.flowCount >= 0 { found["flows"] = LoginStats.unpack(fields.flows, fields.flowCount).map(\.rawValue).joined(separator: " ") }
            return found
        }
    }

    static func failure(_ line: String) -> String? {
        do {
            _ = try scan(line)
            return nil
        } catch let error as EventLineScanner.Failure {
            return error.message
        } catch {
            return "\(error)"
        }
    }

    @Test func fieldsKeepASlotForEveryKey() {
        // `Fields` keeps the spans in a fixed array of 17, indexed by the key's raw value.
        #expect(EventLineScanner.Key.allCases.map(\.rawValue) == Array(0..<17))
    }

    @Test func readsTheFieldsOfAnEventLine() throws {
        let line = #"{"v":2,"at":"2026-12-01T08:00:01.250Z","area":"login","event":"result","session":"Session-ID-for-tests_0","carrier":"mobile","evidence":"plmn","platform":"ios","elapsedMs":1250,"flow":"mobile","attempt":1,"code":"103000","action":"success","meaning":"success: token obtained","next":"exchange mobile"}"#
        #expect(try Self.scan(line) == [
            "v": "2", "at": "2026-12-01T08:00:01.250Z", "area": "login", "event": "result", "session": "Session-ID-for-tests_0", "carrier": "mobile",
            "evidence": "plmn", "platform": "ios", "elapsedMs": "1250", "flow": "mobile", "attempt": "1", "code": "103000", "action": "success",
            "meaning": "success: token obtained",
        ])
    }

    @Test func anyOrderSpacesUnknownMembersAndNullsAreFine() throws {
        let line = #"  { "future" : {"nested":[1,-2.5e3,true,false,null,{"a":"}"}]}, "event":"planned" ,"flows":["tianyi","sms"],"v":2, "platform":null, "x":"\"}" }  "#
        #expect(try Self.scan(line) == ["event": "planned", "flows": "tianyi sms", "v": "2"])
    }

    /// A known key written with escapes is that key.
    @Test func aKeyWrittenWithEscapesIsTheKey() throws {
        #expect(try Self.scan(#"{"event":"planned","v":2}"#) == ["event": "planned", "v": "2"])
    }

    @Test func escapesAreDecodedInTheText() throws {
        let fields = try Self.scan(#"{"meaning":"a \"quoted\" \\ path\/x\nline \u4e2d\u56fd \ud83d\ude00","code":"\u0031\u0030"}"#)
        #expect(fields["meaning"] == "a \"quoted\" \\ path/x\nline 中国 😀")
        #expect(fields["code"] == "10")
    }

    @Test(arguments: [
        ("", "an empty line is no event"),
        ("[1,2]", "not a JSON object: an event is one object per line"),
        (#"{"v":2"#, "not JSON: the object is not closed"),
        (#"{"v":2}}"#, "not JSON: text after the object at byte 8"),
        (#"{"v":2,}"#, "not JSON: a member name (a string) expected at byte 8"),
        (#"{v:2}"#, "not JSON: a member name (a string) expected at byte 2"),
        (#"{"v" 2}"#, "not JSON: ':' expected after a member name at byte 6"),
        (#"{"v":2.5}"#, "key 'v': a whole number expected, not a fraction"),
        (#"{"v":"2"}"#, "key 'v': a whole number expected"),
        (#"{"elapsedMs":99999999999999999999}"#, "key 'elapsedMs': the number is too large"),
        (#"{"attempt":01}"#, "not JSON: a number with a leading zero at byte 12"),
        (#"{"carrier":7}"#, "key 'carrier': a string expected"),
        (#"{"session":"abc"#, "not JSON: a string is not closed"),
        ("{\"code\":\"a\u{1}b\"}", "not JSON: a control character inside a string at byte 11"),
        (#"{"code":"\x"}"#, "not JSON: an unknown escape at byte 10"),
        (#"{"code":"\u12"}"#, #"not JSON: a \u escape needs four hex digits at byte 10"#),
        (#"{"x":tru}"#, "not JSON: an unknown word at byte 6"),
        (#"{"x":-}"#, "not JSON: a malformed number at byte 6"),
        (#"{"x":1.}"#, "not JSON: a malformed number at byte 6"),
        (#"{"x":[1 2]}"#, "not JSON: ',' or ']' expected at byte 9"),
        (#"{"flows":"mobile"}"#, "key 'flows': an array of flow ids expected"),
        (#"{"flows":["mobile","wechat"]}"#, "key 'flows': unknown flow \"wechat\"; the flows are mobile, tianyi, unicom, sms"),
        (#"{"flows":["sms","sms","sms","sms","sms"]}"#, "key 'flows': more than four flows"),
        // An attacker's read of the parsers: the last of two values won, and a key written with escapes was taken for an
        // unknown one, where the JSON reader of stored records refuses both: the two readers disagreed on one line.
        (#"{"event":"planned","v":2,"event":"succeeded"}"#, "key 'event' appears twice"),
        (#"{"event":"planned","event":"succeeded"}"#, "key 'event' appears twice"),
        (#"{"v":2,"v":null}"#, "key 'v' appears twice"),
    ])
    func refusesWhatIsNoEventObject(line: String, message: String) {
        #expect(Self.failure(line) == message)
    }

    @Test func deepNestingIsRefusedNotRecursedWithoutEnd() {
        let deep = #"{"x":"# + String(repeating: "[", count: 100) + String(repeating: "]", count: 100) + "}"
        #expect(Self.failure(deep) == "values nested more than 64 deep")
        let fine = #"{"x":"# + String(repeating: "[", count: 60) + String(repeating: "]", count: 60) + "}"
        #expect(Self.failure(fine) == nil)
    }

    /// What Foundation's parser takes as an object, the scanner takes too (it is no looser in what it
    /// refuses than RFC 8259); seeded random objects of every value kind.
    @Test func acceptsWhatFoundationAccepts() throws {
        var random = SplitMix64(seed: 15)
        func value(_ depth: Int) -> String {
            switch random.next() % (depth > 3 ? 5 : 7) {
            case 0: return "\"s\(random.next() % 100)\\n\\u00e9\""
            case 1: return String(Int64(bitPattern: random.next()) % 1_000_000)
            case 2: return "-\(random.next() % 100).\(random.next() % 100)e-\(random.next() % 5)"
            case 3: return ["true", "false", "null"][Int(random.next() % 3)]
            case 4: return "\"\""
            case 5: return "[" + (0..<Int(random.next() % 4)).map { _ in value(depth + 1) }.joined(separator: ",") + "]"
            default: return "{" + (0..<Int(random.next() % 4)).map { index in "\"k\(index)\": \(value(depth + 1))" }.joined(separator: " , ") + "}"
            }
        }
        for _ in 0..<500 {
            let line = "{" + (0..<Int(random.next() % 6)).map { index in "\"m\(index)\":\(value(0))" }.joined(separator: ",") + "}"
            #expect(try JSONSerialization.jsonObject(with: Data(line.utf8)) is [String: Any])
            #expect(Self.failure(line) == nil, "\(line)")
        }
    }
}
