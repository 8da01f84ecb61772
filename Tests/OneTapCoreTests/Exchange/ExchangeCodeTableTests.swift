import Foundation
import Testing
@testable import OneTapCore

@Suite struct ExchangeCodeTableTests {
    let table = ExchangeCodeTable.builtIn

    /// Every row of Data/exchange-codes.csv, read independently, classifies as the row says; a `*` row
    /// answers for a code no row lists.
    @Test(arguments: DataFile.rows("exchange-codes.csv"))
    func everyRowClassifies(row: DataRow) throws {
        try #require(row.problem == nil)
        let flow = try #require(LoginFlow(rawValue: row["flow"]))
        let action = try #require(OutcomeAction(rawValue: row["action"]))
        let alert = row["alert"] == "yes"
        #expect(row["alert"] == "yes" || row["alert"] == "no", "alert \(row["alert"])")
        let gateway = row["gateway"]
        let entry: ExchangeCodeTable.Entry
        if row["code"] == "*" {
            entry = table.entry(for: flow, gateway: gateway, code: "987654321")
            #expect(entry.code == nil)
        } else {
            let code = try ResultCode(row["code"])
            entry = table.entry(for: flow, gateway: gateway, code: code)
            #expect(entry.code == code)
            #expect(table.entry(for: flow, gateway: gateway, code: try ResultCode(" \(row["code"]) ")).line == row.line)
        }
        #expect(entry.gateway == gateway)
        #expect(entry.flow == flow && entry.action == action && entry.alert == alert)
        #expect(entry.meaningZH == row["meaning_zh"] && entry.meaningEN == row["meaning_en"] && entry.source == row["source"])
        #expect(entry.line == row.line)
    }

    /// The adapters OneTap ships read their answers' success by the table: each vendor's success code as its document
    /// gives it (CMCC `103000`, Tianyi `0`, Aliyun `OK`, JiGuang `8000`, Shanyan `200000`, Yidun `200`); a neighbour, a
    /// code in another case, or another gateway's success code is none.
    @Test(arguments: [("cmcc", "103000"), ("tianyi", "0"), ("aliyun-pnvs", "OK"), ("jverification", "8000"), ("shanyan", "200000"), ("yidun", "200")])
    func eachShippedGatewaysSuccessCodeReturnsTheNumber(gateway: String, code: String) {
        #expect(ExchangeCodeTable.returnsTheNumber(ResultCode(stringLiteral: code), gateway: gateway))
        for other in ["\(code)0", "1\(code)", code == "OK" ? "ok" : "-\(code)"] {
            #expect(!ExchangeCodeTable.returnsTheNumber(ResultCode(stringLiteral: other), gateway: gateway), "\(other)")
        }
        for name in ["cmcc", "aliyun-pnvs", "yidun"] where name != gateway {
            #expect(!ExchangeCodeTable.returnsTheNumber(ResultCode(stringLiteral: code), gateway: name), "\(code) of \(name)")
        }
    }

    @Test func theTableHoldsEveryRowOnce() {
        let rows = DataFile.rows("exchange-codes.csv")
        #expect(table.entries.count == rows.count)
        #expect(table.entries.map(\.line) == rows.map(\.line))
    }

    /// The codes issue 11 names, independently of the file.
    @Test(arguments: [
        (LoginFlow.mobile, ResultCode("103000"), OutcomeAction.success, false),
        (.mobile, "104201", .retry, false),
        (.mobile, "103101", .misconfigured, true),
        (.mobile, "103119", .misconfigured, true),
        (.mobile, "103511", .misconfigured, true),
        (.mobile, "105312", .switch, true),
        (.tianyi, "0", .success, false),
        (.unicom, "0", .success, false),
    ])
    func codesTheIssueNames(flow: LoginFlow, code: ResultCode, action: OutcomeAction, alert: Bool) {
        let entry = table.entry(for: flow, code: code)
        #expect(entry.action == action && entry.alert == alert && entry.code == code)
    }

