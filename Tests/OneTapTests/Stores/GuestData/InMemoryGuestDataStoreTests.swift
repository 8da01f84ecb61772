import Foundation
import OneTapTesting
import Testing
@testable import OneTap

@Suite struct InMemoryGuestDataStoreTests {
    @Test func conforms() async throws {
        try await StoreConformance.check(concurrency: 100) { InMemoryGuestDataStore() }
    }

    @Test func aStoreWhoseSecondCreateOverwritesIsCaught() async throws {
        let error = await #expect(throws: ConformanceFailure.self) {
            try await StoreConformance.check { OverwritingStore() }
        }
        #expect(error.map { "\($0)".contains("a second create must return the first journal") } == true, "\(String(describing: error))")
    }
}

/// A store whose create always writes: two racing merges would each follow their own plan.
final class OverwritingStore: GuestDataStore {
    private let base = InMemoryGuestDataStore()
    private let journals = LockedValue<[GuestID: MergeJournal]>([:])

    func data(of owner: Identity) async throws -> [String: JSONValue] { try await base.data(of: owner) }
    func write(_ value: JSONValue, kind: String, of owner: Identity) async throws { try await base.write(value, kind: kind, of: owner) }
    func remove(kind: String, of owner: Identity) async throws { try await base.remove(kind: kind, of: owner) }
    func merge(
        kind: String, of guest: GuestID, expecting guestValue: JSONValue, into account: AccountID, expecting accountValue: JSONValue?, setting merged: JSONValue
    ) async throws -> Bool {
        try await base.merge(kind: kind, of: guest, expecting: guestValue, into: account, expecting: accountValue, setting: merged)
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
