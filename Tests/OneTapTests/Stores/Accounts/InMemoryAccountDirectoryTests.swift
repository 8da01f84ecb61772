import Foundation
import OneTapTesting
import Testing
@testable import OneTap

@Suite struct InMemoryAccountDirectoryTests {
    @Test func conformsToTheDirectoryContract() async throws {
        try await StoreConformance.check { InMemoryAccountDirectory() }
    }

    /// The double without a flaw passes too: the flaws below are what the suite catches, nothing else.
    @Test func theDoubleWithoutAFlawConforms() async throws {
        try await StoreConformance.check { AccountDirectoryDouble(.none) }
    }

    /// Each flaw a directory can have, and the words the suite must find it with.
    @Test(arguments: [
        (AccountDirectoryDouble.Flaw.checkThenInsert, "50 concurrent first logins of one number must create one account"),
        (.checkThenInsert, "exactly one must answer created = true"),
        (.alwaysCreated, "a second findOrCreate of a number must answer created = false"),
        (.replacesAccountOnFind, "a second findOrCreate must keep the number's account"),
        (.forgetsPrevious, "a second findOrCreate must answer when the number was previously verified"),
        (.doesNotRecordVerification, "a second findOrCreate must record the login as the last verification"),
        (.verificationGoesBack, "an earlier verification must not move the last verification back"),
        (.ignoresTakenID, "findOrCreate of a new number with an id another number's account has must throw duplicate"),
        (.bindOverwrites, "bind of a number another account has must throw conflict"),
        (.bindOverwrites, "of 20 concurrent binds of one number to 20 accounts exactly one must win"),
        (.bindRefusesTheOwner, "bind of a number to the account that has it must succeed"),
        (.dropsMilliseconds, "a created entry must read back unchanged (to the millisecond)"),
    ])
    func theSuiteCatchesABrokenDirectory(flaw: AccountDirectoryDouble.Flaw, problem: String) async {
        await #expect {
            try await StoreConformance.check { AccountDirectoryDouble(flaw) }
        } throws: { error in
            guard let failure = error as? ConformanceFailure else { return false }
            return failure.problems.contains { $0.contains(problem) } && failure.description.contains(problem)
        }
    }

    @Test func countsItsNumbers() async throws {
        let directory = InMemoryAccountDirectory()
        #expect(directory.count == 0)
        _ = try await directory.findOrCreate(try PhoneNumber("13800138000"), newID: "a", at: FakeClock.epoch)
        _ = try await directory.bind(try PhoneNumber("13900139000"), to: "a", at: FakeClock.epoch)
        #expect(directory.count == 2)
    }

    /// A failing directory's error names the number masked, never whole.
    @Test func errorsShowTheMaskedNumberOnly() async throws {
        let directory = InMemoryAccountDirectory()
        let number = try PhoneNumber("13800138000")
        _ = try await directory.bind(number, to: "owner", at: FakeClock.epoch)
        let error = await #expect(throws: StoreError.self) { _ = try await directory.bind(number, to: "intruder", at: FakeClock.epoch) }
        #expect(error?.kind == .conflict)
        #expect(error?.subject == "number 138****8000")
        #expect(error.map { "\($0)" } == "conflict for number 138****8000: the number belongs to another account; nothing was written")

        let faulty = FaultyAccountDirectory(directory)
        faulty.faults.inject(.refuse(.io, "down"), into: [.account])
        let injected = await #expect(throws: StoreError.self) { _ = try await faulty.account(for: number) }
        #expect(injected.map { "\($0)" } == "io for number 138****8000: down")
    }

    /// Entries, resolutions and outcomes describe themselves with the masked number.
    @Test func descriptionsShowTheMaskedNumberOnly() async throws {
        let directory = InMemoryAccountDirectory()
        let resolution = try await directory.findOrCreate(try PhoneNumber("13800138000"), newID: "42", at: FakeClock.epoch)
        let texts = ["\(resolution)", "\(resolution.entry)", "\(AccountOutcome(resolution, created: true, at: FakeClock.epoch, dormantAfter: .seconds(1)))"]
        for text in texts {
            #expect(text.contains("138****8000") && !text.contains("13800138000"), "\(text)")
        }
        #expect(texts[1] == "AccountEntry(account 42, 138****8000, created 2026-12-01T00:00:00.000Z, last verified 2026-12-01T00:00:00.000Z)")
    }
}

