import Foundation
import Testing
@testable import OneTapCore

/// Merge plans: each rule on examples worked out by hand, the shapes each rule refuses, and property
/// tests over random data (no guest item lost unless a rule drops it by design).
@Suite struct MergePlanTests {
    static func item(_ id: String, _ at: String) -> JSONValue { .object(["item": .string(id), "at": .string(at)]) }
    static func line(_ id: String, _ qty: Int) -> JSONValue { .object(["item": .string(id), "qty": .number(Double(qty))]) }
    static func strings(_ items: String...) -> JSONValue { .array(items.map(JSONValue.string)) }

    struct Example: Sendable, CustomTestStringConvertible {
        let name: String
        let guest: [String: JSONValue]
        let account: [String: JSONValue]
        let merged: [String: JSONValue]
        var testDescription: String { name }
    }

    static let examples: [Example] = [
        Example(name: "favourites: union, the account's order first",
                guest: ["favourites": strings("a", "b", "a")], account: ["favourites": strings("b", "c")],
                merged: ["favourites": strings("b", "c", "a")]),
        Example(name: "favourites into a new account",
                guest: ["favourites": Self.strings("a")], account: [:], merged: ["favourites": Self.strings("a")]),
        Example(name: "history: newest first, one per item (its newest)",
                guest: ["history": .array([item("n1", "2026-11-30T10:00:00Z"), item("n2", "2026-11-29T10:00:00Z")])],
                account: ["history": .array([item("n1", "2026-11-28T10:00:00Z"), item("n3", "2026-12-01T08:00:00+08:00")])],
                // 08:00 at +08:00 is midnight UTC on 1 December: the newest.
                merged: ["history": .array([item("n3", "2026-12-01T08:00:00+08:00"), item("n1", "2026-11-30T10:00:00Z"), item("n2", "2026-11-29T10:00:00Z")])]),
        Example(name: "cart: quantities added, at most 99 per item",
                guest: ["cart": .array([line("x", 2), line("y", 98)])], account: ["cart": .array([line("y", 5), line("z", 1)])],
                merged: ["cart": .array([line("y", 99), line("z", 1), line("x", 2)])]),
        Example(name: "downloads: moved unless the account has them",
                guest: ["downloads": strings("v1", "v2")], account: ["downloads": strings("v1", "v9")],
                merged: ["downloads": strings("v1", "v9", "v2")]),
        Example(name: "settings: the account's value wins, the guest's own are added",
                guest: ["settings": .object(["theme": .string("dark"), "font": .string("large")])],
                account: ["settings": .object(["theme": .string("light")])],
                merged: ["settings": .object(["theme": .string("light"), "font": .string("large")])]),
        Example(name: "drafts: both kept",
                guest: ["drafts": strings("g", "same")], account: ["drafts": strings("a", "same")],
                merged: ["drafts": strings("a", "same", "g", "same")]),
        Example(name: "a kind only the account has is untouched, and not in the plan",
                guest: [:], account: ["favourites": Self.strings("a")], merged: [:]),
    ]

    @Test(arguments: examples)
    func eachRuleMergesAsDocumented(_ example: Example) throws {
        let plan = try MergePlan.plan(guest: example.guest, account: example.account, rules: .builtIn)
        #expect(plan.merged == example.merged)
        // Every guest kind with a rule is written, then removed from the guest: writes first.
        let kinds = example.guest.keys.sorted()
        #expect(plan.steps == kinds.map { .write(kind: $0, value: example.merged[$0]!) } + kinds.map { .removeGuest(kind: $0) })
    }

    @Test func historyKeepsTheNewestThousand() throws {
        let base = Date(timeIntervalSince1970: 1_796_090_400)
        let entries = (0..<1_500).map { index in Self.item("n\(index)", base.addingTimeInterval(Double(index)).iso8601) }
        let plan = try MergePlan.plan(guest: ["history": .array(Array(entries[..<800]))], account: ["history": .array(Array(entries[800...]))], rules: .builtIn)
        let merged = plan.merged["history"]?.arrayValue ?? []
        #expect(merged.count == 1_000)
        #expect(merged.first == entries[1_499] && merged.last == entries[500])
    }

