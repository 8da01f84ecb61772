import Testing
@testable import OneTapCore

@Suite struct OutcomeTableTests {
    let table = OutcomeTable.builtIn

    /// Every row of Data/result-codes.csv, read independently, classifies to the action it names, given
    /// as the SDK's text with and without surrounding blanks.
    @Test(arguments: DataFile.rows("result-codes.csv"))
    func everyRowClassifies(row: DataRow) throws {
        try #require(row.problem == nil)
        let flow = try #require(LoginFlow(rawValue: row["flow"]))
        let action = try #require(OutcomeAction(rawValue: row["action"]))
        guard row["code"] != "*" else {
            #expect(table.defaultEntry(for: flow).action == action)
            return
        }
        #expect(table.action(for: flow, code: row["code"]) == action)
        #expect(table.action(for: flow, code: " \(row["code"]) ") == action)
        let outcome = table.outcome(for: flow, code: try ResultCode(row["code"]))
        #expect(outcome.action == action && !outcome.isDefault)
        #expect(outcome.meaningEN == row["meaning_en"] && outcome.meaningZH == row["meaning_zh"] && outcome.source == row["source"])
    }

    /// The codes the issue names, independently of the file.
    @Test(arguments: [
        (LoginFlow.mobile, ResultCode(103000), OutcomeAction.success),
        (.mobile, 200020, .cancelled), (.mobile, 102121, .cancelled), (.mobile, 200060, .switch),
        (.mobile, 102101, .fallback), (.mobile, 102102, .fallback), (.mobile, 102103, .fallback), (.mobile, 200022, .fallback),
        (.mobile, 200027, .fallback), (.mobile, 200028, .fallback), (.mobile, 200010, .fallback), (.mobile, 105002, .fallback),
        (.mobile, 103111, .fallback), (.mobile, 200023, .retry), (.mobile, 102507, .retry), (.mobile, 103101, .misconfigured),
        (.mobile, 103102, .misconfigured), (.mobile, 103119, .misconfigured), (.mobile, 103511, .misconfigured),
        (.tianyi, 0, .success), (.tianyi, -8994014, .fallback), (.tianyi, -8001, .fallback), (.tianyi, -8004, .fallback),
        (.tianyi, -8010, .fallback), (.tianyi, -720001, .fallback), (.tianyi, -720002, .fallback), (.tianyi, -8003, .retry),
        (.tianyi, -64, .misconfigured), (.tianyi, -10002, .misconfigured), (.tianyi, -20005, .misconfigured),
        (.unicom, 0, .success), (.sms, 0, .success),
    ])
    func codesTheIssueNames(flow: LoginFlow, code: ResultCode, action: OutcomeAction) {
        #expect(table.action(for: flow, code: code) == action)
    }

    /// Unknown codes are never an error: each flow's default answers (seed 002: mobile → SMS; tianyi → show).
    @Test(arguments: [
        (LoginFlow.mobile, OutcomeAction.fallback), (.tianyi, .failed), (.unicom, .fallback), (.sms, .failed),
    ])
    func unknownCodesGetTheFlowsDefault(flow: LoginFlow, action: OutcomeAction) {
        #expect(table.action(for: flow, code: 987_654_321) == action)
        #expect(table.action(for: flow, code: "not a code") == action)
        #expect(table.action(for: flow, code: "") == action)
        let outcome = table.outcome(for: flow, code: 987_654_321)
        #expect(outcome.isDefault && outcome.code == 987_654_321 && outcome.action == action)
    }

    @Test func sameCodeDiffersByFlow() {
        #expect(table.action(for: .tianyi, code: 0) == .success)
        #expect(table.action(for: .mobile, code: 0) == .fallback)
    }

    @Test(arguments: [
        ("flow,code,action,meaning_zh,meaning_en,source\nmobile,1,success,a,b,s\n", TableError.Kind.incomplete, 0),
        ("flow,code,action,meaning_zh,meaning_en,source\nmobil,1,success,a,b,s\n", .invalidValue, 2),
        ("flow,code,action,meaning_zh,meaning_en,source\nmobile,1,win,a,b,s\n", .invalidValue, 2),
        ("flow,code,action,meaning_zh,meaning_en,source\nmobile,\"\",success,a,b,s\n", .invalidValue, 2),
        ("flow,code,action,meaning_zh,meaning_en,source\nmobile,\(String(repeating: "7", count: 65)),success,a,b,s\n", .invalidValue, 2),
        ("flow,code,action,meaning_zh,meaning_en,source\nmobile,1,success,,,s\n", .invalidValue, 2),
        ("flow,code,action,meaning_zh,meaning_en,source\nmobile,1,success,a,b,s\nmobile,1,failed,a,b,s\n", .duplicateKey, 3),
        ("flow,code,action,meaning_zh,meaning_en,source\nmobile,*,fallback,a,b,s\nmobile,*,failed,a,b,s\n", .duplicateKey, 3),
        // One code written two ways (a quoted space, which the code's reading trims): the first row answered for it
        // while the success code was read from the second.
        ("flow,code,action,meaning_zh,meaning_en,source\nmobile,\"103000 \",fallback,a,b,s\nmobile,103000,success,a,b,s\n", .duplicateKey, 3),
        ("flow,code,action,meaning_zh,meaning_en,source\nmobile,103000,success,a,b,s\nmobile,\" 103000\",fallback,a,b,s\n", .duplicateKey, 3),
        // A flow's default that waits on every unlisted code (an unknown error kept the attempt until it timed out), or
        // that takes any unlisted code for a success (an attacker's read).
        ("flow,code,action,meaning_zh,meaning_en,source\nmobile,*,progress,a,b,s\ntianyi,*,failed,a,b,s\n", .invalidValue, 2),
        ("flow,code,action,meaning_zh,meaning_en,source\nmobile,103000,success,a,b,s\ntianyi,*,success,a,b,s\n", .invalidValue, 3),
    ])
    func malformedTables(text: String, kind: TableError.Kind, line: Int) {
        #expect {
            try OutcomeTable(csv: text, file: "r.csv")
        } throws: { error in
            let error = error as! TableError
            return error.kind == kind && error.line == line
        }
    }

    @Test func outcomeDescription() {
        let outcome = table.outcome(for: .tianyi, code: 123_456_789)
        #expect(outcome.description.hasPrefix("tianyi 123456789 → failed: "))
        #expect(outcome.description.hasSuffix("(unlisted code: the flow's default)"))
    }
}
