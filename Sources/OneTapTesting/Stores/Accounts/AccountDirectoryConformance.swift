#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import OneTap

/// The properties every ``AccountDirectory`` must have, as a suite an adapter (PostgreSQL, Redis…) runs
/// against itself:
///
/// ```swift
/// @Test func myDirectoryConforms() async throws {
///     try await AccountDirectoryConformance.check { try await MyPostgresAccountDirectory(schema: UUID().uuidString) }
/// }
/// ```
///
/// Each property is checked on a fresh, empty directory; every broken property is listed, not only the
/// first. Instants are compared to the millisecond.
package enum AccountDirectoryConformance {
    /// Runs every check, each on a fresh, empty directory.
    /// - Parameter makeDirectory: Makes an empty directory.
    /// - Throws: ``ConformanceFailure`` listing every property the directory broke, or what
    ///   `makeDirectory` throws.
    package static func check(_ makeDirectory: () async throws -> any AccountDirectory) async throws {
        let suite = ConformanceHarness("AccountDirectoryConformance")
        // Whole milliseconds, as every store keeps instants.
        let now = Date(timeIntervalSince1970: 1_796_083_200.125)
        func later(_ days: Double) -> Date { now.addingTimeInterval(days * 86_400) }
        let number = try PhoneNumber("13800138000")
        let other = try PhoneNumber("18912345678")
        func same(_ lhs: Date?, _ rhs: Date?) -> Bool {
            switch (lhs, rhs) {
            case (nil, nil): true
            case (let lhs?, let rhs?): abs(lhs.timeIntervalSince(rhs)) < 0.0005
            default: false
            }
        }
        func matches(_ entry: AccountEntry?, _ account: AccountID, _ number: PhoneNumber, created: Date, verified: Date) -> Bool {
            guard let entry else { return false }
            return entry.account == account && entry.number == number && same(entry.createdAt, created) && same(entry.lastVerifiedAt, verified)
        }
        func shown(_ entry: AccountEntry?) -> String { entry.map(String.init(describing:)) ?? "nothing" }

        // Round trip: a new number gets the new id, created and verified now, and reads back so.
        try await suite.check("round trip", makeDirectory) { directory in
            suite.expect(try await directory.account(for: number) == nil, "account(for:) of a number never seen must be nil")
            let first = try await directory.findOrCreate(number, newID: "acct-first", at: now)
            suite.expect(first.created, "findOrCreate of a new number must answer created = true")
            suite.expect(first.previouslyVerifiedAt == nil, "findOrCreate of a new number must answer no previous verification, answered \(first)")
            suite.expect(matches(first.entry, "acct-first", number, created: now, verified: now),
                         "findOrCreate of a new number must answer the new id, created and verified now, answered \(first)")
            let read = try await directory.account(for: number)
            suite.expect(matches(read, "acct-first", number, created: now, verified: now),
                         "a created entry must read back unchanged (to the millisecond), read \(shown(read))")
            suite.expect(try await directory.account(for: other) == nil, "creating a number's account must not give another number one")
        }

        // A known number finds its account, whatever new id is offered, and the login is recorded.
        try await suite.check("find-or-create creates once", makeDirectory) { directory in
            _ = try await directory.findOrCreate(number, newID: "acct-first", at: now)
            let second = try await directory.findOrCreate(number, newID: "acct-second", at: later(1))
            suite.expect(!second.created, "a second findOrCreate of a number must answer created = false")
            suite.expect(second.entry.account == "acct-first", "a second findOrCreate must keep the number's account, answered \(second.entry.account)")
            suite.expect(same(second.previouslyVerifiedAt, now),
                         "a second findOrCreate must answer when the number was previously verified, answered \(second.previouslyVerifiedAt.map(\.iso8601) ?? "none")")
            suite.expect(matches(second.entry, "acct-first", number, created: now, verified: later(1)),
                         "a second findOrCreate must record the login as the last verification and keep the creation time, answered \(second)")
            let read = try await directory.account(for: number)
            suite.expect(matches(read, "acct-first", number, created: now, verified: later(1)),
                         "a recorded verification must read back, read \(shown(read))")
            let third = try await directory.findOrCreate(number, newID: "acct-third", at: later(2))
            suite.expect(same(third.previouslyVerifiedAt, later(1)) && !third.created,
                         "each findOrCreate must answer the verification before it (the last recorded), answered \(third)")
            let another = try await directory.findOrCreate(other, newID: "acct-other", at: later(2))
            suite.expect(another.created && another.entry.account == "acct-other", "another number must get an account of its own, answered \(another)")
        }

        // A verification earlier than the stored one (another instance's clock lags) does not move it back.
        try await suite.check("verification order", makeDirectory) { directory in
            _ = try await directory.findOrCreate(number, newID: "acct-first", at: later(10))
            let lagging = try await directory.findOrCreate(number, newID: "acct-second", at: later(5))
            suite.expect(same(lagging.previouslyVerifiedAt, later(10)), "a lagging findOrCreate must answer the stored last verification, answered \(lagging)")
            let read = try await directory.account(for: number)
            suite.expect(same(read?.lastVerifiedAt, later(10)), "an earlier verification must not move the last verification back, read \(shown(read))")
        }

        // A new id that is already another number's account is refused, and nothing is written.
        try await suite.check("taken new id", makeDirectory) { directory in
            _ = try await directory.findOrCreate(number, newID: "acct-taken", at: now)
            await suite.expect(throws: .duplicate, "findOrCreate of a new number with an id another number's account has must throw duplicate") {
                _ = try await directory.findOrCreate(other, newID: "acct-taken", at: later(1))
            }
            suite.expect(try await directory.account(for: other) == nil, "a findOrCreate refused as duplicate must write nothing")
            let found = try await directory.findOrCreate(number, newID: "acct-taken", at: later(1))
            suite.expect(!found.created && found.entry.account == "acct-taken", "findOrCreate of a known number must find it whatever id is offered, answered \(found)")
        }

        // 50 first logins of one number at once: one account, created once, every answer the same account.
        try await suite.check("concurrent first logins", makeDirectory) { directory in
            let answers = try await suite.race(50) { index in
                try await directory.findOrCreate(number, newID: try AccountID("acct-racer-\(index)"), at: now)
            }
            let accounts = Set(answers.map(\.entry.account))
            let creators = answers.filter(\.created).count
            suite.expect(accounts.count == 1, "50 concurrent first logins of one number must create one account, answered \(accounts.count) accounts")
            suite.expect(creators == 1, "of 50 concurrent first logins of one number exactly one must answer created = true, \(creators) did")
            let stored = try await directory.account(for: number)
            suite.expect(stored.map { accounts == [$0.account] } ?? false, "the stored account must be the one every racer was answered, read \(shown(stored))")
        }

        // bind: a new number is bound; the same account again is idempotent; another account is refused.
        try await suite.check("bind", makeDirectory) { directory in
            let bound = try await directory.bind(number, to: "acct-owner", at: now)
            suite.expect(bound.created && bound.previouslyVerifiedAt == nil && matches(bound.entry, "acct-owner", number, created: now, verified: now),
                         "bind of a free number must bind it, created and verified now, answered \(bound)")
            let idempotent = "bind of a number to the account that has it must succeed and record the verification"
            do {
                let again = try await directory.bind(number, to: "acct-owner", at: later(1))
                suite.expect(!again.created && same(again.previouslyVerifiedAt, now) && matches(again.entry, "acct-owner", number, created: now, verified: later(1)),
                             "\(idempotent), answered \(again)")
            } catch {
                suite.problem("\(idempotent), threw \(error)")
            }
            await suite.expect(throws: .conflict, "bind of a number another account has must throw conflict") {
                _ = try await directory.bind(number, to: "acct-intruder", at: later(2))
            }
            let read = try await directory.account(for: number)
            suite.expect(matches(read, "acct-owner", number, created: now, verified: later(1)), "a bind refused as conflict must write nothing, read \(shown(read))")
            let found = try await directory.findOrCreate(number, newID: "acct-new", at: later(3))
            suite.expect(!found.created && found.entry.account == "acct-owner", "findOrCreate of a bound number must find its account, answered \(found)")
            let second = try await directory.bind(other, to: "acct-owner", at: later(3))
            suite.expect(second.created && second.entry.account == "acct-owner", "an account may have a second number bound, answered \(second)")
        }

        // 20 binds of one number to 20 accounts at once: one wins, the others conflict.
        try await suite.check("concurrent binds", makeDirectory) { directory in
            let outcomes = try await suite.race(20) { index -> AccountID? in
                do {
                    return try await directory.bind(number, to: try AccountID("acct-binder-\(index)"), at: now).entry.account
                } catch let error as StoreError where error.kind == .conflict {
                    return nil
                }
            }
            let winners = outcomes.compactMap { $0 }
            suite.expect(winners.count == 1, "of 20 concurrent binds of one number to 20 accounts exactly one must win, \(winners.count) did")
            let stored = try await directory.account(for: number)
            suite.expect(stored?.account == winners.first, "the stored account must be the winning bind's, read \(shown(stored))")
        }

        try suite.finish()
    }
}
