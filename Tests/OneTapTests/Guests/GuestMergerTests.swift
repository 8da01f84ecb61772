import Foundation
import OneTapTesting
import Testing
@testable import OneTap

/// Merges applied through a store: first and existing accounts, a crash after every step resumed, a
/// merge run twice, racing logins, and the errors.
@Suite struct GuestMergerTests {
    static let guest = GuestID.random()
    static func line(_ id: String, _ qty: Int) -> JSONValue { .object(["item": .string(id), "qty": .number(Double(qty))]) }

    static let guestData: [String: JSONValue] = [
        "favourites": .array([.string("a"), .string("b")]),
        "cart": .array([line("x", 2), line("y", 98)]),
        "downloads": .array([.string("v1"), .string("v2")]),
        "settings": .object(["theme": .string("dark")]),
        "notes": .array([.string("kept with the guest")]),
    ]
    static let accountData: [String: JSONValue] = [
        "favourites": .array([.string("b"), .string("c")]),
        "cart": .array([line("y", 5)]),
        "downloads": .array([.string("v1")]),
        "settings": .object(["theme": .string("light")]),
    ]
    /// Worked out by hand from the rules.
    static let expectedAccount: [String: JSONValue] = [
        "favourites": .array([.string("b"), .string("c"), .string("a")]),
        "cart": .array([line("y", 99), line("x", 2)]),
        "downloads": .array([.string("v1"), .string("v2")]),
        "settings": .object(["theme": .string("light")]),
    ]

    static func seeded(account: [String: JSONValue] = accountData) async throws -> InMemoryGuestDataStore {
        let store = InMemoryGuestDataStore()
        for (kind, value) in guestData { try await store.write(value, kind: kind, of: .guest(guest)) }
        for (kind, value) in account { try await store.write(value, kind: kind, of: .account("42")) }
        return store
    }

    /// The seeded store, and a store over it through which every read of the account's data is followed by the app
    /// adding a favourite to the account (`app-1`, `app-2`, …).
    static func seededWithTheAppWritingFavourites() async throws -> (InMemoryGuestDataStore, ScriptedGuestDataStore) {
        let base = try await seeded()
        let scripted = ScriptedGuestDataStore(base)
        scripted.afterRead(of: .account("42"), times: nil) { store, run in
            let now = try await store.data(of: .account("42"))["favourites"]?.arrayValue ?? []
            try await store.write(.array(now + [.string("app-\(run)")]), kind: "favourites", of: .account("42"))
        }
        return (base, scripted)
    }

    /// An attacker's read of the merges: every journal held the whole account's data (a mebibyte a kind at most, written
    /// at its creation, its lease and its end, kept 30 days), so logins from fresh guests holding one favourite each
    /// stored the account again and again. A journal holds what it merges.
    @Test func aJournalHoldsWhatItMergesNotTheWholeAccount() async throws {
        let store = InMemoryGuestDataStore()
        let guest = GuestID.random()
        try await store.write(.array([.string("a")]), kind: "favourites", of: .guest(guest))
        let notes = JSONValue.array((0..<20_000).map { .string("n\($0)" + String(repeating: "x", count: 48)) })
        try await store.write(notes, kind: "notes", of: .account("42"))
        try await store.write(.array([.string("b")]), kind: "favourites", of: .account("42"))
        let journal = try await GuestMerger(store: store).merge(guest, into: "42")
        #expect(journal.plan.merged == ["favourites": .array([.string("b"), .string("a")])])
        let stored = try #require(try await store.journal(for: guest))
        let size = try stored.json().utf8.count
        #expect(size < 4_096, "\(size) bytes")
        #expect(try await store.data(of: .account("42"))["notes"] == notes, "the account's other kinds as they were")
    }

    @Test func anExistingAccountGetsTheGuestsDataAndTheGuestKeepsOnlyWhatHasNoRule() async throws {
        let store = try await Self.seeded()
        let journal = try await GuestMerger(store: store).merge(Self.guest, into: "42")
        #expect(journal.done && journal.completed == journal.plan.steps.count)
        #expect(try await store.data(of: .account("42")) == Self.expectedAccount)
        #expect(try await store.data(of: .guest(Self.guest)) == ["notes": .array([.string("kept with the guest")])])
        #expect(journal.plan.kept == ["notes"])
    }

    @Test func aFirstLoginCreatesTheAccountsData() async throws {
        let store = try await Self.seeded(account: [:])
        _ = try await GuestMerger(store: store).merge(Self.guest, into: "42")
        let account = try await store.data(of: .account("42"))
        #expect(account["favourites"] == Self.guestData["favourites"] && account["cart"] == Self.guestData["cart"])
    }

