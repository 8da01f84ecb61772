import Foundation
import OneTap
@testable import OneTapPostgres
import OneTapPostgresTestSupport
import OneTapTesting
import Testing

@Suite(.connectionBudget) struct PostgresGuestDataStoreTests {
    /// This test's guest: random, as an app session's.
    let testGuest = GuestID.random()

    func guest() throws -> GuestID { testGuest }

    func schema(_ stores: PostgresStores) -> String { "\"\(stores.configuration.schema)\"" }

    @Test func conformsToTheStoreContract() async throws {
        try await checkConformance(try await TestDatabase.url()) { $0.guestDataStore() } _: { make in
            try await StoreConformance.check { try await make() }
        }
    }

    /// A value JSON text cannot carry back is refused as `too-large` by a write, a replace and a merge (an attacker's
    /// read: the database stored one, and every later read of its owner failed `corrupt`).
    @Test func aValueJSONCannotCarryBackIsRefusedAsTooLarge() async throws {
        try await TestDatabase.withStores { stores in
            let problems = try await GuestDataStoreConformance.builtInRefusals(of: stores.guestDataStore())
            #expect(problems == [])
        }
    }

    /// One guest logging in on two instances at once (two pools, 20 racing merges): the account gets the
    /// guest's cart added once, the guest's data is gone, and the journal is done.
    @Test func racingLoginsOnTwoInstancesMergeOnce() async throws {
        try await TestDatabase.withStores { one in
            let other = PostgresStores(configuration: one.configuration)
            let guest = try guest()
            let store = one.guestDataStore()
            try await store.write([["item": "x", "qty": 2], ["item": "y", "qty": 1]], kind: "cart", of: .guest(guest))
            try await store.write(["a", "b"], kind: "favourites", of: .guest(guest))
            try await store.write([["item": "x", "qty": 5]], kind: "cart", of: .account("42"))
            try await store.write(["c"], kind: "favourites", of: .account("42"))
            let mergers = [GuestMerger(store: one.guestDataStore(), poll: .milliseconds(5)), GuestMerger(store: other.guestDataStore(), poll: .milliseconds(5))]
            let journals = try await withThrowingTaskGroup(of: MergeJournal.self) { group in
                for index in 0..<20 { group.addTask { try await mergers[index % 2].merge(guest, into: "42") } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(Set(journals.map(\.plan)).count == 1 && journals.allSatisfy(\.done), "every login follows the one plan")
            let account = try await other.guestDataStore().data(of: .account("42"))
            #expect(account["cart"] == [["item": "y", "qty": 1], ["item": "x", "qty": 7]] || account["cart"] == [["item": "x", "qty": 7], ["item": "y", "qty": 1]],
                    "the guest's cart added once: \(String(describing: account["cart"]))")
            #expect(Set(account["favourites"]?.arrayValue ?? []) == ["a", "b", "c"])
            #expect(try await store.data(of: .guest(guest)).isEmpty)
            await other.close()
        }
    }

    /// Values are bound: quotes, SQL, NUL, right-to-left marks and long text round-trip and are never part
    /// of a statement. (Kinds are checked before anything is sent: `GuestDataStoreConformance`.)
    @Test(arguments: ["'; DROP TABLE guest_data; --", "NUL \u{0} inside", "\u{202E}evil", "收藏 🙂", "\\\"", String(repeating: "长", count: 5000)])
    func valuesRoundTripAsBoundValues(text: String) async throws {
        let log = StatementLog()
        try await TestDatabase.withStores(observer: log.observer) { stores in
            let store = stores.guestDataStore()
            let value: JSONValue = ["note": .string(text), "list": [.string(text), 1.5, true, nil]]
            try await store.write(value, kind: "notes", of: .guest(try guest()))
            #expect(try await store.data(of: .guest(try guest())) == ["notes": value])
            let stored = try await stores.pool.execute("SELECT json_typeof(value::json) FROM \(schema(stores)).guest_data WHERE owner_kind = 'guest'")
            #expect(stored.first == [.text("object")])
            try await store.remove(kind: "notes", of: .guest(try guest()))
            #expect(try await store.data(of: .guest(try guest())).isEmpty)
        }
        #expect(log.statements.allSatisfy { !$0.contains("DROP TABLE guest_data") && !$0.contains("收藏") && !$0.contains("evil") })
    }

    @Test(arguments: [
        ("guest_data", "value = 'not json'", "the \"favourites\" of guest", "is not JSON"),
        ("merge_journals", "journal = '{}'", "the merge journal of guest", "does not read as one"),
        ("merge_journals", "version = version + 4", "the merge journal of guest", "is at version 1, its row at version 5"),
    ])
    func aRowOneTapDidNotWriteIsReportedCorruptAndLeftAlone(table: String, change: String, what: String, reason: String) async throws {
        try await TestDatabase.withStores { stores in
            let store = stores.guestDataStore()
            let guest = try guest()
            try await store.write(["a"], kind: "favourites", of: .guest(guest))
            _ = try await store.createJournal(MergeJournal(guest: guest, account: "42", plan: try MergePlan.plan(guest: ["favourites": ["a"]], account: [:], rules: .builtIn), startedAt: Date()))
            try await stores.pool.execute("UPDATE \(schema(stores)).\(table) SET \(change)")
            await #expect {
                if table == "guest_data" { _ = try await store.data(of: .guest(guest)) } else { _ = try await store.journal(for: guest) }
            } throws: { error in
                let error = error as! StoreError
                return error.kind == .corrupt && error.message.contains(what) && error.message.contains(reason) && error.message.contains("left as it is")
            }
            #expect(try await stores.pool.execute("SELECT count(*) FROM \(schema(stores)).\(table)").first == [.int64(1)])
        }
    }

