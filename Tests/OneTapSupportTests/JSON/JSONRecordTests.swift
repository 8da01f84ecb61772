import Foundation
import Testing
@testable import OneTapSupport

/// What every record is written and read with beside the writer and reader themselves: instants as
/// whole milliseconds (and the older forms' seconds), formats checked against the instants' form,
/// unsigned integers, byte order marks, the shared grammar, and `JSONRecord`'s helpers.
@Suite struct JSONRecordTests {
    /// A record of this suite's own: a name and an instant, `{"format":"test/2","name":…,"atMs":…}`, or
    /// the older form without `format` and with `at` in seconds since 2001.
    struct Sample: JSONRecord, Equatable {
        let name: String
        let at: Date

        init(name: String, at: Date) {
            self.name = name
            self.at = at
        }

        func write(to writer: inout JSONWriter) throws(JSONWriteError) {
            try writer.object { (writer) throws(JSONWriteError) in
                writer.key("format")
                writer.string("test/2")
                writer.key("name")
                writer.string(name)
                writer.key("atMs")
                try writer.instant(at)
            }
        }

        init(reading reader: inout JSONReader) throws(JSONReadError) {
            var format: String?, name: String?, at: Date?
            var instants = StoredInstants(legacy: .reference)
            var members = try reader.beginObject()
            while let key = try reader.nextKey(in: &members) {
                switch key {
                case "format":
                    try reader.unseen(format != nil, key)
                    format = try reader.string()
                case "name":
                    try reader.unseen(name != nil, key)
                    name = try reader.string()
                case "atMs", "at":
                    try reader.unseen(at != nil, key)
                    at = try instants.read(milliseconds: "atMs" ~= key, &reader)
                default: break
                }
            }
            let current = try reader.storedFormat(format, "test/2", instants)
            self.init(name: try reader.required(name, "name"), at: try reader.required(at, current ? "atMs" : "at"))
        }
    }

    @Test func aRecordWritesItsInstantAsMillisecondsAndReadsBothForms() throws {
        let sample = Sample(name: "a", at: Date(millisecondsSince1970: 1_796_112_000_250))
        let text = try sample.json()
        #expect(text == #"{"format":"test/2","name":"a","atMs":1796112000250}"#)
        #expect(try Sample(json: text) == sample)
        #expect(try Sample(json: Array(text.utf8)) == sample)
        // 2026-12-01T08:00:00.250Z as `JSONEncoder` wrote a `Date`: seconds since 2001-01-01.
        #expect(try Sample(json: #"{"at":817804800.25,"name":"a"}"#) == sample)
    }