    /// A guest with nothing a rule takes (no data, or only kinds no rule has) is merged with no journal stored and
    /// no write (an attacker's read: each login stored a journal of the account's data for 30 days).
    @Test func aGuestWithNothingToMergeStoresNoJournal() async throws {
        let store = InMemoryGuestDataStore()
        try await store.write(.array([.string("b")]), kind: "favourites", of: .account("42"))
        let empty = GuestID.random(), notesOnly = GuestID.random()
        try await store.write(.array([.string("kept with the guest")]), kind: "notes", of: .guest(notesOnly))
        for guest in [empty, notesOnly] {
            let journal = try await GuestMerger(store: store).merge(guest, into: "42")
            #expect(journal.done && journal.plan.steps.isEmpty && journal.completed == 0)
            #expect(try await store.journal(for: guest) == nil)
        }
        #expect(try await GuestMerger(store: store).merge(notesOnly, into: "42").plan.kept == ["notes"])
        #expect(try await store.data(of: .guest(notesOnly)) == ["notes": .array([.string("kept with the guest")])])
        #expect(try await store.data(of: .account("42")) == ["favourites": .array([.string("b")])])
        // A guest whose data another login merged already (its journal stored, its data gone): that journal, not an
        // empty one; into another account, merged-elsewhere.
        let merged = GuestID.random()
        try await store.write(.array([.string("z")]), kind: "favourites", of: .guest(merged))
        let first = try await GuestMerger(store: store).merge(merged, into: "42")
        #expect(try await store.data(of: .guest(merged)).isEmpty)
        #expect(try await GuestMerger(store: store).merge(merged, into: "42") == first)
        await #expect { try await GuestMerger(store: store).merge(merged, into: "99") } throws: { ($0 as? MergeError)?.kind == .mergedElsewhere }
    }

    /// Through a store: a guest's kind whose merge would pass 1 MiB stays with the guest, reported as kept, and the
    /// other kinds merge (an attacker's read: an account's drafts grew with every login).
    @Test func aKindTooLargeToMergeStaysWithTheGuest() async throws {
        let store = InMemoryGuestDataStore()
        let draft = JSONValue.string(String(repeating: "d", count: 1000))
        let guest = GuestID.random()
        try await store.write(.array(Array(repeating: draft, count: 900)), kind: "drafts", of: .account("42"))
        try await store.write(.array(Array(repeating: draft, count: 200)), kind: "drafts", of: .guest(guest))
        try await store.write(.array([.string("a")]), kind: "favourites", of: .guest(guest))
        let journal = try await GuestMerger(store: store).merge(guest, into: "42")
        #expect(journal.done && journal.plan.kept == ["drafts"])
        #expect(try await store.data(of: .guest(guest)) == ["drafts": .array(Array(repeating: draft, count: 200))])
        let account = try await store.data(of: .account("42"))
        #expect(account["drafts"] == .array(Array(repeating: draft, count: 900)) && account["favourites"] == .array([.string("a")]))
    }

    @Test func mergingTwiceIsMergingOnce() async throws {
        let store = try await Self.seeded()
        let merger = GuestMerger(store: store)
        let first = try await merger.merge(Self.guest, into: "42")
        let second = try await merger.merge(Self.guest, into: "42")
        #expect(second == first)
        #expect(try await store.data(of: .account("42")) == Self.expectedAccount, "quantities are not added twice")
    }