    /// An unlisted code is never an error: each flow's default (the next flow) answers, without an alert.
    @Test(arguments: [LoginFlow.mobile, .tianyi, .unicom])
    func unlistedCodesGetTheFlowsDefault(flow: LoginFlow) throws {
        for code: ResultCode in ["987654321", "not a code", "-1", "1030000"] {
            let entry = table.entry(for: flow, code: code)
            #expect(entry.code == nil && entry.flow == flow && entry.action == .fallback && !entry.alert)
        }
    }

    /// Exchange codes are not the SDK's: the same text means something else per flow and per table.
    @Test func codesAreReadPerFlow() {
        #expect(table.entry(for: .tianyi, code: "0").action == .success)
        #expect(table.entry(for: .mobile, code: "0").action == .fallback)
        #expect(table.entry(for: .mobile, code: "000").action == .fallback)   // the SDK's legacy success is no exchange success
        #expect(table.entry(for: .unicom, code: "103000").action == .fallback)
    }

    // MARK: Malformed tables

    static let header = "flow,code,action,alert,meaning_zh,meaning_en,source,gateway"
    static let defaults = "mobile,*,fallback,no,a,b,s,cmcc\ntianyi,*,fallback,no,a,b,s,tianyi\nunicom,*,fallback,no,a,b,s,unicom\n"

