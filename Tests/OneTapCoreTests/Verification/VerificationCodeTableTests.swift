import Testing
@testable import OneTapCore

/// `Data/verification-codes.csv`: every row, read independently, decides its (gateway, code); each gateway's `*` row
/// decides the codes it does not list; malformed tables are refused naming file, line and column. (The rows through
/// the providers: OneTapGatewaysTests' VerificationCodesEveryRowTests.)
@Suite struct VerificationCodeTableTests {
    static let header = "gateway,code,verdict,meaning_zh,meaning_en,source\n"
    /// The five `*` rows a table needs, after which a test appends its rows.
    static let stars = ["aliyun-pnvs", "cmcc", "jverification", "shanyan", "yidun"].map { "\($0),*,unknown,,could not tell,OneTap policy\n" }.joined()

    /// Issue 22 and the facts files: China Mobile's 000 pass and 001 reject; Aliyun's VerifyResult; every other code unknown.
    @Test func theBuiltInTableGivesTheFactsFilesVerdicts() {
        let table = VerificationCodeTable.builtIn
        #expect(table.entry(gateway: "cmcc", code: "000")?.verdict == "pass")
        #expect(table.entry(gateway: "cmcc", code: "001")?.verdict == "reject")
        #expect(table.entry(gateway: "cmcc", code: "001")?.meaningZH == "非本机号码（纳入计费次数，允许使用短验辅助）")
        #expect(table.entry(gateway: "cmcc", code: "606")?.verdict == "unknown")
        #expect(table.entry(gateway: "cmcc", code: "103511")?.code == "*")
        #expect(table.takesValue(gateway: "aliyun-pnvs", code: "OK"))
        #expect(!table.takesValue(gateway: "cmcc", code: "000"))
        #expect(table.values(gateway: "aliyun-pnvs", code: "OK") == ["PASS", "REJECT", "UNKNOWN"])
        #expect(table.values(gateway: "yidun", code: "200") == ["1", "2", "3"])
        #expect(table.entry(gateway: "aliyun-pnvs", code: "OK", value: "REJECT")?.verdict == "reject")
        #expect(table.entry(gateway: "aliyun-pnvs", code: "OK", value: "MAYBE") == nil)
        #expect(table.entry(gateway: "no-such-gateway", code: "000") == nil)
        for gateway in VerificationCodeTable.gateways {
            #expect(table.entry(gateway: gateway, code: "no-such-code")?.verdict == "unknown", "\(gateway)")
        }
    }

    @Test func everyRowOfTheFileDecidesItsKey() {
        let rows = DataFile.rows("verification-codes.csv")
        #expect(rows.count == VerificationCodeTable.builtIn.entries.count)
        for row in rows {
            let code = row["code"]
            let parts = code.split(separator: "/").map(String.init)
            let entry = parts.count == 2
                ? VerificationCodeTable.builtIn.entry(gateway: row["gateway"], code: parts[0], value: parts[1])
                : VerificationCodeTable.builtIn.entry(gateway: row["gateway"], code: code)
            #expect(entry?.verdict == row["verdict"], "\(row.testDescription)")
            #expect(entry?.meaningZH == row["meaning_zh"] && entry?.meaningEN == row["meaning_en"], "\(row.testDescription)")
            #expect(entry?.line == row.line)
        }
    }

    @Test func aTableWithItsStarRowsAndValuedCodesIsRead() throws {
        let table = try VerificationCodeTable(csv: Self.header + Self.stars + "yidun,200/1,pass,,p,s\nyidun,200/2,reject,,r,s\n", file: "t.csv")
        #expect(table.entry(gateway: "yidun", code: "200", value: "2")?.line == 8)
        #expect(table.entry(gateway: "yidun", code: "200", verdict: "unknown")?.code == "*")
    }

    @Test(arguments: [
        (header + "cmcc,*,unknown,,x,s\n", "t.csv: no * row for aliyun-pnvs"),
        (header + stars + "cmcc,000,maybe,,x,s\n", "t.csv:7: column 'verdict'"),
        (header + stars + "cmcc-2,000,pass,,x,s\n", "t.csv:7: column 'gateway'"),
        (header + stars + "cmcc,000,pass,,x,s\ncmcc,000,reject,,y,s\n", "t.csv:8: column 'code'"),
        (header + stars + "cmcc,*,reject,,x,s\n", "t.csv:7: column 'code'"),
        (header + stars + "cmcc,,pass,,x,s\n", "t.csv:7: column 'code'"),
        (header + stars + "cmcc,OK/,pass,,x,s\n", "t.csv:7: column 'code'"),
        (header + stars + "cmcc,000,pass,,,s\n", "t.csv:7: column 'meaning_en'"),
        (header + stars + "yidun,200/1,pass,,x,s\nyidun,200/4,pass,,y,s\n", "t.csv:8: column 'verdict'"),
        (header + stars + "yidun,200,pass,,x,s\nyidun,200/1,pass,,y,s\n", "t.csv:8: column 'code'"),
        (header + stars + "yidun,200/1,pass,,x,s\nyidun,200,pass,,y,s\n", "t.csv:8: column 'code'"),
        ("gateway,code,verdict,meaning_en,source\ncmcc,*,unknown,x,s\n", "t.csv:1: column 'meaning_zh'"),
        // A gateway's default that passes any unlisted code (an attacker's read of the tables: the result-code table's
        // default could wait on every code; this one could accept any number).
        (header + "cmcc,*,pass,,x,s\n" + stars.split(separator: "\n").filter { !$0.hasPrefix("cmcc,") }.map { $0 + "\n" }.joined(), "t.csv:2: column 'verdict'"),
    ])
    func aMalformedTableIsRefusedWithItsPlace(text: String, place: String) {
        #expect {
            _ = try VerificationCodeTable(csv: text, file: "t.csv")
        } throws: { error in
            "\(error)".hasPrefix(place)
        }
    }

    /// A code that came alone is never read as a code with its value: an answer whose bare code is `200/1` (Yidun's
    /// pass needs `data.result` 1 beside a `200`) takes the gateway's `*` row, not the pass of `200/1`.
    @Test(arguments: [("yidun", "200/1"), ("aliyun-pnvs", "OK/PASS"), ("yidun", "200/2")])
    func aBareCodeSpellingACodeAndItsValueTakesTheDefaultRow(_ gateway: String, _ code: String) throws {
        let table = VerificationCodeTable.builtIn
        #expect(table.entry(gateway: gateway, code: code)?.verdict == "unknown")
        #expect(table.entry(gateway: gateway, code: code)?.code == "*")
    }
}