    /// Stop the store after every call in turn, then resume: the result is always the uninterrupted one.
    @Test func aCrashAfterAnyStepThenResumedEqualsAnUninterruptedMerge() async throws {
        // How many store calls an uninterrupted merge makes.
        let counting = FaultyGuestDataStore(try await Self.seeded())
        counting.fail(after: .max)
        _ = try await GuestMerger(store: counting).merge(Self.guest, into: "42")
        let total = counting.calls
        #expect(total > 10)
        // What an uninterrupted merge reports, worked out by hand for `downloads` (move-unless-present): the seed
        // file's migration moves and deletes files by it.
        let uninterrupted = try await GuestMerger(store: Self.seeded()).merge(Self.guest, into: "42")
        #expect(uninterrupted.plan.moved == ["downloads": ["v2"]] && uninterrupted.plan.discarded == ["downloads": ["v1"]])
        #expect(uninterrupted.plan.merged == Self.expectedAccount)
        for stop in 0..<total {
            let base = try await Self.seeded()
            let faulty = FaultyGuestDataStore(base)
            faulty.fail(after: stop)
            let clock = FakeClock()
            do {
                _ = try await GuestMerger(store: faulty, clock: clock).merge(Self.guest, into: "42")
                Issue.record("the merge should have failed after \(stop) calls")
            } catch let error as StoreError {
                #expect(error.kind == .io)
            }
            // Nothing of the guest is lost at the stop: each item is with the guest or the account.
            let guestNow = try await base.data(of: .guest(Self.guest)), accountNow = try await base.data(of: .account("42"))
            for kind in ["favourites", "cart", "downloads"] {
                #expect(guestNow[kind] != nil || accountNow[kind] == Self.expectedAccount[kind], "stop \(stop): \(kind) is neither with the guest nor merged")
            }
            faulty.heal()
            clock.advance(by: .seconds(31))   // the stopped applier's lease runs out
            let journal = try await GuestMerger(store: faulty, clock: clock).merge(Self.guest, into: "42")
            #expect(journal.done)
            // An attacker's read: the journal of a resumed merge left out the kinds merged before the stop.
            #expect(journal.plan == uninterrupted.plan, "stop \(stop): the journal says what the whole merge did")
            #expect(try await base.data(of: .account("42")) == Self.expectedAccount, "stop \(stop)")
            #expect(try await base.data(of: .guest(Self.guest)) == ["notes": .array([.string("kept with the guest")])], "stop \(stop)")
        }
    }