    @Test func downloadsSayWhatMovesAndWhatIsDeleted() throws {
        let plan = try MergePlan.plan(guest: ["downloads": Self.strings("v1", "v2", "v3")], account: ["downloads": Self.strings("v3")], rules: .builtIn)
        #expect(plan.moved == ["downloads": ["v1", "v2"]] && plan.discarded == ["downloads": ["v3"]])
    }

    @Test func aKindWithNoRuleStaysWithTheGuest() throws {
        let plan = try MergePlan.plan(guest: ["notes": Self.strings("n"), "favourites": Self.strings("a")], account: [:], rules: .builtIn)
        #expect(plan.kept == ["notes"])
        #expect(!plan.steps.contains(.removeGuest(kind: "notes")) && plan.merged["notes"] == nil)
    }

    struct BadShape: Sendable, CustomTestStringConvertible {
        let guest: [String: JSONValue]
        let account: [String: JSONValue]
        let message: String
        var testDescription: String { message }
    }

    static let badShapes: [BadShape] = [
        BadShape(guest: ["favourites": .string("a")], account: [:], message: "the guest's favourites: is not an array"),
        BadShape(guest: ["favourites": .array([.number(1)])], account: [:], message: "the guest's favourites: element 1 is not an item id"),
        BadShape(guest: [:], account: [:], message: ""),
        BadShape(guest: ["history": .array([.object(["item": .string("n")])])], account: [:], message: "the guest's history: entry 1 is not {\"item\": ID, \"at\": ISO 8601 time}"),
        // The value is stored data (another account's, when the merge is resumed by a session now on another
        // account): the message names its place and its kind of fault, never the value.
        BadShape(guest: ["history": .array([item("n", "yesterday")])], account: [:], message: "the guest's history: entry 1's at is not an ISO 8601 time (malformed)"),
        // A year whose milliseconds pass Int64 trapped the parse: a guest's own data crashed the server at each login.
        BadShape(guest: ["history": .array([item("n", "999999999-01-01")])], account: [:], message: "the guest's history: entry 1's at is not an ISO 8601 time (out-of-range)"),
        BadShape(guest: ["cart": .array([line("x", 0)])], account: [:], message: "the guest's cart: line 1 is not {\"item\": ID, \"qty\": a whole number from 1 to 1000000}"),
        BadShape(guest: ["cart": .array([.object(["item": .string("x"), "qty": .number(1.5)])])], account: [:], message: "the guest's cart: line 1"),
        BadShape(guest: ["settings": .array([])], account: [:], message: "the guest's settings: is not an object"),
        BadShape(guest: ["favourites": Self.strings("a")], account: ["favourites": .object([:])], message: "the account's favourites: is not an array"),
    ]

