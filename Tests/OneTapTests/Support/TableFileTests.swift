import Foundation
import Testing
@testable import OneTap

/// Replacement tables read from disk: `init(contentsOf:)` for every table, and `DecisionTables(directory:)`.
@Suite struct TableFileTests {
    @Test func aDirectoryReplacesTheTablesItHolds() throws {
        let directory = try Package.temporaryDirectory()
        defer { removeTemporary(directory) }
        try "mcc,mnc,carrier,note,source\n460,00,mobile,n,s\n460,99,telecom,new code,s\n".write(
            to: directory.appendingPathComponent("plmn.csv"), atomically: true, encoding: .utf8)
        let tables = try DecisionTables(directory: directory.path)
        #expect(tables.plmn.carrier(for: try PLMN("46099")) == .telecom)
        // Not in the directory: built in.
        #expect(tables.segments.carrier(for: try PhoneNumber("15300000000")) == .telecom)
        #expect(tables.outcomes.action(for: .tianyi, code: "-8994014") == .fallback)
        let engine = LoginDecisionEngine(tables: tables)
        #expect(Array(engine.plan(for: DeviceSnapshot(plmn: try PLMN("46099"))).flows) == [.tianyi, .sms])
    }

    @Test func aMalformedReplacementNamesItsFileAndLine() throws {
        let directory = try Package.temporaryDirectory()
        defer { removeTemporary(directory) }
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
        defer { removeTemporary(directory) }
        let tables = try DecisionTables(directory: directory.path)
        #expect(tables.plmn.carrier(for: try PLMN("46011")) == .telecom && tables.plmn.entries.count == PLMNTable.builtIn.entries.count)
        #expect {
            try DecisionTables(directory: "/nonexistent-onetap-directory")
        } throws: { error in
            let error = error as! TableError
            return error.kind == .unreadable && error.description == "/nonexistent-onetap-directory: not a readable directory"
        }
    }

    @Test func unreadableReplacementFileIsReported() {
        #expect {
            try PLMNTable(contentsOf: "/nonexistent/plmn.csv")
        } throws: { error in
            let error = error as! TableError
            return error.kind == .unreadable && error.file == "/nonexistent/plmn.csv"
                && error.description == "/nonexistent/plmn.csv: cannot read the file: No such file or directory"
        }
    }

    @Test func invalidUTF8ReplacementFileNamesTheLine() throws {
        let directory = try Package.temporaryDirectory()
        defer { removeTemporary(directory) }
        let path = directory.appendingPathComponent("plmn.csv").path
        var bytes = Array("mcc,mnc,carrier,note,source\n460,00,mobile,x,s\n".utf8)
        bytes.insert(0xFF, at: bytes.count - 3)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect {
            try PLMNTable(contentsOf: path)
        } throws: { error in
            let error = error as! TableError
            return error.kind == .encoding && error.line == 2
        }
    }

    @Test func replacementFileLoadsAndWins() throws {
        let directory = try Package.temporaryDirectory()
        defer { removeTemporary(directory) }
        let path = directory.appendingPathComponent("plmn.csv").path
        try "mcc,mnc,carrier,note,source\n460,00,mobile,n,s\n460,99,unicom,a new code,s\n".write(toFile: path, atomically: true, encoding: .utf8)
        let table = try PLMNTable(contentsOf: path)
        #expect(table.carrier(for: try PLMN("46099")) == .unicom)
        #expect(table.carrier(for: try PLMN("46001")) == .unknown)
    }

    /// Every table reads a replacement of its own `Data/` file, under that file's name.
    @Test func everyTableReadsItsDataFile() throws {
        #expect(try PLMNTable(contentsOf: Package.path("Data/plmn.csv")).entries.count == 13)
        #expect(try NumberSegmentTable(contentsOf: Package.path("Data/number-segments.csv")).carrier(for: try PhoneNumber("13800138000")) == .mobile)
        #expect(try IPv6PrefixTable(contentsOf: Package.path("Data/ipv6-prefixes.csv")).cellularCarrier(for: try IPAddress("240e:400::1")) == .telecom)
        #expect(try OutcomeTable(contentsOf: Package.path("Data/result-codes.csv")).action(for: .mobile, code: "103000") == .success)
        #expect(Array(try RoutingPolicy(contentsOf: Package.path("Data/routing-policy.csv")).rule(for: .carrier(.telecom)).flows) == [.tianyi, .sms])
    }
}