    /// A kind merged in a run that then stopped, written anew by the guest, and merged again when the merge resumed: the
    /// journal keeps what both merges moved and discarded, and holds the kind once (a review and an attacker's read:
    /// the later merge's lists replaced the earlier's, and each run added the kind's write again).
    @Test func aKindMergedAgainAfterAStopKeepsWhatItsFirstMergeMoved() async throws {
        // The app writes the account's favourites at every read: that kind ends in a conflict, after downloads merged.
        let (base, scripted) = try await Self.seededWithTheAppWritingFavourites()
        let clock = FakeClock()
        await #expect { try await GuestMerger(store: scripted, clock: clock).merge(Self.guest, into: "42") } throws: {
            ($0 as? StoreError)?.kind == .conflict
        }
        #expect(try await base.data(of: .guest(Self.guest))["downloads"] == nil, "downloads merged before the stop")
        try await base.write(.array([.string("v3")]), kind: "downloads", of: .guest(Self.guest))
        clock.advance(by: .seconds(31))
        let journal = try await GuestMerger(store: base, clock: clock).merge(Self.guest, into: "42")
        #expect(journal.done)
        #expect(journal.plan.moved["downloads"] == ["v2", "v3"])
        #expect(journal.plan.discarded["downloads"] == ["v1"])
        #expect(journal.plan.steps.filter { $0 == .removeGuest(kind: "downloads") }.count == 1)
        #expect(journal.plan.steps.filter { if case .write("downloads", _) = $0 { true } else { false } }.count == 1)
        #expect(journal.plan.merged["downloads"] == .array([.string("v1"), .string("v2"), .string("v3")]))
        #expect(try await base.data(of: .account("42"))["downloads"] == .array([.string("v1"), .string("v2"), .string("v3")]))
    }

    @Test func twoLoginsOfOneGuestAtOnceMergeOnce() async throws {
        for _ in 0..<20 {
            let store = try await Self.seeded()
            let merger = GuestMerger(store: store, poll: .milliseconds(1))
            async let first = merger.merge(Self.guest, into: "42")
            async let second = merger.merge(Self.guest, into: "42")
            let (a, b) = try await (first, second)
            #expect(a.plan == b.plan && a.done && b.done)
            #expect(try await store.data(of: .account("42")) == Self.expectedAccount)
        }
    }

    /// An account the app changes at every attempt: the merge stops with a conflict naming the kind (never
    /// its data), nothing is lost, and once the app stops writing the next call finishes the merge, keeping
    /// every favourite the app wrote.
    @Test func aMergeThatKeptConflictingStopsLosingNothingAndTheNextCallFinishesIt() async throws {
        let (base, scripted) = try await Self.seededWithTheAppWritingFavourites()
        let clock = FakeClock()
        let error = await #expect(throws: StoreError.self) { try await GuestMerger(store: scripted, clock: clock).merge(Self.guest, into: "42") }
        #expect(error?.kind == .conflict)
        #expect(error.map { "\($0)".contains("favourites") && !"\($0)".contains("app-1") } == true, "\(String(describing: error))")
        #expect(try await base.data(of: .guest(Self.guest))["favourites"] == Self.guestData["favourites"], "the conflicting kind is still with the guest")
        #expect(try await base.journal(for: Self.guest)?.done == false)

        let written = try await base.data(of: .account("42"))["favourites"]?.arrayValue ?? []
        clock.advance(by: .seconds(31))  // the stopped applier's lease runs out
        let journal = try await GuestMerger(store: base, clock: clock).merge(Self.guest, into: "42")
        #expect(journal.done)
        #expect(try await base.data(of: .account("42"))["favourites"] == .array(written + [.string("a")]), "the app's favourites kept, the guest's added")
        #expect(try await base.data(of: .guest(Self.guest)) == ["notes": .array([.string("kept with the guest")])])
    }

    /// The app's own change of account data it read (a cart line added) used to be a plain write: a merge that
    /// landed between the app's read and its write was overwritten, and the guest's cart, already deleted from
    /// the guest, was gone. Written through `replace(kind:of:expecting:with:)`, the app's write is refused once
    /// the merge landed; read again and redone, it keeps both.
    @Test func anAppsChangeOfDataItReadNeverOverwritesAMergeThatLandedMeanwhile() async throws {
        let store = try await Self.seeded()
        let read = try await store.data(of: .account("42"))["cart"]
        #expect(read == .array([Self.line("y", 5)]))
        // The login's merge lands while the app holds what it read.
        #expect(try await GuestMerger(store: store).merge(Self.guest, into: "42").done)
        // The app's change, made from its stale read, is refused and writes nothing.
        let stale = JSONValue.array([Self.line("y", 5), Self.line("z", 1)])
        #expect(try await store.replace(kind: "cart", of: .account("42"), expecting: read, with: stale) == false)
        #expect(try await store.data(of: .account("42"))["cart"] == .array([Self.line("y", 99), Self.line("x", 2)]))
        // Redone from a fresh read, it lands and keeps the guest's line.
        let fresh = try #require(try await store.data(of: .account("42"))["cart"]?.arrayValue)
        #expect(try await store.replace(kind: "cart", of: .account("42"), expecting: .array(fresh), with: .array(fresh + [Self.line("z", 1)])))
        #expect(try await store.data(of: .account("42"))["cart"] == .array([Self.line("y", 99), Self.line("x", 2), Self.line("z", 1)]))
    }

    @Test func aGuestMergesIntoOneAccountOnly() async throws {
        let store = try await Self.seeded()
        _ = try await GuestMerger(store: store).merge(Self.guest, into: "42")
        let error = await #expect(throws: MergeError.self) { try await GuestMerger(store: store).merge(Self.guest, into: "43") }
        #expect(error?.kind == .mergedElsewhere)
    }

    /// A review: a kind whose data its rule cannot read when the merge is planned (the guest's `favourites` not a
    /// list, or the account's `cart` in a newer shape) failed the whole merge, at every refresh, for good, so no kind
    /// ever merged. It stays with the guest, reported as kept, and the other kinds merge, as a kind that becomes
    /// unreadable later does.
    @Test(arguments: [false, true])
    func dataTheRulesCannotReadStaysWithTheGuestAndTheRestMerges(accountSide: Bool) async throws {
        let store = try await Self.seeded()
        let kind = accountSide ? "cart" : "favourites"
        try await store.write(.string("not a list"), kind: kind, of: accountSide ? .account("42") : .guest(Self.guest))
        let journal = try await GuestMerger(store: store).merge(Self.guest, into: "42")
        #expect(journal.done)
        #expect(journal.plan.kept == [kind, "notes"].sorted())
        let account = try await store.data(of: .account("42"))
        for other in ["favourites", "cart", "downloads", "settings"] where other != kind {
            #expect(account[other] == Self.expectedAccount[other], "\(other)")
        }
        #expect(account[kind] == (accountSide ? .string("not a list") : Self.accountData[kind]), "the account's own, untouched")
        let left = try await store.data(of: .guest(Self.guest))
        #expect(left[kind] == (accountSide ? Self.guestData[kind] : .string("not a list")), "still with the guest")
    }

    /// The attacker's read of 2026-12-05: a kind whose data became unreadable after the merge began (the app
    /// wrote a new shape to the account's cart) failed every run of the merge, so no other kind ever merged. It
    /// stays with the guest, reported as kept, and the other kinds merge.
    @Test func aKindThatBecameUnreadableIsKeptAndTheOthersMerge() async throws {
        let base = try await Self.seeded()
        let scripted = ScriptedGuestDataStore(base)
        scripted.afterRead(of: .account("42"), times: 1) { store, _ in
            try await store.write(.string("a new shape"), kind: "cart", of: .account("42"))
        }
        let journal = try await GuestMerger(store: scripted).merge(Self.guest, into: "42")
        #expect(journal.done)
        let account = try await base.data(of: .account("42"))
        for kind in ["favourites", "downloads", "settings"] { #expect(account[kind] == Self.expectedAccount[kind], "\(kind)") }
        #expect(account["cart"] == .string("a new shape"))
        #expect(try await base.data(of: .guest(Self.guest))["cart"] == Self.guestData["cart"], "the cart is still with the guest")
        #expect(journal.plan.kept == ["cart", "notes"])
    }

    /// The attacker's read of 2026-12-04: the lease was taken once, though the doc said it renews at each step, so a
    /// merge slower than the lease let a second applier join it. Each kind here takes 20 s of a 30 s lease; the
    /// lease is renewed between kinds, so it never lapses while the merge makes progress, and a second login
    /// meanwhile finds the merge busy.
    @Test func aSlowMergeRenewsItsLeaseBetweenKinds() async throws {
        let clock = FakeClock()
        let store = ScriptedGuestDataStore(try await Self.seeded())
        let merges = LockedValue<[(at: Date, leaseUntil: Date?)]>([])
        store.afterMerge { base, _ in
            let leaseUntil = try await base.journal(for: Self.guest)?.leaseUntil
            merges.withLock { $0.append((clock.now(), leaseUntil)) }
            clock.advance(by: .seconds(20))   // each kind takes 20 s of the 30 s lease
        }
        let merger = GuestMerger(store: store, clock: clock, lease: .seconds(30))
        let journal = try await merger.merge(Self.guest, into: "42", waiting: false)
        let seen = merges.withLock { $0 }
        #expect(journal.done && seen.count == 4, "\(seen)")
        for (at, leaseUntil) in seen {
            #expect(leaseUntil.map { $0 > at } == true, "a kind merged at \(at) after the lease ran out at \(String(describing: leaseUntil))")
        }
        #expect(try await store.data(of: .account("42")) == Self.expectedAccount)
    }

    /// Another applier that took the journal over between two kinds (this one's lease had run out) keeps it: the
    /// first stops before its next kind, follows the journal as it stands, and finds the merge busy.
    @Test func anApplierWhoseJournalWasTakenOverStopsBeforeItsNextKind() async throws {
        let clock = FakeClock()
        let store = ScriptedGuestDataStore(try await Self.seeded())
        store.afterMerge { base, count in
            clock.advance(by: .seconds(20))
            guard count == 2, var taken = try await base.journal(for: Self.guest) else { return }
            let version = taken.version
            taken.holder = "another-applier"
            taken.leaseUntil = clock.now().addingTimeInterval(3_600)
            taken.version += 1
            #expect(try await base.replaceJournal(taken, expecting: version))
        }
        let merger = GuestMerger(store: store, clock: clock, lease: .seconds(30))
        await #expect { try await merger.merge(Self.guest, into: "42", waiting: false) } throws: { ($0 as? MergeError)?.kind == .busy }
        let left = try await store.data(of: .guest(Self.guest))
        #expect(left.count == 3, "two kinds merged, none after the journal was taken over: \(left.keys.sorted())")
        #expect(try await store.journal(for: Self.guest)?.holder == "another-applier")
    }

    @Test func aMergeHeldByAnotherLoginForTooLongIsBusy() async throws {
        let store = try await Self.seeded()
        let clock = FakeClock()
        // Another applier took the journal and keeps renewing its lease far ahead.
        let plan = try MergePlan.plan(guest: Self.guestData, account: Self.accountData, rules: .builtIn)
        var held = try await store.createJournal(MergeJournal(guest: Self.guest, account: "42", plan: plan, startedAt: clock.now()))
        let version = held.version
        held.holder = "someone-else"
        held.leaseUntil = clock.now().addingTimeInterval(3_600)
        held.version += 1
        #expect(try await store.replaceJournal(held, expecting: version))
        let merger = GuestMerger(store: store, clock: clock, lease: .seconds(1), poll: .milliseconds(100))
        async let waiting = merger.merge(Self.guest, into: "42")
        // The merger gives up two leases (2 s) after it started waiting: twenty polls of 100 ms, each one
        // let pass once the merger sleeps on the fake clock.
        for _ in 0..<20 {
            await clock.waitForSleepers(1)
            clock.advance(by: .milliseconds(100))
        }
        do {
            let journal = try await waiting
            Issue.record("the merge went through: \(journal)")
        } catch let error as MergeError {
            #expect(error.kind == .busy)
        }
        #expect(clock.sleeperCount == 0)
    }
}
