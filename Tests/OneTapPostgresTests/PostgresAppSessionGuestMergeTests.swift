import Foundation
import OneTap
@testable import OneTapPostgres
import OneTapPostgresTestSupport
import OneTapTesting
import Testing

/// On PostgreSQL (app sessions and guest data in one schema): a login's guest merge that fails because
/// the guest-data store is down is kept in the app session's row and merged, once, by the next refresh.
@Suite struct PostgresAppSessionGuestMergeTests {
    static let keys = try! ServerKeyRing(parsing: Secret("k1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="))
    static func line(_ item: String, _ qty: Int) -> JSONValue { .object(["item": .string(item), "qty": .number(Double(qty))]) }

    @Test func aMergeThatFailedAtTheLoginIsMergedOnceByTheNextRefresh() async throws {
        try await TestDatabase.withStores { stores in
            let clock = FakeClock()
            let data = FaultyGuestDataStore(stores.guestDataStore())
            let sessionStore = stores.appSessionStore()
            let sessions = AppSessions(
                keys: Self.keys, store: sessionStore, clock: clock, events: RecordingEventSink(), merger: GuestMerger(store: data, clock: clock))
            let grant = try await sessions.open()
            guard case .guest(let guest) = grant.identity else {
                Issue.record("not a guest: \(grant.identity)")
                return
            }
            let account = try AccountID("pg-pending-\(guest.text)")
            try await data.write(.array([Self.line("x", 2)]), kind: "cart", of: .guest(guest))
            try await data.write(.array([Self.line("x", 1)]), kind: "cart", of: .account(account))
            data.fail(after: 0)
            let loggedIn = try await sessions.loggedIn(
                try sessions.authenticate(grant.accessToken.reveal()),
                as: AccountOutcome(
                    AccountResolution(entry: AccountEntry(account: account, number: try PhoneNumber("13800138000"), createdAt: clock.now(), lastVerifiedAt: clock.now()),
                                      created: false, previouslyVerifiedAt: nil), created: false, at: clock.now(), dormantAfter: .seconds(86_400)),
                flow: .mobile)
            data.heal()
            #expect(try await data.data(of: .guest(guest))["cart"] == .array([Self.line("x", 2)]), "the data is still with the guest")
            #expect(try await sessionStore.load(grant.session)?.unmergedGuest == guest, "the row remembers the unmerged guest")

            clock.advance(by: .seconds(60))
            let refreshed = try await sessions.refresh(loggedIn.refreshToken)
            #expect(try await data.data(of: .account(account))["cart"] == .array([Self.line("x", 3)]))
            #expect(try await data.data(of: .guest(guest)).isEmpty)
            #expect(try await sessionStore.load(grant.session)?.unmergedGuest == nil)
            clock.advance(by: .seconds(60))
            _ = try await sessions.refresh(refreshed.refreshToken)
            #expect(try await data.data(of: .account(account))["cart"] == .array([Self.line("x", 3)]), "merged once")
        }
    }
}
