import Foundation
import Testing
@testable import OneTapCore

/// `LoginSession.json()` and `LoginSession(json:)`: the session's JSON (`onetap-session/2`, instants as
/// whole milliseconds) written and read by the package's one writer and reader, the earlier form
/// (`onetap-session/1`, instants as seconds) still read; refusals name the key at fault as `JSONDecoder`
/// names it, and the reader is strict JSON.
@Suite struct LoginSessionJSONTests {
    typealias F = Fixture

    /// The stage sessions of ``LoginSessionTests``, and sessions holding pending actions.
    static let sessions: [(String, LoginSession)] = LoginSessionTests.sessions + [
        ("a pending action with a nested payload", pendingSession(.object([
            "item": "v42", "qty": 3, "price": 12.5, "tags": ["新品", "a \"quoted\" tag", "tab\there"], "gift": true, "note": nil,
            "emoji": "😀", "nested": ["deeper": [["x": -1e-7]]],
        ]))),
        ("a pending action without a payload", pendingSession(nil)),
        ("a pending action with a string payload", pendingSession("comment text\nsecond line \u{1}")),
    ]

    static func pendingSession(_ payload: JSONValue?) -> LoginSession {
        let action = try! PendingAction(action: "favourite", payload: payload, at: F.now)
        return LoginSessionMachine().start(F.mobileSIM, at: F.now, id: F.id, pending: action).session
    }

    // MARK: Round trips

