import Foundation
import Testing
@testable import OneTap

@Suite struct DecisionTablesTests {
    @Test func aDirectoryReplacesTheTablesItHolds() throws {
        let directory = try Package.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try "mcc,mnc,carrier,note,source\n460,00,mobile,n,s\n460,99,telecom,new code,s\n".write(
            to: directory.appendingPathComponent("plmn.csv"), atomically: true, encoding: .utf8)
        let tables = try DecisionTables(directory: directory.path)
        #expect(tables.plmn.carrier(for: try PLMN("46099")) == .telecom)
        #expect(tables.segments.segments == NumberSegmentTable.builtIn.segments)   // not in the directory: built in
        #expect(tables.outcomes.entries == OutcomeTable.builtIn.entries)
        let engine = LoginDecisionEngine(tables: tables)
        #expect(Array(engine.plan(for: DeviceSnapshot(plmn: try PLMN("46099"))).flows) == [.tianyi, .sms])
    }

    @Test func aMalformedReplacementNamesItsFileAndLine() throws {
        let directory = try Package.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("result-codes.csv").path
        try "flow,code,action,meaning_zh,meaning_en,source\nmobile,1,win,a,b,s\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect {
            try DecisionTables(directory: directory.path)
        } throws: { error in
            let error = error as! TableError
            return error.file == path && error.line == 2 && error.column == "action"
        }
    }

    @Test func anEmptyDirectoryKeepsEverythingBuiltInAndAMissingOneIsAnError() throws {
        let directory = try Package.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(try DecisionTables(directory: directory.path).plmn.entries == PLMNTable.builtIn.entries)
        #expect {
            try DecisionTables(directory: "/nonexistent-onetap-directory")
        } throws: { error in
            let error = error as! TableError
            return error.kind == .unreadable && error.description == "/nonexistent-onetap-directory: not a readable directory"
        }
    }
}