    /// A table with `rows` (each given its flow's carrier gateway in the last column) on line 2 onwards, then
    /// the three defaults.
    static func text(_ rows: String) -> String {
        let carrier = ["mobile": "cmcc", "tianyi": "tianyi", "unicom": "unicom"]
        let withGateways = rows.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            "\(line),\(carrier[String(line.prefix { $0 != "," })] ?? "cmcc")"
        }
        return "\(header)\n\(withGateways.joined(separator: "\n"))\n\(defaults)"
    }

    @Test func aWellFormedReplacementLoads() throws {
        let replacement = try ExchangeCodeTable(
            csv: Self.text("mobile,1,success,no,成,ok,s\nmobile,2,misconfigured,yes,a,,s\ntianyi,3,fallback,yes,,b,s"), file: "x.csv")
        #expect(replacement.entry(for: .mobile, code: "1").action == .success)
        #expect(replacement.entry(for: .mobile, code: "2").action == .misconfigured && replacement.entry(for: .mobile, code: "2").alert)
        #expect(replacement.entry(for: .tianyi, code: "3").alert)
        #expect(replacement.entry(for: .tianyi, code: "1").code == nil)
    }

    @Test(arguments: [
        ("sms,0,success,no,a,b,s", TableError.Kind.invalidValue, 2, "flow" as String?),
        ("mobil,1,success,no,a,b,s", .invalidValue, 2, "flow"),
        ("mobile,1,win,no,a,b,s", .invalidValue, 2, "action"),
        ("mobile,1,progress,no,a,b,s", .invalidValue, 2, "action"),
        ("mobile,1,cancelled,no,a,b,s", .invalidValue, 2, "action"),
        ("mobile,1,fallback,maybe,a,b,s", .invalidValue, 2, "alert"),
        ("mobile,1,fallback,Yes,a,b,s", .invalidValue, 2, "alert"),
        ("mobile,1,fallback,,a,b,s", .invalidValue, 2, "alert"),
        ("mobile,1,misconfigured,no,a,b,s", .invalidValue, 2, "alert"),
        ("mobile,\"\",success,no,a,b,s", .invalidValue, 2, "code"),
        ("mobile,\(String(repeating: "7", count: 65)),success,no,a,b,s", .invalidValue, 2, "code"),
        ("mobile,1,success,no,,,s", .invalidValue, 2, "meaning_en"),
        ("mobile,1,success,no,a,b,s\nmobile,1,failed,no,a,b,s", .duplicateKey, 3, "code"),
        ("tianyi,0,success,no,a,b,s\ntianyi, 0 ,failed,no,a,b,s", .duplicateKey, 3, "code"),
        ("mobile,*,failed,no,a,b,s", .duplicateKey, 3, "code"),   // the defaults follow: mobile's * is listed twice
        ("mobile,1,success", .fieldCount, 2, nil),
        // A default that takes an unlisted code with a number for a login (an attacker's read of the diff).
        ("tianyi,*,success,no,a,b,s", .invalidValue, 2, "action"),
    ])
    func malformedRows(rows: String, kind: TableError.Kind, line: Int, column: String?) {
        #expect {
            try ExchangeCodeTable(csv: Self.text(rows), file: "x.csv")
        } throws: { error in
            let error = error as! TableError
            return error.kind == kind && error.line == line && error.column == column && error.file == "x.csv"
                && error.description.hasPrefix("x.csv:\(line): ")
        }
    }

    @Test(arguments: [LoginFlow.mobile, .tianyi, .unicom])
    func aMissingDefaultIsRefused(flow: LoginFlow) {
        let defaults = Self.defaults.split(separator: "\n").filter { !$0.hasPrefix("\(flow),") }.joined(separator: "\n")
        #expect {
            try ExchangeCodeTable(csv: "\(Self.header)\n\(defaults)\n", file: "x.csv")
        } throws: { error in
            let error = error as! TableError
            return error.kind == .incomplete && error.line == 0 && error.column == nil && error.message.contains("flow \(flow) ")
        }
    }

    /// Aggregators' codes are read by their own rows: the same text means another thing at another gateway, and
    /// the rules read a flow's answers by the gateway that serves it (independent rows, not the built-in file).
    @Test func eachGatewayReadsItsOwnCodes() throws {
        let table = try ExchangeCodeTable(
            csv: Self.text("mobile,0,fallback,no,a,b,s") + "unicom,0,retry,no,a,b,s,relay\nunicom,OK,success,no,a,b,s,relay\nunicom,*,fallback,no,a,b,s,relay\n",
            file: "x.csv")
        #expect(table.entry(for: .unicom, code: "0").action == .fallback)   // the carrier's own gateway lists no 0
        #expect(table.entry(for: .unicom, gateway: "relay", code: "0").action == .retry)
        #expect(table.entry(for: .unicom, gateway: "relay", code: "OK").action == .success)
        #expect(table.entry(for: .unicom, gateway: "relay", code: "nope").code == nil)
        // A gateway the table does not list for the flow reads as the carrier's own.
        #expect(table.entry(for: .mobile, gateway: "relay", code: "0").gateway == "cmcc")
        let rules = try ExchangeRules(codes: table).serving(.unicom, with: "relay")
        #expect(rules.entry(for: .unicom, code: "0").action == .retry)
        #expect(rules.successCode(for: .unicom) == "OK")
        #expect(rules.entry(for: .mobile, code: "0").action == .fallback)
        #expect(ExchangeRules(codes: table).successCode(for: .unicom) == nil)
    }

    @Test func aGatewayWithoutRowsForTheFlowIsRefusedByName() {
        #expect {
            try ExchangeRules().serving(.unicom, with: "no-such-gateway")
        } throws: { error in
            let error = error as! TableError
            return error.kind == .incomplete && error.message.contains("gateway no-such-gateway has no rows for flow unicom")
        }
    }

    @Test(arguments: ["", "Aliyun", "ali yun", "ali_yun", String(repeating: "a", count: 33)])
    func aMalformedGatewayNameIsRefused(name: String) {
        #expect {
            try ExchangeCodeTable(csv: "\(Self.header)\nmobile,1,success,no,a,b,s,\"\(name)\"\n\(Self.defaults)", file: "x.csv")
        } throws: { error in
            let error = error as! TableError
            return error.line == 2 && error.column == "gateway"
        }
    }

    @Test func aTableWithoutACarriersOwnGatewayIsRefused() {
        let defaults = Self.defaults.replacingOccurrences(of: "s,tianyi", with: "s,relay")
        #expect {
            try ExchangeCodeTable(csv: "\(Self.header)\n\(defaults)", file: "x.csv")
        } throws: { error in
            let error = error as! TableError
            return error.kind == .incomplete && error.message.contains("flow tianyi has no rows of its carrier's own gateway tianyi")
        }
    }

    @Test func aMissingColumnIsRefused() {
        #expect {
            try ExchangeCodeTable(csv: "flow,code,action,meaning_zh,meaning_en,source\n\(Self.defaults)", file: "x.csv")
        } throws: { error in
            let error = error as! TableError
            return error.kind == .missingColumn && error.line == 1 && error.column == "alert"
        }
    }
}
