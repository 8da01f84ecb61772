import Foundation
import Testing
@testable import OneTapCore

/// The built-in tables are `Data/*.csv` embedded at build time: these tests prove the module carries
/// every file verbatim, and that each built-in table holds exactly the rows an independent reader of the
/// file finds (the every-row tests of each table check what each row says).
@Suite struct BuiltInTablesTests {
    static let dataFiles = [
        "exchange-codes.csv", "ipv6-prefixes.csv", "login-gate.csv", "login-quotas.csv", "merge-rules.csv", "number-segments.csv", "plmn.csv", "result-codes.csv", "routing-policy.csv", "sms-policy.csv",
        "token-lifetimes.csv", "verification-billing.csv", "verification-codes.csv",
    ]

    @Test func everyDataFileIsEmbedded() throws {
        let onDisk = try FileManager.default.contentsOfDirectory(atPath: Package.path("Data")).filter { $0.hasSuffix(".csv") }.sorted()
        #expect(onDisk == Self.dataFiles)
        #expect(EmbeddedTable.all.map(\.fileName) == onDisk)
    }

    @Test(arguments: dataFiles)
    func embeddedTextIsTheFileVerbatim(name: String) throws {
        let file = try String(contentsOfFile: Package.path("Data/\(name)"), encoding: .utf8)
        let embedded = try #require(EmbeddedTable.named(name))
        #expect(embedded.text + "\n" == file.replacingOccurrences(of: "\r\n", with: "\n"))
        #expect(embedded.path == "Data/\(name)")
    }

    /// Each built-in table has as many rows as the file, by the independent reader.
    @Test func rowCountsMatchTheFiles() {
        #expect(PLMNTable.builtIn.entries.count == DataFile.rows("plmn.csv").count)
        #expect(NumberSegmentTable.builtIn.segments.count == DataFile.rows("number-segments.csv").count)
        #expect(IPv6PrefixTable.builtIn.prefixes.count == DataFile.rows("ipv6-prefixes.csv").count)
        #expect(OutcomeTable.builtIn.entries.count == DataFile.rows("result-codes.csv").count)
        #expect(RoutingPolicy.builtIn.rules.count == DataFile.rows("routing-policy.csv").count)
        #expect(ExchangeCodeTable.builtIn.entries.count == DataFile.rows("exchange-codes.csv").count)
        #expect(TokenLifetimeTable.builtIn.entries.count == DataFile.rows("token-lifetimes.csv").count)
        #expect(SMSPolicy.builtIn.rules.count == DataFile.rows("sms-policy.csv").count)
        #expect(LoginGate.builtIn.rules.count == DataFile.rows("login-gate.csv").count)
        #expect(MergeRules.builtIn.rules.count == DataFile.rows("merge-rules.csv").count)
        #expect(LoginQuotaPolicy.builtIn.rules.count == DataFile.rows("login-quotas.csv").count)
        #expect(VerificationBillingTable.builtIn.entries.count == DataFile.rows("verification-billing.csv").count)
        #expect(VerificationCodeTable.builtIn.entries.count == DataFile.rows("verification-codes.csv").count)
    }

    /// The sizes the tables had when they were last reviewed: a row lost or gained by accident shows here.
    @Test func rowCountsAreTheReviewedOnes() {
        #expect(DataFile.rows("plmn.csv").count == 13)
        #expect(DataFile.rows("routing-policy.csv").count == 13)
        #expect(DataFile.rows("number-segments.csv").count >= 70)
        #expect(DataFile.rows("result-codes.csv").count >= 200)
    }

    @Test(arguments: dataFiles)
    func everyRowCitesItsSource(name: String) throws {
        let rows = DataFile.rows(name)
        #expect(!rows.isEmpty)
        for row in rows {
            #expect(row.problem == nil, "\(row.testDescription)")
            #expect(!row["source"].isEmpty, "\(name):\(row.line) has no source")
        }
    }

    /// The file names the tables declare are the files in `Data/`.
    @Test func tablesNameTheirFiles() {
        #expect([
            PLMNTable.fileName, NumberSegmentTable.fileName, IPv6PrefixTable.fileName, OutcomeTable.fileName, RoutingPolicy.fileName,
            ExchangeCodeTable.fileName, TokenLifetimeTable.fileName, SMSPolicy.fileName, LoginGate.fileName,
            MergeRules.fileName, LoginQuotaPolicy.fileName, VerificationBillingTable.fileName, VerificationCodeTable.fileName,
        ].sorted() == Self.dataFiles)
    }
}