    @Test(arguments: sessions)
    func eachSessionComesBackThroughItsJSON(name: String, session: LoginSession) throws {
        let text = try session.json()
        #expect(try LoginSession(json: text) == session, "json() → init(json:)")
        #expect(try LoginSession(json: Array(text.utf8)) == session, "as bytes")
        #expect(try LoginSession(json: Self.version1(session)) == session, "the same session as version 1 wrote it")
        #expect(!text.contains("\n"), "one line")
        for token in ["T1", "T2", "U1"] { #expect(!text.contains("\"\(token)\""), "no token in the clear") }
    }

    /// Version 1 of the format, written from a session's version 2 text by this test: `format`
    /// `onetap-session/1`, every instant as a Double of seconds since 1970 under its name without `Ms`
    /// (what `json()` and `JSONEncoder` wrote in earlier versions; the golden files hold real ones).
    static func version1(_ session: LoginSession, _ change: (inout [String: Any]) -> Void = { _ in }) throws -> Data {
        func convert(_ value: Any) -> Any {
            if let array = value as? [Any] { return array.map(convert) }
            guard let object = value as? [String: Any] else { return value }
            var out: [String: Any] = [:]
            for (key, member) in object {
                if key.hasSuffix("Ms"), key != "elapsedMs", let milliseconds = member as? NSNumber {
                    out[String(key.dropLast(2))] = milliseconds.doubleValue / 1000
                } else if key != "payload" {
                    out[key] = convert(member)
                } else {
                    out[key] = member
                }
            }
            return out
        }
        var object = try #require(try JSONSerialization.jsonObject(with: Data(session.json().utf8)) as? [String: Any])
        object = try #require(convert(object) as? [String: Any])
        object["format"] = "onetap-session/1"
        change(&object)
        return try JSONSerialization.data(withJSONObject: object, options: [.withoutEscapingSlashes])
    }

    /// Version 1 text with one member's value written as given (a number no `Double` holds).
    static func version1(_ session: LoginSession, _ key: String, text: String) throws -> String {
        let marked = try version1(session) { $0[key] = "VALUE-TO-REPLACE" }
        return String(decoding: marked, as: UTF8.self).replacingOccurrences(of: #""VALUE-TO-REPLACE""#, with: text)
    }

    /// The text itself, written out by hand from the format's description: member order as written,
    /// instants as whole milliseconds since 1970 (`…Ms`), no optional member that is absent.
    @Test func theTextOfAStartedSession() throws {
        let session = LoginSessionTests.mobile([])
        #expect(try session.json() == """
            {"format":"onetap-session/2","id":"Session-ID-for-tests_0","version":1,\
            "plan":{"carrier":"mobile","evidence":"plmn","flows":["mobile","sms"],"reason":"policy","condition":"carrier:mobile"},\
            "stage":"flow","flow":"mobile","attempt":1,"trace":[],"alerts":[],"createdAtMs":1796083200000,"expiresAtMs":1796083800000,\
            "exchangedTokens":[],"unknownExchanges":[]}
            """)
    }

    /// The app session that started a login on the server and the login epoch of its credentials: written only
    /// when set (the epoch an integer), read back, and a bad epoch refused by name.
    @Test func theAppSessionAndItsEpoch() throws {
        let session = LoginSessionMachine().start(F.mobileSIM, at: F.now, id: F.id, appSession: try AppSessionID("AppSessionOfTheTests00"), epoch: 1_795_773_601).session
        let text = try session.json()
        #expect(text.hasSuffix(#""unknownExchanges":[],"appSession":"AppSessionOfTheTests00","appSessionEpoch":1795773601}"#))
        #expect(try LoginSession(json: text) == session)
        #expect(try LoginSession(json: text).appSessionEpoch == 1_795_773_601)
        #expect(try LoginSession(json: LoginSessionTests.mobile([]).json()).appSessionEpoch == nil)
        #expect(try LoginSession(json: text.replacingOccurrences(of: "1795773601", with: "null")).appSessionEpoch == nil, "null is no value, as for appSession")
        for bad in ["-1", "1000000000000", "1.5", #""1795773601""#] {
            let error = #expect(throws: DecodingError.self) { try LoginSession(json: text.replacingOccurrences(of: "1795773601", with: bad)) }
            #expect(error.map { "\($0)" }?.contains("appSessionEpoch") == true, "\(bad): \(String(describing: error))")
        }
    }

    /// A start that came with a solved captcha: `startCaptcha` written only when true, read back; a session written
    /// before it (or without one) reads as false, and a value that is no boolean is refused by name.
    @Test func aStartsCaptcha() throws {
        let session = LoginSessionMachine().start(F.mobileSIM, at: F.now, id: F.id, appSession: try AppSessionID("AppSessionOfTheTests00"), startCaptcha: true).session
        let text = try session.json()
        #expect(text.hasSuffix(#""unknownExchanges":[],"appSession":"AppSessionOfTheTests00","startCaptcha":true}"#))
        #expect(try LoginSession(json: text) == session)
        #expect(try LoginSession(json: text).startCaptcha)
        #expect(try !LoginSession(json: LoginSessionTests.mobile([]).json()).startCaptcha)
        #expect(try !LoginSession(json: LoginSessionTests.mobile([]).json()).json().contains("startCaptcha"))
        #expect(try !LoginSession(json: text.replacingOccurrences(of: #""startCaptcha":true"#, with: #""startCaptcha":null"#)).startCaptcha)
        let error = #expect(throws: DecodingError.self) { try LoginSession(json: text.replacingOccurrences(of: #""startCaptcha":true"#, with: #""startCaptcha":1"#)) }
        #expect(error.map { "\($0)" }?.contains("startCaptcha") == true, "\(String(describing: error))")
    }

    /// A pending action's and an unknown exchange's instants are milliseconds too.
    @Test func theTextOfAPendingActionAndAnUnknownExchange() throws {
        let pending = try Self.pendingSession(nil).json()
        #expect(pending.contains(#""pending":{"key":"#) && pending.contains(#""action":"favourite","createdAtMs":1796083200000,"expiresAtMs":1796083800000}}"#))
        let unknown = try LoginSessionTests.mobile([F.success(.mobile, "T1"), .exchanged(.timeout)]).json()
        #expect(unknown.contains(#""unknownExchanges":[{"flow":"mobile","token":"1f93603db53bfad5c92390f735d0cbb8617b4ab8214ae91c5664a3d1e9b009c8","atMs":"#))
    }

    @Test func theTextOfAnExchangeAndAStep() throws {
        let session = LoginSessionTests.mobile([Fixture.success(.mobile, "T1")])
        let text = try session.json()
        // SHA-256("T1"), worked out apart from the code (`printf T1 | sha256sum`).
        let digest = "1f93603db53bfad5c92390f735d0cbb8617b4ab8214ae91c5664a3d1e9b009c8"
        #expect(SHA256.hash(Array("T1".utf8)).hex == digest)
        #expect(text.contains(#""stage":"exchange","flow":"mobile","attempt":1,"token":"\#(digest)","receivedAtMs":1796083200250,"#))
        #expect(text.contains(#""trace":[{"flow":"mobile","attempt":1,"code":"103000","action":"success","#))
        #expect(text.contains(#""exchangedTokens":["\#(digest)"]"#))
    }

    /// Random logins (reports drawn from every kind, at instants with any fraction of a second) come
    /// back equal through their JSON, in both versions.
    @Test func randomSessionsComeBackEqual() throws {
        var random = SplitMix64(seed: 11)
        let machine = GatedMachine(gate: RecordingGate([.tianyi: .rejected]))
        let reports: [LoginReport] = [
            .result(.mobile, code: "200023"), .result(.mobile, code: "102101"), .result(.mobile, code: "103101"), F.success(.mobile, "R1"),
            F.success(.tianyi, "R2"), F.success(.unicom, "R3"), .result(.tianyi, code: "-8001"), .timeout(.mobile), .timeout(.sms),
            .fault(.mobile, "SDK \"crashed\"\t→ ✗"), .switchToSMS(.mobile), .exchanged(.timeout), .exchanged(.tokenExpired), .exchanged(.replayed),
            .exchanged(.fault("reset by peer")), F.exchange("103000"), F.exchange("104201"), F.exchange("105312"), F.verdict(),
            .cancel(.sms, reason: .noPhoneNumber), .unavailable(.unicom),
        ]
        var checked = 0
        var refused = 0
        for _ in 0..<400 {
            let start = Date(timeIntervalSince1970: 1_700_000_000 + Double(random.next() % 100_000_000_000) / 1_000)
            var session = machine.start(plan: F.fourFlows, at: start, id: LoginSessionID.random(using: &random)).session
            for step in 0..<Int(random.next() % 8) {
                let at = start.addingTimeInterval(Double(step) * 1.337 + Double(random.next() % 1000) / 1e6)
                do {
                    session = try machine.advance(session, random.pick(reports).bound(to: session), at: at).session
                } catch {
                    // A report the session refuses (another flow's, one after the end: a `LoginRejection`,
                    // the only error `advance` throws) is part of the walk.
                    refused += 1
                }
            }
            let text = try session.json()
            #expect(try LoginSession(json: text) == session)
            #expect(try LoginSession(json: Self.version1(session)) == session)
            checked += session.trace.count
        }
        #expect(checked > 400, "the random logins went somewhere")
        #expect(refused > 0, "and met refusals on the way")
    }

    /// JSON laid out as another writer might: white space everywhere, members in another order,
    /// escapes in keys and values, and members this version does not know (skipped, as
    /// `JSONDecoder` skips them), in either version.
    @Test func readsAnyLayoutOfTheSameDocument() throws {
        let session = LoginSessionTests.mobile([.result(.mobile, code: "200023")])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(session.json().utf8)) as? [String: Any])
        var reordered = String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys]), as: UTF8.self)
        reordered = reordered.replacingOccurrences(of: "\"format\"", with: "\"\\u0066ormat\"")
        reordered = reordered.replacingOccurrences(of: "\"retry mobile\"", with: "\"retry\\u0020mobile\"")
        reordered = reordered.replacingOccurrences(of: "\"alerts\"", with: "\"future\" : {\"a\": [1, {\"b\": null}], \"c\": \"\\ud83d\\ude00\"},\r\n\t\"alerts\"")
        #expect(try LoginSession(json: reordered) == session)
        let version1 = try #require(try JSONSerialization.jsonObject(with: Self.version1(session)) as? [String: Any])
        let pretty = String(decoding: try JSONSerialization.data(withJSONObject: version1, options: [.prettyPrinted, .withoutEscapingSlashes]), as: UTF8.self)
        #expect(try LoginSession(json: pretty) == session)
    }

    /// The fuzzer's seeds are sessions of version 1 (so it starts from the real thing), which read, and
    /// come back through version 2.
    @Test(arguments: ["seed-sms-after-retry", "seed-exchange", "seed-ended-with-pending"])
    func theFuzzSeedsAreSessions(_ name: String) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: Package.path("Tests/FuzzCorpus/session-json/" + name)))
        let session = try LoginSession(json: data)
        #expect(try LoginSession(json: session.json()) == session)
        #expect(try session.json().hasPrefix(#"{"format":"onetap-session/2","#))
    }

    // MARK: Version 1 beside version 2

    /// Each version holds its instants one way: seconds in a version 2 document, or milliseconds in a
    /// version 1 document, are refused, naming the format.
    @Test func theVersionsDoNotMix() throws {
        let session = LoginSessionTests.mobile([F.success(.mobile, "T1"), .exchanged(.timeout)])
        let v2 = try session.json()
        let mixed2 = v2.replacingOccurrences(of: #""createdAtMs":1796083200000"#, with: #""createdAt":1796083200"#)
        let mixed1 = String(decoding: try Self.version1(session) { $0["format"] = "onetap-session/2" }, as: UTF8.self)
        #expect(mixed2 != v2)
        for text in [mixed2, mixed1] {
            #expect {
                try LoginSession(json: text)
            } throws: { error in
                guard case DecodingError.dataCorrupted(let context) = error else { return false }
                return context.codingPath.map(\.stringValue) == ["format"] && context.debugDescription.contains("holds its instants as")
            }
        }
    }

    /// A version 1 instant with a fraction of a millisecond reads as the nearest millisecond, as every
    /// instant a session keeps.
    @Test func aVersion1InstantIsKeptToTheMillisecond() throws {
        let text = try Self.version1(LoginSessionTests.mobile([]), "createdAt", text: "1796083200.0625")
        #expect(try LoginSession(json: text).createdAt == Date(millisecondsSince1970: 1_796_083_200_063))
    }

    // MARK: Refusals, named as JSONDecoder names them

    /// A member set to a value that makes no session: refused as corrupt, naming it.
    @Test(arguments: [
        ("format", "onetap-session/3"), ("format", "session/1"), ("version", "0"), ("version", "-3"), ("stage", "paused"), ("stage", "Flow"),
        ("attempt", "0"), ("attempt", "-1"), ("id", "short"), ("id", "Session/ID+for-tests_0"), ("flow", "carrier-pigeon"), ("platform", "Not A Platform!"),
    ])
    func refusesWhatIsNoSessionAsJSONDecoderDoes(key: String, value: String) throws {
        let data = try LoginSessionTests.changed(LoginSessionTests.mobile([])) { $0[key] = Int(value).map { $0 as Any } ?? value }
        Self.bothRefuse(data) { error in
            guard case DecodingError.dataCorrupted(let context) = error else { return false }
            return context.codingPath.last?.stringValue == key
        }
    }

    @Test(arguments: ["format", "id", "version", "plan", "stage", "flow", "attempt", "trace", "alerts", "createdAtMs", "expiresAtMs", "exchangedTokens", "unknownExchanges"])
    func refusesAMissingMemberAsJSONDecoderDoes(key: String) throws {
        let data = try LoginSessionTests.changed(LoginSessionTests.mobile([])) { $0[key] = nil }
        Self.bothRefuse(data) { error in
            guard case DecodingError.keyNotFound(let missing, _) = error else { return false }
            return missing.stringValue == key
        }
    }

    /// The members only one stage has: missing from a session in that stage, both readers name them.
    @Test(arguments: [("exchange", "flow"), ("exchange", "attempt"), ("exchange", "token"), ("exchange", "receivedAtMs"), ("ended", "ending")])
    func refusesAStageWithoutItsMember(stage: String, key: String) throws {
        let session = stage == "exchange" ? LoginSessionTests.mobile([F.success(.mobile, "T1")]) : LoginSessionTests.mobile([.cancel(.mobile)])
        let data = try LoginSessionTests.changed(session) { $0[key] = nil }
        Self.bothRefuse(data) { error in
            guard case DecodingError.keyNotFound(let missing, _) = error else { return false }
            return missing.stringValue == key
        }
    }

    /// `null` where a value must be: `valueNotFound` from both readers, naming the member.
    @Test(arguments: ["format", "id", "version", "plan", "stage", "trace", "alerts", "createdAtMs", "expiresAtMs", "exchangedTokens", "unknownExchanges"])
    func refusesNullWhereAValueMustBe(key: String) throws {
        let data = try LoginSessionTests.changed(LoginSessionTests.mobile([])) { $0[key] = NSNull() }
        Self.bothRefuse(data) { error in
            guard case DecodingError.valueNotFound(_, let context) = error else { return false }
            return context.codingPath.last?.stringValue == key
        }
    }

    /// A version or an attempt the session machine could not count one past (`Int.max`) is refused by
    /// both readers, so a stored row can never make the next report overflow; one below is a session.
    @Test(arguments: ["version", "attempt"])
    func refusesCountersThatCannotGrow(key: String) throws {
        let text = try LoginSessionTests.mobile([]).json()
        let original = key == "version" ? #""version":1,"# : #""attempt":1,"#
        #expect(text.contains(original))
        let highest = Data(text.replacingOccurrences(of: original, with: "\"\(key)\":\(Int.max),").utf8)
        let below = Data(text.replacingOccurrences(of: original, with: "\"\(key)\":\(Int.max - 1),").utf8)
        for read in Self.readers {
            #expect(throws: DecodingError.self) { try read(highest) }
            let session = try read(below)
            #expect(key == "version" ? session.version == Int.max - 1 : session.attempt == Int.max - 1)
        }
        let session = try LoginSession(json: below)
        let machine = LoginSessionMachine()
        // The report is taken or refused; the machine never traps on a counter read from a store.
        _ = Result { try machine.advance(session, .result(.mobile, code: "200023"), at: F.now) }
    }

    /// An instant too small for a Double (it would read as 1970) is refused in version 1; a version 2
    /// instant is an integer, and one beyond an `Int64` is refused.
    @Test func refusesAnInstantThatUnderflows() throws {
        let text = try Self.version1(LoginSessionTests.mobile([]), "createdAt", text: "1e-400")
        Self.bothRefuse(Data(text.utf8)) { _ in true }
        let v2 = try LoginSessionTests.mobile([]).json()
        for replacement in [#""createdAtMs":1e-400"#, #""createdAtMs":1796083200000.5"#, #""createdAtMs":99999999999999999999"#] {
            Self.bothRefuse(Data(v2.replacingOccurrences(of: #""createdAtMs":1796083200000"#, with: replacement).utf8)) { _ in true }
        }
        let huge = try Self.version1(LoginSessionTests.mobile([]), "createdAt", text: "1e300")
        Self.bothRefuse(Data(huge.utf8)) { error in
            guard case DecodingError.dataCorrupted(let context) = error else { return false }
            return context.debugDescription.contains("outside the years 1 to 9999")
        }
    }

    /// A payload may nest 500 levels (the session around it then nests 502, within a reader's 512);
    /// one level more is refused where it is made and where it is read.
    @Test func aPayloadNestsAtMost500Levels() throws {
        func nested(_ levels: Int) -> JSONValue { (0..<levels).reduce(JSONValue.number(1)) { inner, _ in .array([inner]) } }
        let deepest = Self.pendingSession(nested(500))
        let text = try deepest.json()
        for read in Self.readers { #expect(try read(Data(text.utf8)) == deepest) }
        #expect {
            try PendingAction(action: "favourite", payload: nested(501), at: F.now)
        } throws: { error in
            (error as? ParseError)?.reason.contains("nests at most 500") == true
        }
        #expect(text.contains(#""payload":\#(nested(500).json)"#))
        let deeper = text.replacingOccurrences(of: nested(500).json, with: nested(501).json)
        Self.bothRefuse(Data(deeper.utf8)) { error in
            guard case DecodingError.dataCorrupted(let context) = error else { return false }
            return context.debugDescription.contains("nests at most 500")
        }
    }

    /// A member of a nested value: the path to it is named, as JSONDecoder names it.
    @Test func namesThePathIntoTheTrace() throws {
        let session = LoginSessionTests.mobile([.result(.mobile, code: "200023"), .result(.mobile, code: "102101")])
        let text = try session.json().replacingOccurrences(of: "\"attempt sms\"", with: "\"attempt by pigeon\"")
        Self.bothRefuse(Data(text.utf8)) { error in
            guard case DecodingError.dataCorrupted(let context) = error else { return false }
            return context.codingPath.map(\.stringValue) == ["trace", "Index 1", "next"] && context.codingPath[1].intValue == 1
        }
    }

    @Test(arguments: [
        (#""flows":["mobile","sms"]"#, #""flows":["sms","mobile"]"#, ["plan", "flows"]),
        (#""condition":"carrier:mobile""#, #""condition":"carrier:nowhere""#, ["plan", "condition"]),
        (#""carrier":"mobile""#, #""carrier":42"#, ["plan", "carrier"]),
        (#""version":2"#, #""version":"2""#, ["version"]),
        (#""code":"200023""#, #""code":"""#, ["trace", "Index 0", "code"]),
    ])
    func refusesABadNestedValue(original: String, replacement: String, path: [String]) throws {
        let session = LoginSessionTests.mobile([.result(.mobile, code: "200023")])
        let text = try session.json()
        #expect(text.contains(original))
        let data = Data(text.replacingOccurrences(of: original, with: replacement).utf8)
        Self.bothRefuse(data) { error in
            Self.codingPath(of: error) == path
        }
    }

    // MARK: Strict JSON

    /// Text JSONDecoder may take (it keeps a repeated key's first value, reads `2.0` as an integer) or
    /// that is no JSON at all: `init(json:)` refuses it, with a message that says why.
    @Test(arguments: [
        (#""version":1,"#, #""version":1,"version":2,"#, "appears twice"),
        (#""version":1,"#, #""version":1.0,"#, "expected an integer"),
        (#""version":1,"#, #""version":1e0,"#, "expected an integer"),
        (#""version":1,"#, #""version":01,"#, "leading zero"),
        (#""version":1,"#, #""version":99999999999999999999,"#, "out of range"),
        (#""createdAtMs":1796083200000,"#, #""createdAtMs":1e400,"#, "expected an integer"),
        (#""createdAtMs":1796083200000,"#, #""createdAtMs":-,"#, "without digits"),
        (#""createdAtMs":1796083200000,"#, #""createdAtMs":1.,"#, "without digits"),
        (#""stage":"flow","#, #""stage":"fl\#u{1}ow","#, "control character"),
        (#""stage":"flow","#, #""stage":"\ud800","#, "lone surrogate"),
        (#""stage":"flow","#, #""stage":"\udc00x","#, "lone surrogate"),
        (#""stage":"flow","#, #""stage":"\x","#, "unknown escape"),
        (#""stage":"flow","#, #""stage":"\u12","#, "four hexadecimal digits"),
        (#""stage":"flow","#, #""stage":"flow""#, "expected , or }"),
        (#""stage":"flow","#, #""stage" "flow","#, "expected :"),
        (#""stage":"flow","#, #"stage:"flow","#, "expected a key"),
        (#""stage":"flow","#, #""stage":@flow,"#, "no value starts here"),
        (#""stage":"flow","#, #""stage":flow,"#, "expected false"),
        (#""stage":"flow","#, #""stage":nul,"#, "expected null"),
        (#""trace":[],"#, #""trace":[],"future":[,],"#, "no value starts here"),
        (#""trace":[],"#, #""trace":[],"future":[{}{}],"#, "expected , or ]"),
        (#""trace":[],"#, #""trace":[],"future":{"a":1,},"#, "expected a key"),
        (#""alerts":[],"#, #""alerts":[],"alerts":[],"#, "appears twice"),
    ])
    func refusesWhatIsNotStrictJSON(original: String, replacement: String, why: String) throws {
        let text = try LoginSessionTests.mobile([]).json()
        #expect(text.contains(original))
        let changed = text.replacingOccurrences(of: original, with: replacement)
        #expect {
            try LoginSession(json: changed)
        } throws: { error in
            guard case DecodingError.dataCorrupted(let context) = error else { return false }
            return context.debugDescription.contains(why)
        }
    }

    @Test(arguments: [
        ("", "the input is empty"), ("   ", "the input is empty"), ("[]", "expected an object, found an array"),
        ("\"session\"", "expected an object, found a string"), ("{\"format\":\"onetap-session/1\"", "never ends"),
        ("{\"format\":\"onetap-session/1", "never ends"),
    ])
    func refusesTextThatIsNoObject(text: String, why: String) {
        #expect {
            try LoginSession(json: text)
        } throws: { error in
            switch error as? DecodingError {
            case .dataCorrupted(let context), .typeMismatch(_, let context): context.debugDescription.contains(why)
            default: false
            }
        }
    }

    @Test(arguments: [" {}", "\u{0}", ",", "x"])
    func refusesTextAfterTheSession(suffix: String) throws {
        let text = try LoginSessionTests.mobile([]).json()
        #expect(try LoginSession(json: text + " \n") == LoginSessionTests.mobile([]), "white space may follow")
        #expect {
            try LoginSession(json: text + suffix)
        } throws: { error in
            guard case DecodingError.dataCorrupted(let context) = error else { return false }
            return context.debugDescription.contains("text after the JSON value")
        }
    }

    @Test func refusesBytesThatAreNotUTF8() throws {
        var bytes = Array(try LoginSessionTests.mobile([]).json().utf8)
        let at = try #require(bytes.firstIndex(of: UInt8(ascii: "m")))
        bytes[at] = 0xFF
        #expect {
            try LoginSession(json: bytes)
        } throws: { error in
            guard case DecodingError.dataCorrupted(let context) = error else { return false }
            return context.debugDescription.contains("not UTF-8")
        }
    }

    @Test func refusesAPayloadNestedDeeperThanTheLimit() throws {
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        let text = try Self.pendingSession(nil).json().replacingOccurrences(of: #""action":"favourite","#, with: #""action":"favourite","payload":\#(deep),"#)
        #expect {
            try LoginSession(json: text)
        } throws: { error in
            guard case DecodingError.dataCorrupted(let context) = error else { return false }
            return context.debugDescription.contains("nested deeper than 512")
        }
    }

    @Test func refusesAPayloadOverItsLimitAndAKeyTwiceInIt() throws {
        let base = try Self.pendingSession(nil).json()
        let big = base.replacingOccurrences(of: #""action":"favourite","#, with: #""action":"favourite","payload":"\#(String(repeating: "x", count: 5000))","#)
        let twice = base.replacingOccurrences(of: #""action":"favourite","#, with: #""action":"favourite","payload":{"a":1,"a":2},"#)
        for (text, why) in [(big, "at most 4096"), (twice, "appears twice")] {
            #expect {
                try LoginSession(json: text)
            } throws: { error in
                guard case DecodingError.dataCorrupted(let context) = error else { return false }
                return context.debugDescription.contains(why) && context.codingPath.map(\.stringValue).starts(with: ["pending", "payload"])
            }
        }
    }

    // MARK: Writing what JSON cannot hold

    @Test(arguments: [Double.infinity, -Double.infinity, Double.nan])
    func refusesToWriteAnInstantThatIsNoNumber(_ seconds: Double) throws {
        let session = LoginSession(id: F.id, plan: F.fourFlows, stage: .flow(.mobile, attempt: 1), createdAt: F.now, expiresAt: Date(timeIntervalSince1970: seconds))
        #expect {
            try session.json()
        } throws: { error in
            guard case EncodingError.invalidValue(_, let context) = error else { return false }
            return context.debugDescription.contains("expiresAt") && context.debugDescription.contains("no infinity or NaN")
        }
    }

    // MARK: Helpers

    /// Both ways in refuse the bytes (as text and as bytes), each with an error `matches` takes (each
    /// checked on its own line of the report, so a failure names the way in).
    static func bothRefuse(_ data: Data, sourceLocation: SourceLocation = #_sourceLocation, _ matches: @escaping @Sendable (DecodingError) -> Bool) {
        for (name, read) in zip(["LoginSession(json:) of the text", "LoginSession(json:) of the bytes"], readers) {
            #expect(Comment(rawValue: name), sourceLocation: sourceLocation) {
                try read(data)
            } throws: { error in
                guard let error = error as? DecodingError else { return false }
                return matches(error)
            }
        }
    }

    /// Both ways in, as a store would call them.
    static let readers: [@Sendable (Data) throws -> LoginSession] = [
        { try LoginSession(json: String(decoding: $0, as: UTF8.self)) },
        { try LoginSession(json: $0) },
    ]

    static func codingPath(of error: any Error) -> [String] {
        switch error as? DecodingError {
        case .dataCorrupted(let context), .typeMismatch(_, let context), .valueNotFound(_, let context): context.codingPath.map(\.stringValue)
        case .keyNotFound(let key, let context): context.codingPath.map(\.stringValue) + [key.stringValue]
        default: []
        }
    }
}