    /// A merge error never quotes the data (the record's rule): an unreadable time was quoted.
    @Test func anUnreadableTimeIsNotQuoted() {
        let error = #expect(throws: MergeError.self) {
            try MergePlan.plan(guest: ["history": .array([Self.item("n", "secret-xyz")])], account: [:], rules: .builtIn)
        }
        #expect(error.map { !"\($0)".contains("secret-xyz") } == true, "\(String(describing: error))")
    }

    @Test(arguments: badShapes)
    func aShapeTheRuleCannotReadIsRefused(_ bad: BadShape) {
        if bad.message.isEmpty {
            #expect(throws: Never.self) { try MergePlan.plan(guest: bad.guest, account: bad.account, rules: .builtIn) }
            return
        }
        let error = #expect(throws: MergeError.self) { try MergePlan.plan(guest: bad.guest, account: bad.account, rules: .builtIn) }
        #expect(error?.kind == .unreadable)
        #expect(error.map { "\($0)".hasPrefix("unreadable: " + bad.message) } == true, "\(String(describing: error))")
    }

    /// Random data on both sides: every guest item is in the merged account unless its rule drops it by
    /// design (a cap, or a download the account has), and planning the merged result with the guest's
    /// data again changes only what adding up does (quantities).
    @Test(arguments: 0..<4)
    func noGuestItemIsLost(shard: Int) throws {
        var random = SplitMix64(seed: UInt64(shard) &* 0x9E37_79B9_7F4A_7C15 &+ 1)
        for _ in 0..<200 {
            func items(_ count: Int) -> [String] { (0..<count).map { _ in "i\(random.next() % 40)" } }
            let base = Date(timeIntervalSince1970: 1_796_090_400)
            let guestFavourites = items(Int(random.next() % 20)), accountFavourites = items(Int(random.next() % 20))
            let guestHistory = items(Int(random.next() % 30)).map { Self.item($0, base.addingTimeInterval(Double(random.next() % 10_000)).iso8601) }
            let guestCart = Dictionary(items(Int(random.next() % 10)).map { ($0, Int(random.next() % 60) + 1) }, uniquingKeysWith: +).map { Self.line($0.key, min($0.value, 1_000)) }
            let accountCart = Dictionary(items(Int(random.next() % 10)).map { ($0, Int(random.next() % 60) + 1) }, uniquingKeysWith: +).map { Self.line($0.key, min($0.value, 1_000)) }
            let guest: [String: JSONValue] = [
                "favourites": .array(guestFavourites.map(JSONValue.string)), "history": .array(guestHistory), "cart": .array(guestCart),
                "downloads": .array(items(8).map(JSONValue.string)), "drafts": .array(items(3).map(JSONValue.string)),
            ]
            let account: [String: JSONValue] = ["favourites": .array(accountFavourites.map(JSONValue.string)), "cart": .array(accountCart)]
            let plan = try MergePlan.plan(guest: guest, account: account, rules: .builtIn)
            let merged = plan.merged
            let favourites = Set((merged["favourites"]?.arrayValue ?? []).compactMap(\.stringValue))
            #expect(Set(guestFavourites).isSubset(of: favourites) && Set(accountFavourites).isSubset(of: favourites))
            let history = (merged["history"]?.arrayValue ?? []).compactMap { $0.objectValue?["item"]?.stringValue }
            #expect(Set(history) == Set(guestHistory.compactMap { $0.objectValue?["item"]?.stringValue }) && history.count == Set(history).count)
            let cart = Dictionary(uniqueKeysWithValues: (merged["cart"]?.arrayValue ?? []).compactMap { line -> (String, Double)? in
                guard let item = line.objectValue?["item"]?.stringValue, case .number(let qty)? = line.objectValue?["qty"] else { return nil }
                return (item, qty)
            })
            for line in guestCart + accountCart {
                let item = line.objectValue!["item"]!.stringValue!
                #expect(cart[item] != nil, "cart item \(item) was lost")
                #expect(cart[item]! <= 99)
            }
            let downloads = Set((merged["downloads"]?.arrayValue ?? []).compactMap(\.stringValue))
            let guestDownloads = Set((guest["downloads"]?.arrayValue ?? []).compactMap(\.stringValue))
            #expect(guestDownloads.isSubset(of: downloads))
            #expect((merged["drafts"]?.arrayValue ?? []).count == (guest["drafts"]?.arrayValue ?? []).count)
        }
    }

    /// An attacker's read: a guest's value nested 508 levels deep parsed (the reader allows 512) and was merged, and
    /// the journal holding it a few levels further down did not read back, so a resumed merge never finished. A
    /// guest's kind nesting deeper than 500 levels stays with the guest, as does one whose account value does; an
    /// account's kind that deep is left out of `merged` and holds up no other kind (a review: it failed the whole
    /// plan); a journal of a 500-level value reads back.
    @Test func valuesTooDeepForAJournalAreNotMerged() throws {
        func nested(_ depth: Int) -> JSONValue {
            var value = JSONValue.string("x")
            for _ in 0..<depth { value = .object(["a": value]) }
            return value
        }
        let deepest = try MergePlan.plan(guest: ["settings": nested(500)], account: [:], rules: .builtIn)
        #expect(deepest.kept.isEmpty && deepest.steps.count == 2)
        let journal = MergeJournal(guest: try GuestID("GuestOfTheTests000000A"), account: "42", plan: deepest, startedAt: Date(timeIntervalSince1970: 0))
        #expect(try MergeJournal(json: journal.json()) == journal)
        for depth in [501, 508] {
            let tooDeep = try MergePlan.plan(guest: ["settings": nested(depth), "favourites": Self.strings("a")], account: [:], rules: .builtIn)
            #expect(tooDeep.kept == ["settings"] && tooDeep.merged.keys.sorted() == ["favourites"])
        }
        let deepAccount = try MergePlan.plan(
            guest: ["favourites": Self.strings("a"), "settings": .object(["theme": "dark"])], account: ["notes": nested(501), "settings": nested(501)],
            rules: .builtIn)
        #expect(deepAccount.kept == ["settings"] && deepAccount.merged == ["favourites": Self.strings("a")])
        let held = MergeJournal(guest: try GuestID("GuestOfTheTests000000A"), account: "42", plan: deepAccount, startedAt: Date(timeIntervalSince1970: 0))
        #expect(try MergeJournal(json: held.json()) == held)
    }

    /// An attacker's read: an account's kind grew with every login (keep-both adds the guest's entries, a guest
    /// writes them again after each logout), and each journal held it all. A merge that would make a kind larger
    /// than 1 MiB leaves the guest's kind with the guest; one that stays under it merges.
    @Test func aMergeLargerThanAMebibyteLeavesTheKindWithTheGuest() throws {
        let draft = JSONValue.string(String(repeating: "d", count: 1000))
        let account: [String: JSONValue] = ["drafts": .array(Array(repeating: draft, count: 900))]   // about 0.9 MB
        let small = try MergePlan.plan(guest: ["drafts": .array([draft])], account: account, rules: .builtIn)
        #expect(small.kept.isEmpty && small.merged["drafts"] == .array(Array(repeating: draft, count: 901)))
        let large = try MergePlan.plan(guest: ["drafts": .array(Array(repeating: draft, count: 200)), "favourites": Self.strings("a")], account: account, rules: .builtIn)
        #expect(large.kept == ["drafts"] && large.merged == ["favourites": Self.strings("a")])
        #expect(large.steps.map(\.description) == ["write favourites", "remove-guest favourites"])
        // Applied kind by kind, the same kind is refused as data its rule cannot take (it stays with the guest).
        #expect(throws: MergeError.self) { try MergePlan.plan(kind: "drafts", guest: .array(Array(repeating: draft, count: 200)), account: account["drafts"], rules: .builtIn) }
        #expect(try MergePlan.plan(kind: "notes", guest: .array([draft]), account: nil, rules: .builtIn) == nil)
    }

    /// The size a merge is judged by: the JSON text's length, escapes and numbers as written (`"\u0001"` is 8 bytes,
    /// `1.5e-300` 8); a value far past the limit is judged without being written.
    @Test(arguments: [
        (JSONValue.string("abc"), 5, false), (.string("abcd"), 5, true), (.array([.number(1), .number(2)]), 5, false),
        (.array([.number(1), .number(2)]), 4, true), (.object(["ab": .null]), 11, false), (.object(["ab": .null]), 10, true),
        (.string("\u{1}"), 8, false), (.string("\u{1}"), 7, true), (.number(1.5e-300), 7, true), (.number(.infinity), 1000, true),
    ])
    func sizesAreJudgedByTheText(value: JSONValue, limit: Int, longer: Bool) {
        #expect(value.isLonger(than: limit) == longer)
    }
}