    @Test(arguments: [
        (#"{"format":"test/2","name":"a","at":817804800.25}"#, ["format"], "holds its instants as whole milliseconds"),
        (#"{"name":"a","atMs":1796112000250}"#, ["format"], "a record without a format holds its instants as seconds"),
        (#"{"format":"test/3","name":"a","atMs":1}"#, ["format"], #"format "test/3" is not test/2"#),
        (#"{"format":"test/2","name":"a","atMs":1.5}"#, ["atMs"], "expected an integer"),
        (#"{"format":"test/2","name":"a","atMs":9223372036854775808}"#, ["atMs"], "out of range"),
        (#"{"name":"a","at":1e300}"#, ["at"], "outside the years 1 to 9999"),
        // An attacker's read of the parsers: a count past 2^53 was read, then its record could never be written again
        // (the writer refused the `Date` it made) or was written back as another number.
        (#"{"format":"test/2","name":"a","atMs":9223372036854775807}"#, ["atMs"], "outside the years 1 to 9999"),
        (#"{"format":"test/2","name":"a","atMs":4611686018427387905}"#, ["atMs"], "outside the years 1 to 9999"),
        (#"{"format":"test/2","name":"a","atMs":253402300800000}"#, ["atMs"], "outside the years 1 to 9999"),
        (#"{"format":"test/2","name":"a","atMs":-62135596800001}"#, ["atMs"], "outside the years 1 to 9999"),
        (#"{"format":"test/2","name":"a","atMs":1,"atMs":2}"#, ["atMs"], "appears twice"),
        (#"{"format":"test/2","name":"a","atMs":1,"at":2}"#, ["at"], "appears twice"),
    ])
    func aRecordRefusesWhatIsNoneOfItsForms(text: String, path: [String], why: String) {
        #expect {
            try Sample(json: text)
        } throws: { error in
            guard case DecodingError.dataCorrupted(let context) = error else { return false }
            return context.codingPath.map(\.stringValue) == path && context.debugDescription.contains(why)
        }
    }

    /// The first and last instants a record holds (0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z, counts computed
    /// with Python's `datetime`) are read and written back to the letter.
    @Test(arguments: ["-62135596800000", "253402300799999"])
    func theEdgesOfTheStoredYearsComeBackAsTheyWere(milliseconds: String) throws {
        let text = #"{"format":"test/2","name":"a","atMs":\#(milliseconds)}"#
        #expect(try Sample(json: text).json() == text)
    }

    @Test func aMissingInstantIsNamedInTheFormsName() {
        for (text, key) in [(#"{"format":"test/2","name":"a"}"#, "atMs"), (#"{"name":"a"}"#, "at")] {
            #expect {
                try Sample(json: text)
            } throws: { error in
                guard case DecodingError.keyNotFound(let missing, _) = error else { return false }
                return missing.stringValue == key
            }
        }
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity, 1e17, 253_402_300_800, -62_135_596_800.001])
    func anInstantWithNoMillisecondCountIsNotWritten(seconds: Double) {
        #expect {
            try Sample(name: "a", at: Date(timeIntervalSince1970: seconds)).json()
        } throws: { error in
            guard case EncodingError.invalidValue(_, let context) = error else { return false }
            return context.debugDescription.contains("atMs") && context.debugDescription.contains("no infinity or NaN")
        }
    }

    // MARK: The writer's and reader's additions

    @Test func unsignedIntegersAndBytesWrite() throws {
        var writer = JSONWriter(capacity: 16)
        writer.array { writer in
            writer.int(UInt64.max)
            writer.int(UInt64(0))
            writer.int(Int64.min)
            let bytes: [UInt8] = [0x61, 0xFF, 0x22, 0x0A]
            bytes.withUnsafeBufferPointer { writer.string(utf8: $0) }
            writer.fragment(#"{"nested":[1]}"#)
        }
        #expect(writer.text == #"[18446744073709551615,0,-9223372036854775808,"a\#u{FFFD}\"\n",{"nested":[1]}]"#)
        writer.removeAll()
        writer.bool(true)
        #expect(writer.text == "true")
        #expect(writer.withBytes { Array($0) } == Array("true".utf8))
    }

    @Test(arguments: [("0", UInt64(0)), ("18446744073709551615", .max), (" 42 ", 42)])
    func unsignedIntegersRead(_ text: String, _ value: UInt64) throws {
        #expect(try JSONReader.read(text.utf8) { (reader) throws(JSONReadError) in try reader.uint64() } == value)
    }

    @Test(arguments: [("18446744073709551616", "out of range"), ("-1", "below 0"), ("1.0", "expected an integer"), ("\"1\"", "expected an integer")])
    func unsignedIntegersRefused(_ text: String, _ why: String) {
        #expect(Self.refusal(text) { (reader) throws(JSONReadError) in try reader.uint64() }?.contains(why) == true)
    }

    /// An integer's text as written, beyond any fixed-width range too; a fraction, an exponent or a string is refused.
    @Test(arguments: [("117270465679982593", "117270465679982593"), (" -0 ", "-0"), ("123456789012345678901234567890", "123456789012345678901234567890")])
    func integerTextIsReadAsWritten(_ text: String, _ value: String) throws {
        #expect(try JSONReader.read(text.utf8) { (reader) throws(JSONReadError) in try reader.integerText() } == value)
    }

    @Test(arguments: [("1.5", "expected an integer"), ("1e5", "expected an integer"), ("\"1\"", "expected an integer"), ("01", "leading zero")])
    func integerTextRefusesWhatIsNoInteger(_ text: String, _ why: String) {
        #expect(Self.refusal(text) { (reader) throws(JSONReadError) in try reader.integerText() }?.contains(why) == true)
    }

    /// Why a reader refuses a text, or nil when it reads it.
    static func refusal<Value>(_ text: String, _ read: (inout JSONReader) throws(JSONReadError) -> Value) -> String? {
        do {
            _ = try JSONReader.read(text.utf8, read)
            return nil
        } catch {
            return error.description
        }
    }

    /// A byte order mark is refused unless the reader is asked to skip it (what `JSONDecoder` read).
    @Test func aByteOrderMarkIsSkippedOnlyWhereAsked() throws {
        let text = "\u{FEFF}[1]"
        #expect(throws: JSONReadError.self) { try JSONReader.read(text.utf8) { (reader) throws(JSONReadError) in try JSONValue(reading: &reader) } }
        #expect(try JSONReader.read(text.utf8, skippingByteOrderMark: true) { (reader) throws(JSONReadError) in try JSONValue(reading: &reader) } == [1])
        #expect(try JSONValue.parse(text) == [1], "JSONValue.parse reads what JSONDecoder read")
    }

    // MARK: The grammar both readers share

    @Test(arguments: [
        ("0", 1, true), ("-0", 2, true), ("12", 2, true), ("1.5e-3", 6, false), ("0E9", 3, false), ("7,", 1, true), ("-12.0]", 5, false),
    ])
    func numbersEndWhereTheGrammarSays(_ text: String, _ end: Int, _ integral: Bool) throws {
        let bytes = Array(text.utf8)
        let scanned = try bytes.withUnsafeBufferPointer { (buffer) throws(JSONGrammar.NumberFailure) in try JSONGrammar.number(in: buffer, from: 0) }
        #expect(scanned.end == end && scanned.integral == integral)
    }

    @Test(arguments: [("-", 1), ("01", 1), ("1.", 2), ("1e", 2), ("1e+", 3), ("x", 0)])
    func malformedNumbersSayWhere(_ text: String, _ at: Int) {
        let bytes = Array(text.utf8)
        let failure = bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(JSONGrammar.NumberFailure) in try JSONGrammar.number(in: buffer, from: 0) }
        }
        guard case .failure(let error) = failure else {
            Issue.record("\(text) read as a number")
            return
        }
        #expect(error.at == at)
    }

    @Test func stringsAndTheirEscapes() throws {
        let bytes = Array(#"a\"b\u00e9\ud83d\ude00\n" tail"#.utf8)
        let (end, escaped) = try bytes.withUnsafeBufferPointer { (buffer) throws(JSONGrammar.StringFailure) in try JSONGrammar.string(in: buffer, from: 0) }
        #expect(escaped && bytes[end] == UInt8(ascii: "\""))
        var out: [UInt8] = []
        let whole = bytes[0..<end].withUnsafeBufferPointer { JSONGrammar.unescape($0, repairing: false) { out.append($0) } }
        #expect(whole && String(decoding: out, as: UTF8.self) == "a\"bé😀\n")
        // A lone surrogate: refused, or repaired when asked.
        let lone = Array(#"x\ud800y"#.utf8)
        out = []
        #expect(!lone.withUnsafeBufferPointer { JSONGrammar.unescape($0, repairing: false) { out.append($0) } })
        out = []
        #expect(lone.withUnsafeBufferPointer { JSONGrammar.unescape($0, repairing: true) { out.append($0) } })
        #expect(String(decoding: out, as: UTF8.self) == "x\u{FFFD}y")
    }

    @Test(arguments: [
        (#"ab"#, JSONGrammar.StringProblem.unterminated, 2), ("a\u{1}\"", .controlCharacter, 1), (#"a\q""#, .unknownEscape, 1), (#"\u12""#, .shortUnicodeEscape, 0),
    ])
    func malformedStringsSayWhat(_ text: String, _ problem: JSONGrammar.StringProblem, _ at: Int) {
        let bytes = Array(text.utf8)
        let failure = bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(JSONGrammar.StringFailure) in try JSONGrammar.string(in: buffer, from: 0) }
        }
        guard case .failure(let error) = failure else {
            Issue.record("\(text) read as a string")
            return
        }
        #expect(error.problem == problem && error.at == at)
    }
}
