import Foundation
import Testing
@testable import OneTap

/// The built-in tables are `Data/*.csv` embedded at build time: these tests prove they say the same as
/// the files, and that replacement files load with errors that name file and line.
@Suite struct BuiltInTablesTests {
    static let dataFiles = ["plmn.csv", "number-segments.csv", "ipv6-prefixes.csv", "result-codes.csv", "routing-policy.csv"]

    @Test func everyDataFileIsEmbedded() throws {
        let onDisk = try FileManager.default.contentsOfDirectory(atPath: Package.path("Data")).filter { $0.hasSuffix(".csv") }.sorted()
        #expect(onDisk == Self.dataFiles.sorted())
        #expect(EmbeddedTable.all.map(\.fileName) == onDisk)
    }

    @Test(arguments: dataFiles)
    func embeddedTextIsTheFileVerbatim(name: String) throws {
        let file = try String(contentsOfFile: Package.path("Data/\(name)"), encoding: .utf8)
        let embedded = try #require(EmbeddedTable.named(name))
        #expect(embedded.text + "\n" == file.replacingOccurrences(of: "\r\n", with: "\n"))
        #expect(embedded.path == "Data/\(name)")
    }

    @Test func plmnTableEqualsDataFile() throws {
        #expect(try PLMNTable(contentsOf: Package.path("Data/plmn.csv")).entries == PLMNTable.builtIn.entries)
    }

    @Test func segmentTableEqualsDataFile() throws {
        #expect(try NumberSegmentTable(contentsOf: Package.path("Data/number-segments.csv")).segments == NumberSegmentTable.builtIn.segments)
    }

    @Test func ipv6TableEqualsDataFile() throws {
        #expect(try IPv6PrefixTable(contentsOf: Package.path("Data/ipv6-prefixes.csv")).prefixes == IPv6PrefixTable.builtIn.prefixes)
    }

    @Test func outcomeTableEqualsDataFile() throws {
        #expect(try OutcomeTable(contentsOf: Package.path("Data/result-codes.csv")).entries == OutcomeTable.builtIn.entries)
    }

    @Test func routingPolicyEqualsDataFile() throws {
        #expect(try RoutingPolicy(contentsOf: Package.path("Data/routing-policy.csv")).rules == RoutingPolicy.builtIn.rules)
    }

    @Test(arguments: dataFiles)
    func everyRowCitesItsSource(name: String) throws {
        let text = try #require(EmbeddedTable.named(name)).text
        let columns = text.split(separator: "\n").first { !$0.hasPrefix("#") }!.split(separator: ",").map(String.init)
        let table = try CSVTable(text: text, file: name, columns: columns)
        let source = try #require(columns.firstIndex(of: "source"))
        #expect(!table.rows.isEmpty)
        for row in table.rows {
            #expect(!row[source].isEmpty, "\(name):\(row.line) has no source")
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
        defer { try? FileManager.default.removeItem(at: directory) }
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
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("plmn.csv").path
        try "mcc,mnc,carrier,note,source\n460,00,mobile,n,s\n460,99,unicom,a new code,s\n".write(toFile: path, atomically: true, encoding: .utf8)
        let table = try PLMNTable(contentsOf: path)
        #expect(table.carrier(for: try PLMN("46099")) == .unicom)
        #expect(table.carrier(for: try PLMN("46001")) == .unknown)
    }
}
