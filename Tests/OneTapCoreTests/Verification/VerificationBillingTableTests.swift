import Testing
@testable import OneTapCore

/// `Data/verification-billing.csv`: every row, read independently, decides its (gateway, verdict); the `*` rows are
/// the default; malformed tables are refused naming file, line and column.
@Suite struct VerificationBillingTableTests {
    /// Issue 22: vendors bill `pass` and `reject`, not `unknown`; China Mobile's document marks 000 and 001 纳入计费次数.
    @Test func theBuiltInTableBillsPassAndRejectOnly() {
        for gateway in ["*", "cmcc", "a-gateway-without-rows"] {
            #expect(VerificationBillingTable.builtIn.entry(gateway: gateway, verdict: "pass")?.billed == true)
            #expect(VerificationBillingTable.builtIn.entry(gateway: gateway, verdict: "reject")?.billed == true)
            #expect(VerificationBillingTable.builtIn.entry(gateway: gateway, verdict: "unknown")?.billed == false)
        }
        #expect(VerificationBillingTable.builtIn.entry(gateway: "cmcc", verdict: "pass")?.gateway == "cmcc")
        #expect(VerificationBillingTable.builtIn.entry(gateway: "aliyun-pnvs", verdict: "pass")?.gateway == "*")
    }

    @Test func everyRowOfTheFileDecidesItsKey() {
        let rows = DataFile.rows("verification-billing.csv")
        #expect(rows.count == VerificationBillingTable.builtIn.entries.count)
        for row in rows {
            let entry = VerificationBillingTable.builtIn.entry(gateway: row["gateway"], verdict: row["verdict"])
            #expect(entry?.billed == (row["billed"] == "yes"), "\(row.testDescription)")
            #expect(entry?.line == row.line)
        }
    }

    @Test(arguments: [
        ("gateway,verdict,billed,source\n*,pass,yes,s\n*,reject,yes,s\n", "t.csv: no * row for unknown"),
        ("gateway,verdict,billed,source\n*,pass,yes,s\n*,reject,yes,s\n*,unknown,no,s\n*,pass,no,s\n", "t.csv:5"),
        ("gateway,verdict,billed,source\n*,maybe,yes,s\n", "t.csv:2: column 'verdict'"),
        ("gateway,verdict,billed,source\n*,pass,sometimes,s\n", "t.csv:2: column 'billed'"),
        ("gateway,verdict,billed,source\nCMCC,pass,yes,s\n", "t.csv:2: column 'gateway'"),
        ("gateway,verdict,source\n*,pass,s\n", "t.csv:1: column 'billed'"),
    ])
    func aMalformedTableIsRefusedWithItsPlace(text: String, place: String) {
        #expect {
            _ = try VerificationBillingTable(csv: text, file: "t.csv")
        } throws: { error in
            "\(error)".hasPrefix(place)
        }
    }
}