    /// The server stops in the middle of a merge (the cart merged, the favourites not yet): the login gets
    /// a clear `io` error and nothing is lost; the app then adds a favourite to the account, and once the
    /// server is back the next login merges the rest from the data as it is then, adding nothing twice
    /// and overwriting nothing.
    @Test func theServerStoppingMidMergeLosesNothingAndTheNextLoginFinishesItFromCurrentData() async throws {
        let server = try await TestDatabase.privateServer()
        defer { server.remove() }
        let configuration = try TestDatabase.configuration(server.url(), connectTimeout: .seconds(30))
        let stores = try await PostgresStores.open(configuration)
        let guest = try guest()
        let store = StoppingStore(base: stores.guestDataStore(), server: server)
        try await store.write([["item": "x", "qty": 2]], kind: "cart", of: .guest(guest))
        try await store.write(["a", "b"], kind: "favourites", of: .guest(guest))
        try await store.write([["item": "x", "qty": 1]], kind: "cart", of: .account("42"))
        try await store.write(["c"], kind: "favourites", of: .account("42"))
        store.stopBeforeSecondMerge()
        let clock = FakeClock()
        await #expect {
            _ = try await GuestMerger(store: store, clock: clock, lease: .milliseconds(200), poll: .milliseconds(5)).merge(guest, into: "42")
        } throws: { error in
            let error = error as! StoreError
            return error.kind == .io && error.message.contains("PostgreSQL: cannot") && error.message.contains("connection")
        }
        try await server.start()
        let data = stores.guestDataStore()
        #expect(try await data.data(of: .account("42"))["cart"] == [["item": "x", "qty": 3]], "the cart merged before the stop")
        #expect(try await data.data(of: .guest(guest)) == ["favourites": ["a", "b"]], "the favourites are still with the guest")
        try await data.write(["c", "d"], kind: "favourites", of: .account("42"))
        clock.advance(by: .milliseconds(250))  // the stopped applier's lease runs out
        let journal = try await GuestMerger(store: data, clock: clock, lease: .milliseconds(200), poll: .milliseconds(5)).merge(guest, into: "42")
        #expect(journal.done)
        let account = try await data.data(of: .account("42"))
        #expect(account["cart"] == [["item": "x", "qty": 3]], "the resumed merge adds nothing twice")
        #expect(account["favourites"] == ["c", "d", "a", "b"], "the favourite the account got after the stop is kept")
        #expect(try await data.data(of: .guest(guest)).isEmpty)
        await stores.close()
    }

    /// A merge one of whose prepared statements the server no longer has (a `DEALLOCATE`; a pooler's
    /// `DISCARD ALL` drops them all) is refused inside its transaction, before anything of it ran; it
    /// runs again, whole, and merges once.
    @Test func aMergeWhoseStatementTheServerDroppedRunsAgainOnce() async throws {
        let begins = LockedValue(0)
        try await TestDatabase.withStores(poolSize: 1, observer: { sql in if sql.hasPrefix("BEGIN") { begins.withLock { $0 += 1 } } }) { stores in
            let store = stores.guestDataStore()
            func favourites(_ rounds: Range<Int>) -> JSONValue { .array(rounds.map { .string("g\($0)") }) }
            func journal(_ guest: GuestID) async throws -> (recorded: MergeJournal, over: Int) {
                var journal = try await store.createJournal(
                    MergeJournal(guest: guest, account: "42", plan: try MergePlan.plan(guest: [:], account: [:], rules: .builtIn), startedAt: Date()))
                journal.version += 1
                return (journal, journal.version - 1)
            }
            for round in 0..<3 {  // the merge's statements prepared from their second run on
                let guest = GuestID.random()
                let had: JSONValue? = round == 0 ? .none : .some(favourites(0..<round))  // none, not JSON null
                try await store.write(favourites(round..<round + 1), kind: "favourites", of: .guest(guest))
                let (recorded, over) = try await journal(guest)
                #expect(try await store.merge(
                    kind: "favourites", of: guest, expecting: favourites(round..<round + 1), into: "42", expecting: had, setting: favourites(0..<round + 1),
                    recording: recorded, over: over))
            }
            // The guest's delete, dropped on the pool's one connection: `BEGIN` still runs by name.
            let dropped = try await stores.pool.execute(
                "SELECT name FROM pg_prepared_statements WHERE statement LIKE 'DELETE FROM%guest_data%RETURNING 1'")
            #expect(dropped.rows.count == 1)
            for row in dropped.rows { try await stores.pool.execute("DEALLOCATE \"\(row[0].text ?? "")\"") }
            let guest = try guest()
            try await store.write(["g3"], kind: "favourites", of: .guest(guest))
            let (recorded, over) = try await journal(guest)
            begins.withLock { $0 = 0 }
            #expect(try await store.merge(
                kind: "favourites", of: guest, expecting: ["g3"], into: "42", expecting: ["g0", "g1", "g2"], setting: ["g0", "g1", "g2", "g3"],
                recording: recorded, over: over))
            #expect(begins.withLock { $0 } == 2, "refused in the first transaction, run again in a second")
            #expect(try await store.data(of: .account("42"))["favourites"] == ["g0", "g1", "g2", "g3"])
            #expect(try await store.data(of: .guest(guest)).isEmpty)
        }
    }

    @Test func everyCallFailsWithIOWhileTheDatabaseIsUnreachable() async throws {
        let nowhere = try PostgresConfiguration(url: "postgresql://api:hunter2-pw@/onetap?host=/tmp/onetap-nowhere-\(UInt32.random(in: 0...UInt32.max))")
        let store = PostgresStores(configuration: nowhere).guestDataStore()
        let guest = try guest()
        let journal = MergeJournal(guest: guest, account: "42", plan: try MergePlan.plan(guest: [:], account: [:], rules: .builtIn), startedAt: Date())
        let calls: [@Sendable () async throws -> Void] = [
            { _ = try await store.data(of: .guest(guest)) }, { try await store.write(["a"], kind: "favourites", of: .guest(guest)) },
            { try await store.remove(kind: "favourites", of: .guest(guest)) }, { _ = try await store.journal(for: guest) },
            { _ = try await store.merge(kind: "favourites", of: guest, expecting: ["a"], into: "42", expecting: nil, setting: ["a"], recording: journal, over: 0) },
            { _ = try await store.createJournal(journal) }, { _ = try await store.replaceJournal(journal, expecting: 1) },
        ]
        for call in calls {
            await #expect {
                try await call()
            } throws: { error in
                let error = error as! StoreError
                return error.kind == .io && error.message.contains("connection-failed") && !error.description.contains("hunter2-pw")
            }
        }
    }
}

