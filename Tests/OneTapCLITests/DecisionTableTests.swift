import Foundation
import OneTap
@testable import OneTapCLI
import Testing

/// The decision tables in DecisionTables/: adding a case is adding a line.
@Suite struct DecisionTableTests {
    static let files: [String] = {
        let directory = Package.path("Tests/OneTapCLITests/DecisionTables")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasSuffix(".table") }.sorted().map { directory + "/" + $0 }
    }()

    @Test func tablesExist() {
        #expect(Self.files.count >= 2)
    }

    @Test(arguments: files)
    func everyCasePasses(file: String) async throws {
        let table = try DecisionTable(contentsOf: file)
        #expect(!table.cases.isEmpty)
        let engine = LoginDecisionEngine()
        for testCase in table.cases {
            let problems = await DecisionTable.evaluate(testCase, engine: engine)
            #expect(problems.isEmpty, "\(testCase.file):\(testCase.line): \(testCase.text): \(problems)")
        }
    }

    @Test(arguments: [
        ("route --plmn 46000", 1, "this line has no =>"),
        ("walk --plmn 46000 => flows=sms", 1, "a case starts with route, outcome or simulate"),
        ("simulate --plmn 46000 --mobile 10x => outcome=success", 1, "invalid result code"),
        ("simulate --hang telecom => outcome=success", 1, "option --hang takes a flow"),
        ("simulate --plmn 46000 => action=success", 1, "simulate cases expect outcome, flow, steps, alerts"),
        ("route --plmn 46000 =>", 1, "a case must expect something"),
        ("route --plmn 46000 => flows", 1, "is not key=value"),
        ("route --plmn 46000 => action=success", 1, "route cases expect carrier, flows, reason, evidence, condition"),
        ("route --plmn 4600x => flows=sms", 1, "invalid PLMN"),
        ("route --bogus => flows=sms", 1, "unknown option '--bogus'"),
        ("# ok\noutcome tianyi => action=success", 2, "outcome cases are"),
        ("outcome tianyi 1.5 => action=success", 1, "invalid result code"),
        ("route => flows=sms flows=sms", 1, "flows is expected twice"),
    ])
    func malformedTablesNameTheLine(text: String, line: Int, message: String) {
        #expect {
            try DecisionTable(text: text, file: "t.table")
        } throws: { error in
            let error = error as! TableError
            return error.line == line && error.file == "t.table" && error.message.contains(message)
        }
    }

    @Test func failingCasesAreReportedWithExpectedAndActual() async throws {
        let table = try DecisionTable(text: "route --plmn 46000 => flows=tianyi,sms reason=policy\noutcome mobile 103000 => action=success\n", file: "t")
        let engine = LoginDecisionEngine()
        #expect(await DecisionTable.evaluate(table.cases[0], engine: engine) == ["flows: expected tianyi,sms, got mobile,sms"])
        #expect(await DecisionTable.evaluate(table.cases[1], engine: engine).isEmpty)
    }

    @Test func checkCommandEndToEnd() throws {
        let run = try Binary.run(["check"] + Self.files)
        #expect(run.status == 0)
        #expect(run.stdout.hasSuffix(" passed, 0 failed\n"))
        #expect(run.stderr == "")
    }

    @Test func checkCommandReportsFailuresWithExit1() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("onetap-\(UUID().uuidString).table")
        try "route --plmn 46000 => flows=tianyi,sms\nroute --no-sim => flows=sms\n".write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let run = try Binary.run(["check", file.path])
        #expect(run.status == 1)
        #expect(run.stdout == """
            FAIL \(file.path):1: route --plmn 46000 => flows=tianyi,sms
                 flows: expected tianyi,sms, got mobile,sms
            1 passed, 1 failed

            """)
    }

    @Test func checkCommandMalformedIsExit65AndUnreadableIs66() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("onetap-\(UUID().uuidString).table")
        try "\n\nroute --plmn 46000 => flows\n".write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let malformed = try Binary.run(["check", file.path])
        #expect(malformed.status == 65)
        #expect(malformed.stderr == "onetap: error: \(file.path):3: expectation 'flows' is not key=value\n")
        let missing = try Binary.run(["check", "/nonexistent.table"])
        #expect(missing.status == 66)
        #expect(missing.stderr == "onetap: error: /nonexistent.table: cannot read the file: No such file or directory\n")
    }
}
