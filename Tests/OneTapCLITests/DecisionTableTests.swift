import Foundation
import OneTap
@testable import OneTapCLI
import Testing

/// The decision tables in DecisionTables/: adding a case is adding a line.
@Suite struct DecisionTableTests {
    static let directory = Package.path("Tests/OneTapCLITests/DecisionTables")

    /// The tables and transcripts in DecisionTables/, or the error that listing it gave (a missing folder
    /// fails `tablesExist` rather than test nothing).
    static let listing: Result<[String], any Error> = Result {
        try FileManager.default.contentsOfDirectory(atPath: directory)
            .filter { $0.hasSuffix(".table") || $0.hasSuffix(".transcript") }.sorted().map { directory + "/" + $0 }
    }

    static var files: [String] { if case .success(let files) = listing { files } else { [] } }

    @Test func tablesExist() throws {
        let files = try Self.listing.get()
        #expect(files.filter { $0.hasSuffix(".table") }.count >= 3)
        #expect(files.filter { $0.hasSuffix(".transcript") }.count >= 1)
    }

    @Test(arguments: files)
    func everyCasePasses(file: String) throws {
        let table = try DecisionTable(contentsOf: file)
        #expect(!table.cases.isEmpty)
        #expect(table.problems.isEmpty, "\(table.problems)")
        let engine = LoginDecisionEngine()
        for testCase in table.cases {
            let problems = DecisionTable.evaluate(testCase, engine: engine)
            #expect(problems.isEmpty, "\(testCase.file):\(testCase.line): \(testCase.text): \(problems)")
        }
    }

    @Test(arguments: [
        ("route --plmn 46000", 1, "this line has no =>"),
        ("walk --plmn 46000 => flows=sms", 1, "a case starts with route, outcome or simulate"),
        ("simulate --plmn 46000 --mobile 1,,2 => outcome=success", 1, "invalid result code"),
        ("simulate --hang telecom => outcome=success", 1, "option --hang takes a flow"),
        ("simulate --plmn 46000 => action=success", 1, "simulate cases expect outcome, flow, steps, alerts"),
        ("route --plmn 46000 =>", 1, "a case must expect something"),
        ("route --plmn 46000 => flows", 1, "is not key=value"),
        ("route --plmn 46000 => action=success", 1, "route cases expect carrier, flows, reason, evidence, condition"),
        ("route --plmn 4600x => flows=sms", 1, "invalid PLMN"),
        ("route --bogus => flows=sms", 1, "unknown option '--bogus'"),
        ("# ok\noutcome tianyi => action=success", 2, "outcome cases are"),
        ("outcome tianyi 1 2 => action=success", 1, "outcome cases are"),
        ("route => flows=sms flows=sms", 1, "flows is expected twice"),
    ])
    func aLineThatCannotRunFailsByItsLineAndTheRestRuns(text: String, line: Int, message: String) throws {
        let table = try DecisionTable(text: text + "\nroute --no-sim => flows=sms", file: "t.table")
        #expect(table.problems.count == 1)
        #expect(table.problems.first?.line == line && table.problems.first?.file == "t.table")
        #expect(table.problems.first?.message.contains(message) == true, "\(table.problems)")
        #expect(table.cases.count == 1)   // the good line still runs
    }

    /// A file's lines, found one at a time (`TextLines`: split up front, 8 MiB of line breaks took 310 MB to check, 40 MB
    /// now): numbered from 1, trimmed of spaces, tabs and carriage returns at their ends, an empty last line numbered too.
    @Test(arguments: [
        ("", ["1:"]),
        ("  x \t\r\n\ty\n", ["1:x", "2:y", "3:"]),
        ("a\rb\r\r\n", ["1:a\rb", "2:"]),
    ])
    func linesAreNumberedAndTrimmed(text: String, expected: [String]) {
        #expect(DecisionTable.lines(of: text).map { "\($0.number):\($0.line)" } == expected)
    }

