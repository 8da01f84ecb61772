import OneTap

/// The properties every ``GuestDataStore`` must have, as a suite an adapter runs against itself:
///
/// ```swift
/// @Test func myStoreConforms() async throws {
///     try await GuestDataStoreConformance.check { try await MyGuestDataStore(namespace: UUID().uuidString) }
/// }
/// ```
/// It checks the data (round trip, owners kept apart, replace, remove, kinds that are none refused),
/// the journals (first create wins, compare-and-swap, racing writers), a merge through
/// ``GuestMerger`` raced by many logins, and merges whose data changes under them (the app writing the
/// account or the guest meanwhile, a crash resumed after the account changed): nothing lost or overwritten.
package enum GuestDataStoreConformance {
    /// Runs every check, each on a fresh, empty store.
    /// - Parameters:
    ///   - concurrency: How many operations race in the concurrency checks.
    ///   - makeStore: Makes an empty store.
    /// - Throws: ``ConformanceFailure`` listing every property the store broke, or what `makeStore` throws.
    package static func check(concurrency: Int = 50, _ makeStore: () async throws -> any GuestDataStore) async throws {
        let suite = ConformanceHarness("GuestDataStoreConformance")
        let guest = GuestID.random()
        let other = GuestID.random()
        let account: AccountID = "conformance-account"
        let favourites: JSONValue = .array([.string("a"), .string("b")])
        let settings: JSONValue = .object(["theme": .string("dark"), "size": .number(3), "on": .bool(true), "none": .null])

        // Data round-trips per owner and kind; owners are kept apart; a write replaces; a remove removes.
        try await suite.check("data", makeStore) { store in
            suite.expect(try await store.data(of: .guest(guest)).isEmpty, "an owner never written must have no data")
            try await store.write(favourites, kind: "favourites", of: .guest(guest))
            try await store.write(settings, kind: "settings", of: .guest(guest))
            try await store.write(.array([.string("z")]), kind: "favourites", of: .account(account))
            let read = try await store.data(of: .guest(guest))
            suite.expect(read == ["favourites": favourites, "settings": settings], "data must read back unchanged, read \(read)")
            suite.expect(try await store.data(of: .guest(other)).isEmpty, "another guest must not see the data")
            suite.expect(try await store.data(of: .account(account)) == ["favourites": .array([.string("z")])], "the account's data must be its own")
            try await store.write(.array([]), kind: "favourites", of: .guest(guest))
            suite.expect(try await store.data(of: .guest(guest))["favourites"] == .array([]), "a write must replace the kind")
            try await store.remove(kind: "favourites", of: .guest(guest))
            try await store.remove(kind: "never-written", of: .guest(guest))
            suite.expect(try await store.data(of: .guest(guest)) == ["settings": settings], "a remove must remove only its kind")

            // Kinds that are none (StoreError.check(dataKind:)) are refused by write and remove, and nothing changes.
            for kind in ["", "Favourites", "caf\u{E9}", "a\u{0}b", "a b", String(repeating: "k", count: 65)] {
                for (call, run) in [
                    ("write", { try await store.write(favourites, kind: kind, of: .guest(guest)) }),
                    ("remove", { try await store.remove(kind: kind, of: .guest(guest)) }),
                ] as [(String, () async throws -> Void)] {
                    do {
                        try await run()
                        suite.expect(false, "\(call) of the kind \(kind.debugDescription) must be refused as invalid-kind")
                    } catch let error as StoreError where error.kind == .invalidKind {
                    } catch {
                        suite.expect(false, "\(call) of the kind \(kind.debugDescription) must be refused as invalid-kind, threw \(error)")
                    }
                }
            }
            suite.expect(try await store.data(of: .guest(guest)) == ["settings": settings], "a refused kind must change nothing")
            try await store.write(favourites, kind: String(repeating: "k", count: 64), of: .guest(guest))
            suite.expect(try await store.data(of: .guest(guest))[String(repeating: "k", count: 64)] == favourites, "a kind of 64 characters must be kept")
        }

        // A conditional write applies only over what was read: an insert over none, an update or a delete over
        // the value read, a check of none; anything else writes nothing. Kinds that are none are refused.
        try await suite.check("conditional writes", makeStore) { store in
            let owner = Identity.guest(guest)
            suite.expect(try await store.replace(kind: "cart", of: owner, expecting: favourites, with: settings) == false, "a replace expecting data the owner has not must fail")
            suite.expect(try await store.data(of: owner).isEmpty, "a failed replace must write nothing")
            suite.expect(try await store.replace(kind: "cart", of: owner, expecting: nil, with: nil), "a replace of none by none must succeed when the owner has none")
            suite.expect(try await store.replace(kind: "cart", of: owner, expecting: nil, with: favourites), "a replace expecting none must insert when the owner has none")
            suite.expect(try await store.replace(kind: "cart", of: owner, expecting: nil, with: settings) == false, "a replace expecting none must fail over data")
            suite.expect(try await store.replace(kind: "cart", of: owner, expecting: nil, with: nil) == false, "a replace of none by none must fail over data")
            suite.expect(try await store.replace(kind: "cart", of: owner, expecting: settings, with: .array([])) == false, "a replace expecting other data must fail")
            let kept = try await store.data(of: owner)
            suite.expect(kept == ["cart": favourites], "failed replaces must leave the data as it was, read \(kept)")
            suite.expect(try await store.replace(kind: "cart", of: owner, expecting: favourites, with: settings), "a replace expecting the data held must succeed")
            suite.expect(try await store.data(of: .account(account)).isEmpty, "a replace must change only its owner")
            suite.expect(try await store.replace(kind: "cart", of: owner, expecting: favourites, with: nil) == false, "a delete expecting replaced data must fail")
            suite.expect(try await store.replace(kind: "cart", of: owner, expecting: settings, with: nil), "a delete expecting the data held must succeed")
            let deleted = try await store.data(of: owner)
            suite.expect(deleted.isEmpty, "a delete must remove the kind, read \(deleted)")
            do {
                _ = try await store.replace(kind: "Cart", of: owner, expecting: nil, with: favourites)
                suite.expect(false, "a replace of the kind \"Cart\" must be refused as invalid-kind")
            } catch let error as StoreError where error.kind == .invalidKind {
            } catch {
                suite.expect(false, "a replace of the kind \"Cart\" must be refused as invalid-kind, threw \(error)")
            }
            suite.expect(try await store.data(of: owner).isEmpty, "a refused kind must change nothing")
        }

        // A value JSON text cannot carry back is refused with a store error, or read back unchanged; either way every
        // other kind of its owner stays readable (an attacker's read: PostgreSQL stored a value nested deeper than its
        // reader reads, and every later read of the owner failed `corrupt`, every kind lost with it; it stored infinity
        // as null, which memory kept). Values are compared as their JSON text, byte for byte (memory compared strings
        // by canonical equivalence, the database by bytes).
        try await suite.check("values it cannot read back", makeStore) { store in
            let owner = Identity.guest(guest)
            try await store.write(favourites, kind: "favourites", of: owner)
            var deep: JSONValue = .null
            for _ in 0..<512 { deep = .array([deep]) }
            try await store.write(deep, kind: "deepest", of: owner)
            suite.expect(try await store.data(of: owner)["deepest"] == deep, "a value nested 512 levels deep must read back")
            let tooDeep: JSONValue = .array([deep])
            for (name, value) in [("nested 513 levels deep", tooDeep), ("holding infinity", .array([.number(.infinity)])), ("holding NaN", .object(["n": .number(.nan)]))] {
                for (call, run) in [
                    ("write", { try await store.write(value, kind: "bad", of: owner) }),
                    ("replace", { _ = try await store.replace(kind: "bad", of: owner, expecting: nil, with: value) }),
                ] as [(String, () async throws -> Void)] {
                    var kept = true
                    do {
                        try await run()
                    } catch is StoreError {
                        kept = false
                    } catch {
                        suite.expect(false, "a \(call) of a value \(name) must be read back or refused with a StoreError, threw \(error)")
                    }
                    do {
                        let read = try await store.data(of: owner)
                        let others = read["favourites"] == favourites && read["deepest"] == deep && read.count == (kept ? 3 : 2)
                        suite.expect(others && (!kept || Self.unchanged(read["bad"], value)), "after a \(call) of a value \(name) the owner's data must read back as written, read \(read.keys.sorted())")
                    } catch {
                        suite.expect(false, "after a \(call) of a value \(name) the owner's data must stay readable, threw \(error)")
                    }
                    try await store.remove(kind: "bad", of: owner)
                }
            }
            try await store.write(.string("caf\u{E9}"), kind: "name", of: owner)
            let decomposed = try await store.replace(kind: "name", of: owner, expecting: .string("cafe\u{301}"), with: .string("x"))
            suite.expect(!decomposed, "a replace expecting another spelling of the text held (e and a combining accent for \u{E9}) must fail")
            try await store.write(.null, kind: "score", of: owner)
            let sameText = try await store.replace(kind: "score", of: owner, expecting: .number(.infinity), with: .number(1))
            suite.expect(sameText, "a replace expecting a value whose JSON text is the one held (infinity writes null) must succeed")
        }

        // Racing changes made from one read: exactly one lands, and it lands whole.
        try await suite.check("racing conditional writes", makeStore) { store in
            let owner = Identity.account(account)
            try await store.write(favourites, kind: "cart", of: owner)
            let wins = try await suite.race(concurrency) { index in
                try await store.replace(kind: "cart", of: owner, expecting: favourites, with: .array([.number(Double(index))])) ? index : nil
            }.compactMap { $0 }
            let landed = try await store.data(of: owner)["cart"]
            suite.expect(wins.count == 1, "\(concurrency) racing changes from one read must let exactly one land, \(wins.count) landed")
            suite.expect(wins.count != 1 || landed == .array([.number(Double(wins[0]))]), "the change that landed must be the one stored, read \(String(describing: landed))")
        }

        // Journals: the first create wins; compare-and-swap on the version.
        try await suite.check("journals", makeStore) { store in
            let plan = try MergePlan.plan(guest: ["favourites": favourites], account: [:], rules: .builtIn)
            suite.expect(try await store.journal(for: guest) == nil, "a guest never merged must have no journal")
            let first = MergeJournalFixture.make(guest: guest, account: account, plan: plan)
            let stored = try await store.createJournal(first)
            suite.expect(stored.account == account && stored.version == 1, "create must store the journal, stored \(stored)")
            let second = MergeJournalFixture.make(guest: guest, account: "someone-else", plan: plan)
            let kept = try await store.createJournal(second)
            suite.expect(kept.account == account, "a second create must return the first journal, returned \(kept)")
            let next = MergeJournalFixture.advanced(stored)
            suite.expect(try await store.replaceJournal(next, expecting: 1), "a replace at the stored version must succeed")
            suite.expect(try await store.replaceJournal(MergeJournalFixture.advanced(stored), expecting: 1) == false, "a replace at an old version must fail")
            let read = try await store.journal(for: guest)
            suite.expect(read?.version == 2 && read?.completed == 1, "the journal must read back as replaced, read \(String(describing: read))")
        }

        // Racing replaces at one version: exactly one wins.
        try await suite.check("racing replaces", makeStore) { store in
            let plan = try MergePlan.plan(guest: ["favourites": favourites], account: [:], rules: .builtIn)
            let stored = try await store.createJournal(MergeJournalFixture.make(guest: guest, account: account, plan: plan))
            let wins = try await suite.race(concurrency) { _ in
                try await store.replaceJournal(MergeJournalFixture.advanced(stored), expecting: stored.version)
            }.filter { $0 }.count
            suite.expect(wins == 1, "\(concurrency) racing replaces at one version must let exactly one win, \(wins) won")
        }

        // Many logins of one guest at once merge once: the account gets the cart's quantities added once.
        try await suite.check("racing merges", makeStore) { store in
            try await store.write(.array([.object(["item": .string("x"), "qty": .number(2)])]), kind: "cart", of: .guest(guest))
            try await store.write(.array([.object(["item": .string("x"), "qty": .number(1)])]), kind: "cart", of: .account(account))
            try await store.write(favourites, kind: "favourites", of: .guest(guest))
            let merger = GuestMerger(store: store, poll: .milliseconds(5))
            _ = try await suite.race(concurrency) { _ in _ = try await merger.merge(guest, into: account) }
            let data = try await store.data(of: .account(account))
            suite.expect(data["cart"] == .array([.object(["item": .string("x"), "qty": .number(3)])]), "racing merges must add the cart once, got \(String(describing: data["cart"]))")
            suite.expect(data["favourites"] == favourites, "the favourites must be the account's, got \(String(describing: data["favourites"]))")
            let left = try await store.data(of: .guest(guest))
            suite.expect(left.isEmpty, "the merged guest's data must be gone, found \(left)")
            suite.expect(try await store.journal(for: guest)?.done == true, "the journal must be done")
        }

        try await checkLostUpdates(suite, makeStore)

        try suite.finish()
    }

    /// Whether a value read back is the one written: equal, NaN standing for NaN.
    static func unchanged(_ read: JSONValue?, _ written: JSONValue) -> Bool {
        switch (read, written) {
        case (.number(let one)?, .number(let other)): one == other || one.isNaN && other.isNaN
        case (.array(let one)?, .array(let other)): one.count == other.count && zip(one, other).allSatisfy { unchanged($0, $1) }
        case (.object(let one)?, .object(let other)): one.keys == other.keys && one.allSatisfy { unchanged($0.value, other[$0.key]!) }
        default: read == written
        }
    }

    /// What a built-in store refuses as `too-large`, by a write, a replace and a merge alike: a value nested 513 levels
    /// deep, or holding a number JSON has no text for; 512 levels are kept.
    /// - Parameter store: An empty built-in store.
    /// - Returns: The problems found; none when it refuses each as it should.
    package static func builtInRefusals(of store: any GuestDataStore) async throws -> [String] {
        var deepest: JSONValue = .null
        for _ in 0..<512 { deepest = .array([deepest]) }
        var problems: [String] = []
        func refused(_ call: String, _ run: () async throws -> Void) async {
            do {
                try await run()
                problems.append("\(call) was not refused")
            } catch let error as StoreError where error.kind == .tooLarge {
            } catch {
                problems.append("\(call) threw \(error), not too-large")
            }
        }
        let account: AccountID = "refusals-account"
        for (name, bad) in [("513 levels", JSONValue.array([deepest])), ("NaN", .object(["n": .number(.nan)])), ("-infinity", .array([.number(-.infinity)]))] {
            let guest = GuestID.random()
            await refused("a write of \(name)") { try await store.write(bad, kind: "history", of: .guest(guest)) }
            await refused("a replace with \(name)") { _ = try await store.replace(kind: "history", of: .guest(guest), expecting: nil, with: bad) }
            if try await !store.data(of: .guest(guest)).isEmpty { problems.append("a refused write or replace of \(name) wrote the guest's data") }
            try await store.write(.array([]), kind: "history", of: .guest(guest))
            let journal = try await store.createJournal(MergeJournalFixture.make(guest: guest, account: account, plan: try MergePlan.plan(guest: ["history": .array([])], account: [:], rules: .builtIn)))
            await refused("a merge setting \(name)") {
                _ = try await store.merge(kind: "history", of: guest, expecting: .array([]), into: account, expecting: nil, setting: bad, recording: MergeJournalFixture.advanced(journal), over: journal.version)
            }
            if try await store.data(of: .guest(guest)) != ["history": .array([])] { problems.append("a refused merge of \(name) changed the guest's data") }
            if try await store.journal(for: guest)?.version != journal.version { problems.append("a refused merge of \(name) changed the journal") }
        }
        if try await !store.data(of: .account(account)).isEmpty { problems.append("a refused merge wrote the account's data") }
        try await store.write(deepest, kind: "history", of: .account(account))
        if try await store.data(of: .account(account))["history"] != deepest { problems.append("a value 512 levels deep did not read back") }
        return problems
    }
}

