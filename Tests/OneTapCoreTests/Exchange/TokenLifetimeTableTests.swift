import Foundation
import Testing
@testable import OneTapCore

@Suite struct TokenLifetimeTableTests {
    let table = TokenLifetimeTable.builtIn

    /// Every row of Data/token-lifetimes.csv, read independently, gives its flow's lifetime and use.
    @Test(arguments: DataFile.rows("token-lifetimes.csv"))
    func everyRowGivesItsLifetime(row: DataRow) throws {
        try #require(row.problem == nil)
        let flow = try #require(LoginFlow(rawValue: row["flow"]))
        let seconds = try #require(Int64(row["lifetime_seconds"]))
        let entry = try #require(table.entry(for: flow, gateway: row["gateway"]))
        #expect(entry.flow == flow && entry.gateway == row["gateway"] && entry.lifetime == .seconds(seconds))
        #expect(entry.singleUse == (row["single_use"] == "yes"))
        #expect(entry.source == row["source"] && entry.line == row.line)
    }

    @Test func everyOneTapFlowHasARowAndSMSNone() {
        #expect(Set(table.entries.map(\.flow)) == [.mobile, .tianyi, .unicom])
        #expect(table.entry(for: .sms) == nil)
        #expect(table.entries.count == DataFile.rows("token-lifetimes.csv").count)
    }

    /// China Mobile's token lives 2 minutes and is good once (its SDK documentation: token有效期2min，一次有效).
    @Test func chinaMobilesTokenLivesTwoMinutesOnce() throws {
        let mobile = try #require(table.entry(for: .mobile))
        #expect(mobile.lifetime == .seconds(120) && mobile.singleUse)
    }

    /// JiGuang's FAQ (docs.jiguang.cn/en/jverification/FAQ/prod_faq, 2022-11-15) gives its one-click loginToken 2 / 30 / 30
    /// minutes and its number-verification token 2 / 10 / 1 minutes (China Mobile / Unicom / Telecom), single-use; its
    /// client document's `getToken` says 1 minute for every operator. One row per flow serves both uses: the shortest,
    /// 60 s. Held to the carriers' rows, a Telecom verification token was sent up to 10 minutes old, 10× its life, and a
    /// Unicom one 30 (a fact-check of the tables, and the review of its first fix).
    @Test func jiGuangsTokensLiveTheShortestOfItsFigures() throws {
        for (flow, seconds) in [(LoginFlow.mobile, 60), (.unicom, 60), (.tianyi, 60)] {
            let entry = try #require(table.entry(for: flow, gateway: "jverification"))
            #expect(entry.gateway == "jverification" && entry.lifetime == .seconds(Int64(seconds)) && entry.singleUse, "\(flow)")
        }
    }

    // MARK: Malformed tables

    static let header = "flow,lifetime_seconds,single_use,source,gateway"

