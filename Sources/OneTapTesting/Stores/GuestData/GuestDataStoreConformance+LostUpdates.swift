import OneTap

/// The merge checks of ``GuestDataStoreConformance`` where the data changes under the merge: the app
/// writing the account or the guest while the merge runs, a crash between two of its writes resumed after
/// the account changed, and an account that changes at every attempt. Nothing may be lost or overwritten.
///
/// Expected values are worked out by hand from `Data/merge-rules.csv` (cart: add-quantities, the
/// account's lines first; favourites: union, the account's items first).
extension GuestDataStoreConformance {
    static func line(_ item: String, _ qty: Int) -> JSONValue { .object(["item": .string(item), "qty": .number(Double(qty))]) }

    /// Seeds a guest (cart x×2, favourites a b) and an account (cart x×1, favourites c).
    static func seed(_ store: any GuestDataStore, guest: GuestID, account: AccountID) async throws {
        try await store.write(.array([line("x", 2)]), kind: "cart", of: .guest(guest))
        try await store.write(.array([.string("a"), .string("b")]), kind: "favourites", of: .guest(guest))
        try await store.write(.array([line("x", 1)]), kind: "cart", of: .account(account))
        try await store.write(.array([.string("c")]), kind: "favourites", of: .account(account))
    }

    static func checkLostUpdates(_ suite: ConformanceHarness, _ makeStore: () async throws -> any GuestDataStore) async throws {
        let guest = GuestID.random()
        let account: AccountID = "conformance-lost-updates"

        // One kind's merge is one compare-and-swap on both sides and the journal: any of them changed, nothing changes.
        try await suite.check("conditional merge of a kind", makeStore) { store in
            try await seed(store, guest: guest, account: account)
            let guestCart: JSONValue = .array([line("x", 2)]), accountCart: JSONValue = .array([line("x", 1)]), merged: JSONValue = .array([line("x", 3)])
            let journal = try await store.createJournal(MergeJournalFixture.make(guest: guest, account: account, plan: MergePlan.applied([], kept: [])))
            let recorded = MergeJournalFixture.advanced(journal)
            let before = (try await store.data(of: .guest(guest)), try await store.data(of: .account(account)))
            for (guestValue, accountValue, version, what) in [
                (JSONValue.array([line("x", 5)]), Optional(accountCart), journal.version, "the guest's value changed"),
                (guestCart, .array([line("x", 7)]), journal.version, "the account's value changed"),
                (guestCart, nil, journal.version, "the account has the kind it had none of when read"),
                (guestCart, accountCart, journal.version + 1, "the journal is at another version"),
            ] {
                // The journal recorded is one more than the version given, so only the stored version can refuse it.
                var recording = journal
                while recording.version <= version { recording = MergeJournalFixture.advanced(recording) }
                let applied = try await store.merge(
                    kind: "cart", of: guest, expecting: guestValue, into: account, expecting: accountValue, setting: merged,
                    recording: recording, over: version)
                suite.expect(!applied, "a merge of a kind must be refused when \(what)")
                let after = (try await store.data(of: .guest(guest)), try await store.data(of: .account(account)))
                suite.expect(after == before, "a refused merge of a kind must change neither side (\(what)), guest \(after.0), account \(after.1)")
                suite.expect(try await store.journal(for: guest) == journal, "a refused merge of a kind must leave the journal as it was (\(what))")
            }
            suite.expect(
                try await store.merge(
                    kind: "cart", of: guest, expecting: guestCart, into: account, expecting: accountCart, setting: merged, recording: recorded,
                    over: journal.version),
                "a merge of a kind whose sides and journal are as read must be applied")
            suite.expect(try await store.data(of: .account(account))["cart"] == merged, "the account must hold the merged value")
            suite.expect(try await store.data(of: .guest(guest))["cart"] == nil, "the guest's copy must be gone")
            suite.expect(try await store.journal(for: guest) == recorded, "the journal must be the one recorded with the merge")
            let other = GuestID.random()
            try await store.write(.array([.string("a")]), kind: "favourites", of: .guest(other))
            let otherJournal = try await store.createJournal(MergeJournalFixture.make(guest: other, account: "conformance-new-account", plan: MergePlan.applied([], kept: [])))
            suite.expect(
                try await store.merge(
                    kind: "favourites", of: other, expecting: .array([.string("a")]), into: "conformance-new-account", expecting: nil,
                    setting: .array([.string("a")]), recording: MergeJournalFixture.advanced(otherJournal), over: otherJournal.version),
                "a merge into an account without the kind must be applied")
            let left = try await store.data(of: .guest(other))
            suite.expect(left.isEmpty, "the guest's copies must be gone, found \(left)")
            await suite.expect(throws: .invalidKind, "a merge of a kind that is none must be refused as invalid-kind") {
                _ = try await store.merge(
                    kind: "Cart", of: guest, expecting: guestCart, into: account, expecting: nil, setting: merged,
                    recording: MergeJournalFixture.advanced(recorded), over: recorded.version)
            }
        }

        // The app adds a cart line to the account right after the merger read the account's data.
        try await suite.check("account written between plan and apply", makeStore) { store in
            try await seed(store, guest: guest, account: account)
            let scripted = ScriptedGuestDataStore(store)
            scripted.afterRead(of: .account(account)) { base, _ in
                try await base.write(.array([line("x", 1), line("y", 4)]), kind: "cart", of: .account(account))
            }
            _ = try await GuestMerger(store: scripted, poll: .milliseconds(5)).merge(guest, into: account)
            let data = try await store.data(of: .account(account))
            suite.expect(
                data["cart"] == .array([line("x", 3), line("y", 4)]),
                "a cart line the account got while the merge ran must be kept and the guest's added to it, got \(String(describing: data["cart"]))")
            suite.expect(data["favourites"] == .array([.string("c"), .string("a"), .string("b")]), "favourites must merge, got \(String(describing: data["favourites"]))")
            suite.expect(try await store.data(of: .guest(guest)).isEmpty, "the merged guest's data must be gone")
        }

        // The guest adds a favourite right after the merger read the guest's data.
        try await suite.check("guest written during the merge", makeStore) { store in
            try await seed(store, guest: guest, account: account)
            let scripted = ScriptedGuestDataStore(store)
            scripted.afterRead(of: .guest(guest)) { base, _ in
                try await base.write(.array([.string("a"), .string("b"), .string("n")]), kind: "favourites", of: .guest(guest))
            }
            _ = try await GuestMerger(store: scripted, poll: .milliseconds(5)).merge(guest, into: account)
            let merged = try await store.data(of: .account(account))["favourites"]?.arrayValue ?? []
            let left = try await store.data(of: .guest(guest))["favourites"]?.arrayValue ?? []
            for item in ["a", "b", "n"] {
                suite.expect(
                    merged.contains(.string(item)) || left.contains(.string(item)),
                    "the guest's favourite \(item) must be in the account or still with the guest, account \(merged), guest \(left)")
            }
            suite.expect(
                try await store.data(of: .account(account))["cart"] == .array([line("x", 3)]), "the cart must be added once")
        }

        // The process dies right after the merge's first change of the account; the app then adds a
        // favourite to the account; the next login resumes from the data as it is.
        try await suite.check("resume after a crash re-plans", makeStore) { store in
            try await seed(store, guest: guest, account: account)
            let scripted = ScriptedGuestDataStore(store)
            scripted.crash(afterAccountChanges: 1)
            let clock = FakeClock()
            do {
                _ = try await GuestMerger(store: scripted, clock: clock, poll: .milliseconds(5)).merge(guest, into: account)
                suite.problem("resume after a crash re-plans: the scripted crash did not stop the merge")
            } catch let error as StoreError where error.kind == .io {
            }
            let between = try await store.data(of: .account(account))
            suite.expect(between["cart"] == .array([line("x", 3)]), "the first kind (cart) must be merged before the crash, got \(between)")
            try await store.write(.array([.string("c"), .string("d")]), kind: "favourites", of: .account(account))
            scripted.heal()
            clock.advance(by: .seconds(31))  // the dead applier's lease runs out
            let journal = try await GuestMerger(store: scripted, clock: clock, poll: .milliseconds(5)).merge(guest, into: account)
            suite.expect(journal.done, "the resumed merge must finish, journal \(journal)")
            let data = try await store.data(of: .account(account))
            suite.expect(
                data["favourites"] == .array([.string("c"), .string("d"), .string("a"), .string("b")]),
                "a favourite the account got after the crash must be kept by the resumed merge, got \(String(describing: data["favourites"]))")
            suite.expect(data["cart"] == .array([line("x", 3)]), "the resumed merge must add the cart once, got \(String(describing: data["cart"]))")
            suite.expect(try await store.data(of: .guest(guest)).isEmpty, "the merged guest's data must be gone")
        }

        // The app changes the account's favourites after every read: the merge gives up with a conflict
        // after its bounded retries, and nothing is lost.
        try await suite.check("an account that changes at every attempt", makeStore) { store in
            try await seed(store, guest: guest, account: account)
            let scripted = ScriptedGuestDataStore(store)
            scripted.afterRead(of: .account(account), times: nil) { base, run in
                let now = try await base.data(of: .account(account))["favourites"]?.arrayValue ?? []
                try await base.write(.array(now + [.string("h\(run)")]), kind: "favourites", of: .account(account))
            }
            do {
                let journal = try await GuestMerger(store: scripted, poll: .milliseconds(5)).merge(guest, into: account)
                suite.problem("an account changed at every attempt must end in a conflict, the merge finished: \(journal)")
            } catch let error as StoreError where error.kind == .conflict {
            } catch {
                suite.problem("an account changed at every attempt must end in a StoreError conflict, threw \(error)")
            }
            let merged = try await store.data(of: .account(account))["favourites"]?.arrayValue ?? []
            let left = try await store.data(of: .guest(guest))["favourites"]?.arrayValue ?? []
            for item in ["a", "b"] {
                suite.expect(merged.contains(.string(item)) || left.contains(.string(item)), "the guest's favourite \(item) must not be lost, account \(merged), guest \(left)")
            }
            suite.expect(merged.contains(.string("h1")) && merged.contains(.string("c")), "the account's own favourites must be kept, got \(merged)")
        }
    }
}
