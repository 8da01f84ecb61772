import Testing
@testable import OneTapCore

@Suite struct MergeRulesTests {
    @Test func theBuiltInRulesAreTheIssues() {
        let rules = MergeRules.builtIn
        #expect(rules.rules.map(\.kind) == ["favourites", "history", "cart", "downloads", "settings", "drafts"])
        #expect(rules.rule(for: "favourites")?.strategy == .union)
        #expect(rules.rule(for: "history")?.strategy == .newestFirst && rules.rule(for: "history")?.cap == 1_000)
        #expect(rules.rule(for: "cart")?.strategy == .addQuantities && rules.rule(for: "cart")?.cap == 99)
        #expect(rules.rule(for: "downloads")?.strategy == .moveUnlessPresent)
        #expect(rules.rule(for: "settings")?.strategy == .accountWins)
        #expect(rules.rule(for: "drafts")?.strategy == .keepBoth)
        #expect(rules.rule(for: "notes") == nil)
    }

    @Test(arguments: [
        ("Cart,union,,x", "column 'kind': \"Cart\" is not a data kind"),
        ("cart,sum,,x", "column 'strategy': unknown strategy \"sum\""),
        ("cart,add-quantities,,x", "column 'cap': add-quantities needs a cap"),
        ("cart,union,5,x", "column 'cap': union takes no cap"),
        ("cart,add-quantities,0,x", "column 'cap': \"0\" is not a cap from 1 to 1000000"),
    ])
    func aBadRowIsRefused(_ row: String, _ message: String) {
        let error = #expect(throws: TableError.self) { try MergeRules(csv: "kind,strategy,cap,source\n\(row)\n", file: "m.csv") }
        #expect(error.map { "\($0)".hasPrefix("m.csv:2: " + message) } == true, "\(String(describing: error))")
    }
}