    @Test func anEmptyTableIsAnError() {
        for text in ["", "# only a comment\n\n"] {
            #expect {
                try DecisionTable(text: text, file: "empty.table")
            } throws: { error in
                let error = error as! TableError
                return error.kind == .incomplete && error.description == "empty.table: the table has no cases; an empty table would pass without testing anything"
            }
        }
    }

    @Test func failingCasesAreReportedWithExpectedAndActual() async throws {
        let table = try DecisionTable(text: "route --plmn 46000 => flows=tianyi,sms reason=policy\noutcome mobile 103000 => action=success\n", file: "t")
        let engine = LoginDecisionEngine()
        #expect(DecisionTable.evaluate(table.cases[0], engine: engine) == ["flows: expected tianyi,sms, got mobile,sms"])
        #expect(DecisionTable.evaluate(table.cases[1], engine: engine).isEmpty)
    }

    /// A transcript's first two lines, each with its expectation (the second's version wrong: it is 2).
    static let transcriptHead = """
        {"sim":"present","plmn":"46000"}
        => {"next":"run","flow":"mobile","attempt":1,"version":1}
        {"flow":"mobile","code":"102101"}
        => {"next":"sms","version":3}

        """

    @Test func transcriptExpectationsAreCheckedLineByLine() async throws {
        let text = Self.transcriptHead + "=> not json"
        let table = try DecisionTable(transcript: text, file: "t.transcript")
        #expect(table.cases.map(\.line) == [2, 4])
        #expect(table.problems.map(\.line) == [5])
        let engine = LoginDecisionEngine()
        #expect(DecisionTable.evaluate(table.cases[0], engine: engine).isEmpty)
        #expect(DecisionTable.evaluate(table.cases[1], engine: engine) == ["version: expected 3, got 2"])
    }

    /// A table's cases evaluated in order give what each evaluated alone gives; a long transcript's expectations
    /// (20,000 here) share one copy of its lines and are answered in one replay (an attacker's read: each held a
    /// copy of every line before it, and replayed them, so 100,000 asked for tens of gigabytes).
    @Test func aTranscriptsExpectationsAreAnsweredInOrderFromOneReplay() async throws {
        let text = Self.transcriptHead + String(repeating: "=> {\"version\":2}\n", count: 20_000)
        let table = try DecisionTable(transcript: text, file: "long.transcript")
        #expect(table.cases.count == 20_002)
        let engine = LoginDecisionEngine()
        let results = DecisionTable.evaluate(table.cases, engine: engine)
        #expect(results.count == 20_002)
        #expect(results[0].isEmpty && results[1] == ["version: expected 3, got 2"])
        #expect(results.dropFirst(2).allSatisfy { $0.isEmpty }, "every later expectation is about the last record, version 2")
        for index in [0, 1, 2, 20_001] { #expect(DecisionTable.evaluate(table.cases[index], engine: engine) == results[index]) }
    }

    @Test func checkCommandEndToEnd() async throws {
        let run = try await Binary.run(["check"] + Self.files)
        #expect(run.status == 0)
        #expect(run.stdout.hasSuffix(" passed, 0 failed\n"))
        #expect(run.stderr == "")
    }

    @Test func checkCommandReportsFailuresWithExit1() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("onetap-\(UUID().uuidString).table")
        try "route --plmn 46000 => flows=tianyi,sms\nroute --no-sim => flows=sms\n".write(to: file, atomically: true, encoding: .utf8)
        defer { removeTemporary(file) }
        let run = try await Binary.run(["check", file.path])
        #expect(run.status == 1)
        #expect(run.stdout == """
            FAIL \(file.path):1: route --plmn 46000 => flows=tianyi,sms
                 flows: expected tianyi,sms, got mobile,sms
            1 passed, 1 failed

            """)
    }

    /// A line that cannot run fails by its line (exit 1) and the rest run; an empty table is exit 65; an
    /// unreadable one 66.
    @Test func checkCommandMalformedLinesFailByLineEmptyIs65UnreadableIs66() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("onetap-\(UUID().uuidString).table")
        try "\n\nroute --plmn 46000 => flows\nroute --no-sim => flows=sms\n".write(to: file, atomically: true, encoding: .utf8)
        defer { removeTemporary(file) }
        let malformed = try await Binary.run(["check", file.path])
        #expect(malformed.status == 1)
        #expect(malformed.stdout == """
            FAIL \(file.path):3: route --plmn 46000 => flows
                 cannot run: expectation 'flows' is not key=value
            1 passed, 1 failed

            """)
        #expect(malformed.stderr == "")
        try "# nothing\n".write(to: file, atomically: true, encoding: .utf8)
        let empty = try await Binary.run(["check", file.path])
        #expect(empty.status == 65)
        #expect(empty.stderr == "onetap: error: \(file.path): the table has no cases; an empty table would pass without testing anything\n")
        let missing = try await Binary.run(["check", "/nonexistent.table"])
        #expect(missing.status == 66)
        #expect(missing.stderr == "onetap: error: /nonexistent.table: cannot read the file: No such file or directory\n")
    }

    /// A transcript's line that is neither a snapshot nor a report fails by its line, wherever it stands (an attacker's
    /// read: a table whose malformed lines came after its last expectation, or before one whose fields they did not
    /// touch, passed, exit 0). Its text is not printed (it may be a secret from a file named by mistake).
    @Test func aTranscriptsMalformedLinesFailByLine() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("onetap-\(UUID().uuidString).transcript")
        try """
            {"sim":"present","plmn":"46000"}
            => {"next":"run","flow":"mobile"}
            SECRET-TOKEN-abc
            {"flow":"mobile","code":"102101"}
            => {"next":"sms"}
            {"flow":"sms","code":"SECRET-CODE-123"

            """.write(to: file, atomically: true, encoding: .utf8)
        defer { removeTemporary(file) }
        let run = try await Binary.run(["check", file.path])
        #expect(run.status == 1)
        #expect(run.stdout == """
            FAIL \(file.path):3
                 cannot run: neither a snapshot nor a report (its text is not shown; 'onetap session' on the file says why)
            FAIL \(file.path):6
                 cannot run: neither a snapshot nor a report (its text is not shown; 'onetap session' on the file says why)
            2 passed, 2 failed

            """)
        #expect(run.stderr == "")
        #expect(!run.stdout.contains("SECRET"))
    }

    /// A line that does not start as a case is never printed (an attacker's read: a contributed table linked to a
    /// key file or `.env` printed the secret into a public CI log, line by line); the reason still names the line.
    @Test func aLineThatIsNoCaseIsNotEchoed() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("onetap-\(UUID().uuidString).table")
        try "-----BEGIN PRIVATE KEY-----\nDB_PASSWORD=hunter2 => x=y\nroute --no-sim => flows=sms\n".write(to: file, atomically: true, encoding: .utf8)
        defer { removeTemporary(file) }
        let text = try await Binary.run(["check", file.path])
        #expect(text.status == 1)
        #expect(text.stdout == """
            FAIL \(file.path):1
                 cannot run: a case starts with route, outcome or simulate; this line does not (its text is not shown)
            FAIL \(file.path):2
                 cannot run: a case starts with route, outcome or simulate; this line does not (its text is not shown)
            1 passed, 2 failed

            """)
        #expect(text.stderr == "")
        let json = try await Binary.run(["check", file.path, "--json"])
        #expect(json.status == 1)
        #expect(json.lines == [
            #"{"file":"\#(file.path)","line":1,"case":null,"passed":false,"problems":["cannot run: a case starts with route, outcome or simulate; this line does not (its text is not shown)"]}"#,
            #"{"file":"\#(file.path)","line":2,"case":null,"passed":false,"problems":["cannot run: a case starts with route, outcome or simulate; this line does not (its text is not shown)"]}"#,
            #"{"file":"\#(file.path)","line":3,"case":"route --no-sim => flows=sms","passed":true,"problems":[]}"#,
            #"{"passed":1,"failed":2}"#,
        ])
    }

    @Test func checkCommandJSON() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("onetap-\(UUID().uuidString).table")
        try "route --plmn 46000 => flows=tianyi,sms\nroute --no-sim => flows=sms\n".write(to: file, atomically: true, encoding: .utf8)
        defer { removeTemporary(file) }
        let run = try await Binary.run(["check", file.path, "--json"])
        #expect(run.status == 1)
        #expect(run.lines == [
            #"{"file":"\#(file.path)","line":1,"case":"route --plmn 46000 => flows=tianyi,sms","passed":false,"problems":["flows: expected tianyi,sms, got mobile,sms"]}"#,
            #"{"file":"\#(file.path)","line":2,"case":"route --no-sim => flows=sms","passed":true,"problems":[]}"#,
            #"{"passed":1,"failed":1}"#,
        ])
    }
}