/// Journals for the conformance suite, made through the package's own initialiser.
enum MergeJournalFixture {
    static func make(guest: GuestID, account: AccountID, plan: MergePlan) -> MergeJournal {
        MergeJournal(guest: guest, account: account, plan: plan, startedAt: Date(timeIntervalSince1970: 1_796_090_400))
    }

    static func advanced(_ journal: MergeJournal) -> MergeJournal {
        var next = journal
        next.completed += 1
        next.version += 1
        return next
    }
}

/// Four merge journals around the 30-day retention of a finished merge's journal, for a test of a store's sweep:
/// finished 30 days and a second before `now` (a sweep at `now` removes it), finished just inside the 30 days,
/// unfinished for 40 days (a merge to resume: kept), and begun 40 days ago but finished yesterday (kept 30 days
/// from its finish).
package struct MergeJournalRetentionCase: Sendable {
    /// The guests of the four journals, in that order.
    package let guests: [GuestID]
    /// The fourth journal as its finish stored it.
    package let finished: MergeJournal

    /// Writes the four journals.
    /// - Parameters:
    ///   - store: The store.
    ///   - now: The instant the sweep will run at.
    ///   - prefix: The guest ids' first 14 characters (each store's test its own).
    /// - Returns: The case.
    /// - Throws: What the store throws.
    package static func write(to store: any GuestDataStore, now: Date, prefix: String) async throws -> MergeJournalRetentionCase {
        let guests = try (0..<4).map { try GuestID(prefix + "0000000\($0)") }
        let empty = try MergePlan.plan(guest: [:], account: [:], rules: .builtIn)
        let unfinished = try MergePlan.plan(guest: ["favourites": ["a"]], account: [:], rules: .builtIn)
        let month = 2_592_000.0  // 30 days, written out: the retention the stores promise, not read from them
        _ = try await store.createJournal(MergeJournal(guest: guests[0], account: "a", plan: empty, startedAt: now.addingTimeInterval(-month - 1)))
        _ = try await store.createJournal(MergeJournal(guest: guests[1], account: "a", plan: empty, startedAt: now.addingTimeInterval(-month + 1)))
        _ = try await store.createJournal(MergeJournal(guest: guests[2], account: "a", plan: unfinished, startedAt: now.addingTimeInterval(-40 * 86_400)))
        let late = MergeJournal(guest: guests[3], account: "a", plan: unfinished, startedAt: now.addingTimeInterval(-40 * 86_400))
        _ = try await store.createJournal(late)
        var finished = late
        finished.completed = late.plan.steps.count
        finished.done = true
        finished.finishedAt = now.addingTimeInterval(-86_400)
        finished.version += 1
        guard try await store.replaceJournal(finished, expecting: late.version) else {
            throw ConformanceFailure(suite: "GuestDataStoreConformance", problems: ["the store refused to finish a merge journal at its version"])
        }
        return MergeJournalRetentionCase(guests: guests, finished: finished)
    }

    /// What a sweep at `now` must leave, unmet: empty when the first journal is gone and the other three stay as written.
    /// - Parameter store: The store, swept at `now`.
    /// - Returns: The problems found.
    /// - Throws: What the store throws.
    package func problems(afterASweepOf store: any GuestDataStore) async throws -> [String] {
        var problems: [String] = []
        if try await store.journal(for: guests[0]) != nil { problems.append("a journal finished 30 days and a second ago is still kept") }
        if try await store.journal(for: guests[1])?.done != true { problems.append("a journal finished inside 30 days is gone") }
        if try await store.journal(for: guests[2])?.done != false { problems.append("an unfinished journal is gone") }
        if try await store.journal(for: guests[3]) != finished { problems.append("a journal finished yesterday is not as its finish wrote it") }
        return problems
    }
}