    /// `rows` (each given its flow's carrier gateway in the last column, unless it names one), then a row per flow.
    static func text(_ rows: String, without: LoginFlow? = nil) -> String {
        let carrier = ["mobile": "cmcc", "tianyi": "tianyi", "unicom": "unicom"]
        let given = rows.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasPrefix("#") || line.filter({ $0 == "," }).count >= 4 ? String(line) : "\(line),\(carrier[String(line.prefix { $0 != "," })] ?? "cmcc")"
        }
        let base = ["mobile,120,yes,s,cmcc", "tianyi,600,yes,s,tianyi", "unicom,1800,no,s,unicom"].filter { without == nil || !$0.hasPrefix("\(without!),") }
        return "\(header)\n\(given.joined(separator: "\n"))\n\(base.joined(separator: "\n"))\n"
    }

    /// An aggregator's own lifetime is its tokens'; a gateway without rows is held to the carrier's (rows written
    /// here, not read from the file).
    @Test func aGatewaysOwnLifetimeElseTheCarriers() throws {
        let table = try TokenLifetimeTable(csv: Self.text("unicom,60,yes,s,relay"), file: "t.csv")
        #expect(table.entry(for: .unicom, gateway: "relay")?.lifetime == .seconds(60))
        #expect(table.entry(for: .unicom)?.lifetime == .seconds(1800))
        #expect(table.entry(for: .mobile, gateway: "relay")?.gateway == "cmcc")
        let rules = try ExchangeRules(codes: try ExchangeCodeTable(
            csv: "flow,code,action,alert,meaning_zh,meaning_en,source,gateway\nmobile,*,fallback,no,a,b,s,cmcc\ntianyi,*,fallback,no,a,b,s,tianyi\n"
                + "unicom,*,fallback,no,a,b,s,unicom\nunicom,*,fallback,no,a,b,s,relay\n", file: "x.csv"), lifetimes: table).serving(.unicom, with: "relay")
        let received = Date(timeIntervalSince1970: 1_796_090_400)
        #expect(!rules.hasExpired(.unicom, receivedAt: received, at: received.addingTimeInterval(59)))
        #expect(rules.hasExpired(.unicom, receivedAt: received, at: received.addingTimeInterval(60)))
        #expect(!ExchangeRules(lifetimes: table).hasExpired(.unicom, receivedAt: received, at: received.addingTimeInterval(60)))
    }

    @Test(arguments: ["", "Relay", "re lay"])
    func aMalformedGatewayIsRefused(name: String) {
        #expect {
            try TokenLifetimeTable(csv: Self.text("unicom,60,yes,s,\"\(name)\""), file: "t.csv")
        } throws: { error in
            let error = error as! TableError
            return error.line == 2 && error.column == "gateway"
        }
    }

    @Test(arguments: ["1", "86400", "120", "007"])
    func lifetimesFromOneSecondToADayLoad(seconds: String) throws {
        let replacement = try TokenLifetimeTable(csv: Self.text("mobile,\(seconds),no,s", without: .mobile), file: "t.csv")
        #expect(replacement.entry(for: .mobile)?.lifetime == .seconds(Int64(seconds)!))
        #expect(replacement.entry(for: .mobile)?.singleUse == false)
    }

    @Test(arguments: [
        ("sms,60,yes,s", TableError.Kind.invalidValue, 2, "flow" as String?),
        ("mobil,60,yes,s", .invalidValue, 2, "flow"),
        ("mobile,0,yes,s", .invalidValue, 2, "lifetime_seconds"),
        ("mobile,86401,yes,s", .invalidValue, 2, "lifetime_seconds"),
        ("mobile,2m,yes,s", .invalidValue, 2, "lifetime_seconds"),
        ("mobile,-5,yes,s", .invalidValue, 2, "lifetime_seconds"),
        ("mobile,+60,yes,s", .invalidValue, 2, "lifetime_seconds"),
        ("mobile,1.5,yes,s", .invalidValue, 2, "lifetime_seconds"),
        ("mobile,1e3,yes,s", .invalidValue, 2, "lifetime_seconds"),
        ("mobile,,yes,s", .invalidValue, 2, "lifetime_seconds"),
        ("mobile,99999999999999999999,yes,s", .invalidValue, 2, "lifetime_seconds"),
        ("mobile,60,y,s", .invalidValue, 2, "single_use"),
        ("mobile,60,YES,s", .invalidValue, 2, "single_use"),
        ("mobile,60,true,s", .invalidValue, 2, "single_use"),
        ("mobile,60,yes,s", .duplicateKey, 3, "flow"),   // the base rows follow: mobile is listed twice
        ("mobile,60", .fieldCount, 2, nil),
    ])
    func malformedRows(rows: String, kind: TableError.Kind, line: Int, column: String?) {
        #expect {
            try TokenLifetimeTable(csv: Self.text(rows), file: "t.csv")
        } throws: { error in
            let error = error as! TableError
            return error.kind == kind && error.line == line && error.column == column && error.description.hasPrefix("t.csv:\(line): ")
        }
    }

    @Test(arguments: [LoginFlow.mobile, .tianyi, .unicom])
    func aMissingOneTapFlowIsRefused(flow: LoginFlow) {
        #expect {
            try TokenLifetimeTable(csv: Self.text("# no row for \(flow)", without: flow), file: "t.csv")
        } throws: { error in
            let error = error as! TableError
            return error.kind == .incomplete && error.line == 0 && error.column == nil && error.message.contains("no row for \(flow) at its carrier's own gateway")
        }
    }
}