/// An account directory that keeps entries in a dictionary, correct or with one flaw of the kind real
/// adapters have.
final class AccountDirectoryDouble: AccountDirectory {
    enum Flaw: Sendable {
        case none
        /// findOrCreate reads, waits, then writes without holding anything: racing first logins all create.
        case checkThenInsert
        /// findOrCreate answers created = true for a number it found.
        case alwaysCreated
        /// findOrCreate of a known number gives it the new id (an upsert that overwrites).
        case replacesAccountOnFind
        /// findOrCreate answers no previous verification.
        case forgetsPrevious
        /// findOrCreate of a known number does not record the verification.
        case doesNotRecordVerification
        /// A verification earlier than the stored one moves it back.
        case verificationGoesBack
        /// findOrCreate creates a new number with an id another number's account has.
        case ignoresTakenID
        /// bind takes a number from another account.
        case bindOverwrites
        /// bind of a number to its own account throws conflict.
        case bindRefusesTheOwner
        /// Instants are kept in whole seconds.
        case dropsMilliseconds
    }

    private let flaw: Flaw
    private let entries = LockedValue<[PhoneNumber: AccountEntry]>([:])

    init(_ flaw: Flaw) { self.flaw = flaw }

    private func stored(_ date: Date) -> Date {
        flaw == .dropsMilliseconds ? Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down)) : date
    }

    private func verify(_ existing: AccountEntry, at now: Date, account: AccountID? = nil, created: Bool = false) -> AccountResolution {
        let last: Date = switch flaw {
        case .doesNotRecordVerification: existing.lastVerifiedAt
        case .verificationGoesBack: stored(now)
        default: max(existing.lastVerifiedAt, stored(now))
        }
        let entry = AccountEntry(account: account ?? existing.account, number: existing.number, createdAt: existing.createdAt, lastVerifiedAt: last)
        entries.withLock { $0[existing.number] = entry }
        return AccountResolution(entry: entry, created: created || flaw == .alwaysCreated, previouslyVerifiedAt: flaw == .forgetsPrevious ? nil : existing.lastVerifiedAt)
    }

    func account(for number: PhoneNumber) async throws -> AccountEntry? {
        entries.withLock { $0[number] }
    }

    func findOrCreate(_ number: PhoneNumber, newID: AccountID, at now: Date) async throws -> AccountResolution {
        let existing = entries.withLock { $0[number] }
        if flaw == .checkThenInsert { try await Task.sleep(for: .milliseconds(20)) }
        if let existing, flaw != .checkThenInsert {
            return verify(existing, at: now, account: flaw == .replacesAccountOnFind ? newID : nil)
        }
        let entry = AccountEntry(account: newID, number: number, createdAt: stored(now), lastVerifiedAt: stored(now))
        return try entries.withLock { entries throws(StoreError) in
            if flaw != .checkThenInsert, flaw != .ignoresTakenID, entries.values.contains(where: { $0.account == newID }) {
                throw StoreError(.duplicate, subject: .number(number), message: "taken")
            }
            if flaw != .checkThenInsert, let existing = entries[number] {
                return AccountResolution(entry: existing, created: false, previouslyVerifiedAt: existing.lastVerifiedAt)
            }
            entries[number] = entry
            return AccountResolution(entry: entry, created: true, previouslyVerifiedAt: nil)
        }
    }

    func bind(_ number: PhoneNumber, to account: AccountID, at now: Date) async throws -> AccountResolution {
        if let existing = entries.withLock({ $0[number] }) {
            if flaw == .bindRefusesTheOwner || (existing.account != account && flaw != .bindOverwrites) {
                throw StoreError(.conflict, subject: .number(number), message: "another's")
            }
            return verify(existing, at: now, account: account)
        }
        let entry = AccountEntry(account: account, number: number, createdAt: stored(now), lastVerifiedAt: stored(now))
        return try entries.withLock { entries throws(StoreError) in
            if let existing = entries[number], existing.account != account, flaw != .bindOverwrites {
                throw StoreError(.conflict, subject: .number(number), message: "another's")
            }
            entries[number] = entry
            return AccountResolution(entry: entry, created: true, previouslyVerifiedAt: nil)
        }
    }
}
