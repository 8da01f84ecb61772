import Foundation
import Testing
@testable import OneTapCore

/// The login gate: the issue's default rows (written here, not read from the table), every decision
/// for a guest and for an account, the default for unlisted actions, and bad rows.
@Suite struct LoginGateTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let action: String
        let needs: LoginGate.Needs
        let prompt: String?
        let isDefault: Bool
        var testDescription: String { action }
    }

    /// The issue's defaults (seed 000 and seed 004).
    static let cases: [Case] = [
        Case(action: "favourite", needs: .account, prompt: "登录后可进行收藏操作", isDefault: false),
        Case(action: "comment", needs: .account, prompt: "登录后可发表评论", isDefault: false),
        Case(action: "post", needs: .account, prompt: "登录后可爆料", isDefault: false),
        Case(action: "reading-history", needs: .account, prompt: "登录后可查看阅读历史", isDefault: false),
        Case(action: "buy-membership", needs: .account, prompt: "登录后可购买会员", isDefault: false),
        Case(action: "place-order", needs: .account, prompt: "登录后可下单", isDefault: false),
        Case(action: "claim-invite-reward", needs: .account, prompt: "登录后可领取邀请奖励", isDefault: false),
        Case(action: "browse", needs: .guest, prompt: nil, isDefault: false),
        Case(action: "read-comments", needs: .guest, prompt: nil, isDefault: false),
        Case(action: "share", needs: .neverPrompt, prompt: nil, isDefault: false),
        Case(action: "feedback", needs: .neverPrompt, prompt: nil, isDefault: false),
        Case(action: "add-to-cart", needs: .neverPrompt, prompt: nil, isDefault: false),
        Case(action: "delete-account", needs: .account, prompt: "登录后继续", isDefault: true),
        Case(action: "Favourite", needs: .account, prompt: "登录后继续", isDefault: true),   // ids are exact
    ]

    static let guest = Identity.guest(try! GuestID("LoginGate-test-guest-1"))

    @Test(arguments: cases)
    func aGuestAsks(_ test: Case) {
        let decision = LoginGate.builtIn.decide(test.action, for: Self.guest)
        #expect(decision.rule.needs == test.needs && decision.rule.isDefault == test.isDefault)
        switch decision {
        case .requireLogin(let rule):
            #expect(test.needs == .account)
            #expect(rule.promptZH == test.prompt && !rule.promptEN.isEmpty)
        case .allow(let rule):
            #expect(test.needs != .account, "a guest must log in first for \(test.action)")
            #expect(rule.promptZH.isEmpty && rule.promptEN.isEmpty)
        }
    }

    @Test(arguments: cases)
    func anAccountIsNeverAskedToLogIn(_ test: Case) {
        let decision = LoginGate.builtIn.decide(test.action, for: .account("42"))
        guard case .allow = decision else { Issue.record("\(decision)"); return }
    }

    @Test func theBuiltInTableHasExactlyTheIssuesRows() {
        let listed = LoginGate.builtIn.rules.filter { !$0.isDefault }.map(\.action).sorted()
        #expect(listed == Self.cases.filter { !$0.isDefault }.map(\.action).sorted())
        #expect(LoginGate.builtIn.defaultRule.needs == .account && LoginGate.builtIn.defaultRule.action == "*")
    }

    struct BadTable: Sendable, CustomTestStringConvertible {
        let rows: String
        let message: String
        var testDescription: String { message }
    }

    static let header = "action,needs,prompt_zh,prompt_en,source\n"
    static let star = "*,account,登录后继续,Log in to continue,x\n"

    static let badTables: [BadTable] = [
        BadTable(rows: star + "Favourite,account,收藏,Save,x\n", message: "policy.csv:3: column 'action': \"Favourite\" is not an action id"),
        BadTable(rows: star + "share,maybe,,,x\n", message: "policy.csv:3: column 'needs': unknown need \"maybe\""),
        BadTable(rows: star + "comment,account,,Log in,x\n", message: "policy.csv:3: column 'prompt_zh': an action that needs an account needs its login prompt"),
        BadTable(rows: star + "share,never-prompt,分享,,x\n", message: "policy.csv:3: column 'prompt_zh': a never-prompt action shows no login prompt"),
        BadTable(rows: star + "share,guest,,,x\nshare,guest,,,y\n", message: "policy.csv:4: column 'action': share is already listed on line 3"),
        BadTable(rows: "*,guest,,,x\n", message: "policy.csv:2: column 'needs': the default (*) must need an account"),
        BadTable(rows: star + star, message: "policy.csv:3: column 'action': * is already listed on line 2"),
        BadTable(rows: "share,guest,,,x\n", message: "policy.csv: no * row"),
    ]

    @Test(arguments: badTables)
    func aBadTableIsRefusedWithItsLine(_ bad: BadTable) {
        let error = #expect(throws: TableError.self) { try LoginGate(csv: Self.header + bad.rows, file: "policy.csv") }
        #expect(error.map { "\($0)".hasPrefix(bad.message) } == true, "\(String(describing: error))")
    }

    /// A table of many actions (the fixed index past a few probes): each id finds its own row, and ids that are
    /// prefixes, extensions, other cases or other scripts of listed ones, the empty text and `*` itself fall to the
    /// default. Written from the rule (exact ids), not from the index.
    @Test func manyActionsEachFindTheirOwnRowAndNearMissesTheDefault() throws {
        let ids = (0..<300).map { "action-\($0)" } + ["a", "ab", "abc", "b"]
        let rows = ids.enumerated().map { index, id in index.isMultiple(of: 2) ? "\(id),guest,,,row \(index)\n" : "\(id),account,登录,Log in,row \(index)\n" }
        let gate = try LoginGate(csv: Self.header + Self.star + rows.joined(), file: "many.csv")
        for (index, id) in ids.enumerated() {
            let rule = gate.decide(id, for: Self.guest).rule
            #expect(rule.action == id && !rule.isDefault && rule.source == "row \(index)", "\(id)")
        }
        for nearMiss in ["action-", "action-3000", "action-0299", "Action-1", "action-1 ", "ａ", "", "*", "abcd", "action-\u{0}1"] {
            #expect(gate.decide(nearMiss, for: Self.guest).rule.isDefault, "\(nearMiss.debugDescription)")
        }
        // "action-2", "action-29" and "action-299" are each their own row.
        #expect(["action-2", "action-29", "action-299"].map { gate.decide($0, for: Self.guest).rule.source } == ["row 2", "row 29", "row 299"])
    }
}