/// A PostgreSQL guest-data store whose server is stopped (`pg_ctl stop -m immediate`) just before the
/// merge's second kind is merged (the first is merged, whole).
final class StoppingStore: GuestDataStore {
    let base: any GuestDataStore
    let server: PostgresTestServer
    private let merges = LockedValue<Int?>(nil)

    init(base: any GuestDataStore, server: PostgresTestServer) {
        self.base = base
        self.server = server
    }

    func stopBeforeSecondMerge() { merges.withLock { $0 = 0 } }

    func data(of owner: Identity) async throws -> [String: JSONValue] { try await base.data(of: owner) }
    func write(_ value: JSONValue, kind: String, of owner: Identity) async throws { try await base.write(value, kind: kind, of: owner) }
    func remove(kind: String, of owner: Identity) async throws { try await base.remove(kind: kind, of: owner) }
    func replace(kind: String, of owner: Identity, expecting current: JSONValue?, with value: JSONValue?) async throws -> Bool {
        try await base.replace(kind: kind, of: owner, expecting: current, with: value)
    }
    func merge(
        kind: String, of guest: GuestID, expecting guestValue: JSONValue, into account: AccountID, expecting accountValue: JSONValue?,
        setting merged: JSONValue, recording journal: MergeJournal, over version: Int
    ) async throws -> Bool {
        let stop = merges.withLock { count -> Bool in
            guard let seen = count else { return false }
            count = seen + 1
            return seen + 1 == 2
        }
        if stop { try await server.stop() }
        return try await base.merge(
            kind: kind, of: guest, expecting: guestValue, into: account, expecting: accountValue, setting: merged, recording: journal, over: version)
    }
    func journal(for guest: GuestID) async throws -> MergeJournal? { try await base.journal(for: guest) }
    func createJournal(_ journal: MergeJournal) async throws -> MergeJournal { try await base.createJournal(journal) }
    func replaceJournal(_ journal: MergeJournal, expecting version: Int) async throws -> Bool { try await base.replaceJournal(journal, expecting: version) }
}
