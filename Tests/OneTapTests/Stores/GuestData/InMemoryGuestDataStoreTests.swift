import Foundation
import OneTapTesting
import Testing
@testable import OneTap

@Suite struct InMemoryGuestDataStoreTests {
    @Test func conforms() async throws {
        try await StoreConformance.check(concurrency: 100) { InMemoryGuestDataStore() }
    }

    /// The built-in stores refuse, as `too-large`, a value whose JSON text would not read back (an attacker's read:
    /// PostgreSQL stored one, and every later read of its owner failed): 512 levels are kept, 513 and a number JSON has
    /// no text for are refused, by a write, a replace and a merge alike.
    @Test func aValueJSONCannotCarryBackIsRefusedAsTooLarge() async throws {
        try StoreError.check(dataValue: .array([.number(1e300), .string("x")]), kind: "history")
        #expect(throws: StoreError.self) { try StoreError.check(dataValue: .number(.infinity), kind: "history") }
        let problems = try await GuestDataStoreConformance.builtInRefusals(of: InMemoryGuestDataStore())
        #expect(problems == [])
    }

    /// A finished merge's journal was never removed from memory (one per login with a merge, for the life of
    /// the process). It now goes 30 days after the merge finished, as the PostgreSQL store's does; an
    /// unfinished one stays, to be resumed.
    @Test func finishedJournalsGoThirtyDaysAfterTheirMergeFinished() async throws {
        let stores = InMemoryStores()
        let guests = stores.guestDataStore()
        let sweep = try #require(stores.sweptStores().first { $0.name == "merge-journals" })
        let now = Date(timeIntervalSince1970: 1_796_112_000)
        let journals = try await MergeJournalRetentionCase.write(to: guests, now: now, prefix: "memory-guest-0")
        #expect(try await sweep.removeExpired(now, 10) == 1)
        #expect(try await journals.problems(afterASweepOf: guests) == [])
        // A month on, the two finished ones go; the unfinished one stays.
        #expect(try await sweep.removeExpired(now.addingTimeInterval(30 * 86_400), 10) == 2)
        #expect(try await guests.journal(for: journals.guests[2])?.done == false)
    }

    @Test func aStoreWhoseSecondCreateOverwritesIsCaught() async throws {
        let error = await #expect(throws: ConformanceFailure.self) {
            try await StoreConformance.check { OverwritingStore() }
        }
        #expect(error.map { "\($0)".contains("a second create must return the first journal") } == true, "\(String(describing: error))")
    }

    /// A store whose conditional write writes whatever the owner holds: the app's change would overwrite a merge.
    @Test func aStoreWhoseReplaceIgnoresWhatWasReadIsCaught() async throws {
        let error = await #expect(throws: ConformanceFailure.self) {
            try await StoreConformance.check { UnconditionalStore() }
        }
        let text = error.map { "\($0)" } ?? ""
        #expect(text.contains("a replace expecting data the owner has not must fail"), "\(text)")
        #expect(text.contains("racing changes from one read must let exactly one land"), "\(text)")
        #expect(text.contains("a merge of a kind must be refused when the journal is at another version"), "\(text)")
    }
}

/// A store whose `replace` is a plain write (or remove).
final class UnconditionalStore: GuestDataStore {
    private let base = InMemoryGuestDataStore()

    func data(of owner: Identity) async throws -> [String: JSONValue] { try await base.data(of: owner) }
    func write(_ value: JSONValue, kind: String, of owner: Identity) async throws { try await base.write(value, kind: kind, of: owner) }
    func remove(kind: String, of owner: Identity) async throws { try await base.remove(kind: kind, of: owner) }
    func replace(kind: String, of owner: Identity, expecting current: JSONValue?, with value: JSONValue?) async throws -> Bool {
        if let value { try await base.write(value, kind: kind, of: owner) } else { try await base.remove(kind: kind, of: owner) }
        return true
    }
    /// Ignores the journal's version (records over whatever is stored).
    func merge(
        kind: String, of guest: GuestID, expecting guestValue: JSONValue, into account: AccountID, expecting accountValue: JSONValue?,
        setting merged: JSONValue, recording journal: MergeJournal, over version: Int
    ) async throws -> Bool {
        let stored = try await base.journal(for: guest)?.version ?? version
        return try await base.merge(
            kind: kind, of: guest, expecting: guestValue, into: account, expecting: accountValue, setting: merged, recording: journal, over: stored)
    }
    func journal(for guest: GuestID) async throws -> MergeJournal? { try await base.journal(for: guest) }
    func createJournal(_ journal: MergeJournal) async throws -> MergeJournal { try await base.createJournal(journal) }
    func replaceJournal(_ journal: MergeJournal, expecting version: Int) async throws -> Bool { try await base.replaceJournal(journal, expecting: version) }
}

/// A store whose create always writes: two racing merges would each follow their own plan.
final class OverwritingStore: GuestDataStore {
    private let base = InMemoryGuestDataStore()
    private let journals = LockedValue<[GuestID: MergeJournal]>([:])

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
        guard journals.withLock({ $0[guest]?.version }) == version,
            try await base.replace(kind: kind, of: .guest(guest), expecting: guestValue, with: nil)
        else { return false }
        guard try await base.replace(kind: kind, of: .account(account), expecting: accountValue, with: merged) else {
            try await base.write(guestValue, kind: kind, of: .guest(guest))
            return false
        }
        journals.withLock { $0[guest] = journal }
        return true
    }
    func journal(for guest: GuestID) async throws -> MergeJournal? { journals.withLock { $0[guest] } }
    func createJournal(_ journal: MergeJournal) async throws -> MergeJournal {
        journals.withLock { $0[journal.guest] = journal }
        return journal
    }
    func replaceJournal(_ journal: MergeJournal, expecting version: Int) async throws -> Bool {
        journals.withLock { journals in
            guard journals[journal.guest]?.version == version else { return false }
            journals[journal.guest] = journal
            return true
        }
    }
}
