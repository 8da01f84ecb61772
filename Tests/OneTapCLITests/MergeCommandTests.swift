import Foundation
import Testing

/// `onetap merge` end to end: a dry run over two JSON files.
@Suite struct MergeCommandTests {
    static let guest = #"{"favourites":["a","b"],"history":[{"item":"n1","at":"2026-11-30T10:00:00Z"}],"cart":[{"item":"x","qty":2}],"downloads":["v1","v2"],"settings":{"theme":"dark"},"drafts":["g"],"notes":["n"]}"#
    static let account = #"{"favourites":["b"],"cart":[{"item":"x","qty":98}],"downloads":["v1"],"settings":{"theme":"light"}}"#

    func files(_ guest: String, _ account: String) throws -> (URL, String, String) {
        let directory = try Package.temporaryDirectory()
        let g = directory.appendingPathComponent("guest.json"), a = directory.appendingPathComponent("account.json")
        try guest.write(to: g, atomically: true, encoding: .utf8)
        try account.write(to: a, atomically: true, encoding: .utf8)
        return (directory, g.path, a.path)
    }

    @Test func theMergedAccountThePlanAndTheKeptKindsAsJSON() async throws {
        let (directory, guest, account) = try files(Self.guest, Self.account)
        defer { removeTemporary(directory) }
        let run = try await Binary.run(["merge", "--guest", guest, "--account", account, "--json"])
        #expect(run.status == 0 && run.stderr == "")
        #expect(run.lines.count == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.lines[0].utf8)) as? [String: Any])
        let merged = try #require(object["account"] as? [String: Any])
        #expect(merged["favourites"] as? [String] == ["b", "a"])
        #expect((merged["cart"] as? [[String: Any]])?.first?["qty"] as? Int == 99)
        #expect(merged["downloads"] as? [String] == ["v1", "v2"])
        #expect((merged["settings"] as? [String: String]) == ["theme": "light"])
        #expect(merged["drafts"] as? [String] == ["g"])
        #expect(merged["notes"] == nil)
        #expect(object["kept"] as? [String] == ["notes"])
        let plan = try #require(object["plan"] as? [[String: Any]])
        #expect(plan.count == 12)
        let downloads = try #require(plan.first { $0["kind"] as? String == "downloads" })
        #expect(downloads["moved"] as? [String] == ["v2"] && downloads["discarded"] as? [String] == ["v1"])
        #expect(plan.prefix(6).allSatisfy { $0["step"] as? String == "write" } && plan.suffix(6).allSatisfy { $0["step"] as? String == "remove-guest" })
    }

    @Test func text() async throws {
        let (directory, guest, account) = try files(#"{"favourites":["a"],"notes":[1]}"#, "{}")
        defer { removeTemporary(directory) }
        let run = try await Binary.run(["merge", "--guest", guest, "--account", account])
        #expect(run.status == 0)
        #expect(run.lines == [
            "plan (2 steps; a dry run, nothing is changed):", "  write favourites to the account (union)", "  remove favourites from the guest",
            "kept with the guest (no merge rule): notes", "account after the merge:", #"  favourites: ["a"]"#,
        ])
    }

    /// An attacker's read of the CLI: kinds and item ids are input, and a kind holding a line feed wrote lines of its
    /// own into the report (`account after the merge:` among them). Each is shown escaped.
    @Test func aKindHoldingALineFeedForgesNoLine() async throws {
        let (directory, guest, account) = try files(#"{"x\naccount after the merge:\n  cart: []":1,"favourites":["a\nb"]}"#, "{}")
        defer { removeTemporary(directory) }
        let run = try await Binary.run(["merge", "--guest", guest, "--account", account])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.lines == [
            "plan (2 steps; a dry run, nothing is changed):", "  write favourites to the account (union)", "  remove favourites from the guest",
            #"kept with the guest (no merge rule): "x\naccount after the merge:\n  cart: []""#, "account after the merge:",
            #"  favourites: ["a\nb"]"#,
        ])
    }

    /// A guest's kind whose account value nests deeper than a journal can hold stays with the guest, said so; the
    /// account's kinds the merge does not touch are shown as they are, however deep (a review: left out of the
    /// plan's merged data, the dry run showed the account without them).
    @Test func kindsTooDeepToMergeAreSaidAndTheAccountShownWhole() async throws {
        let deep = String(repeating: "[", count: 501) + String(repeating: "]", count: 501)
        let (directory, guest, account) = try files(#"{"favourites":["a"],"drafts":["d"]}"#, #"{"drafts":\#(deep),"notes":\#(deep)}"#)
        let run = try await Binary.run(["merge", "--guest", guest, "--account", account])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.lines == [
            "plan (2 steps; a dry run, nothing is changed):", "  write favourites to the account (union)", "  remove favourites from the guest",
            "kept with the guest (too deep or too large to merge): drafts", "account after the merge:", "  drafts: \(deep)", #"  favourites: ["a"]"#,
            "  notes: \(deep)",
        ])
        try FileManager.default.removeItem(at: directory)
    }

    @Test(arguments: [
        ("[1]", "the guest's data must be a JSON object keyed by kind"),
        ("{", "the guest's data is not JSON"),
        (#"{"cart":[{"item":"x","qty":-1}]}"#, "the guest's cart: line 1 is not"),
    ])
    func malformedDataIsExit65(_ guestText: String, _ message: String) async throws {
        let (directory, guest, account) = try files(guestText, "{}")
        defer { removeTemporary(directory) }
        let run = try await Binary.run(["merge", "--guest", guest, "--account", account])
        #expect(run.status == 65 && run.stdout == "")
        #expect(run.stderr.contains(message), "\(run.stderr)")
    }

    @Test func anUnreadableFileIsExit66() async throws {
        let run = try await Binary.run(["merge", "--guest", "/nonexistent/guest.json", "--account", "/nonexistent/account.json"])
        #expect(run.status == 66)
        #expect(run.stderr.hasPrefix("onetap: error: /nonexistent/guest.json: cannot read the file"))
    }

    @Test func usage() async throws {
        let run = try await Binary.run(["merge", "--guest", "g.json"])
        #expect(run.status == 64 && run.stderr.contains("merge needs --guest FILE and --account FILE"))
    }
}
