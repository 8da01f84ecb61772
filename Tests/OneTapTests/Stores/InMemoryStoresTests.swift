import Foundation
import OneTapTesting
import Testing
import OneTap

/// The public set of in-memory stores: each call answers the same store (as each `PostgresStores` call
/// reaches the same tables), two sets share nothing, and its swept stores are the ones whose records expire.
@Suite struct InMemoryStoresTests {
    let now = FakeClock.epoch

    func session(at start: Date) throws -> LoginSession {
        LoginSessionMachine().start(DeviceSnapshot(sim: .present, plmn: try PLMN("46000")), at: start, id: .random()).session
    }

    @Test func eachCallAnswersTheSameStore() async throws {
        let stores = InMemoryStores()
        let token = AccessToken(value: Secret("t"), refreshToken: nil, flow: .tianyi, account: "u1", issuedAt: now, expiresAt: now.addingTimeInterval(3600))
        _ = try await stores.tokenStore().save(token, replacing: nil, dueAt: now)
        #expect(try await stores.tokenStore().load("u1")?.token == token)
        let session = try session(at: now)
        try await stores.loginSessionStore().create(session)
        #expect(try await stores.loginSessionStore().load(session.id) == session)
        try await stores.guestDataStore().write(.string("v42"), kind: "favourites", of: .account("u1"))
        #expect(try await stores.guestDataStore().data(of: .account("u1")) == ["favourites": .string("v42")])
    }

    @Test func twoSetsShareNothing() async throws {
        let session = try session(at: now)
        try await InMemoryStores().loginSessionStore().create(session)
        #expect(try await InMemoryStores().loginSessionStore().load(session.id) == nil)
    }

    @Test func itsSweptStoresAreTheOnesWhoseRecordsExpire() async throws {
        let stores = InMemoryStores()
        let swept = stores.sweptStores()
        #expect(swept.map(\.name) == ["login-sessions", "app-sessions", "sms", "login-quotas", "exchange-ledger", "merge-journals"])
        let session = try session(at: now)
        try await stores.loginSessionStore().create(session)
        // A login is kept a minute past its end (its exchange's answer is still taken, its success still told).
        #expect(try await swept[0].removeExpired(session.expiresAt.addingTimeInterval(60), 10) == 0)
        let removed = try await swept[0].removeExpired(session.expiresAt.addingTimeInterval(61), 10)
        #expect(removed == 1)
        #expect(try await stores.loginSessionStore().load(session.id) == nil)
    }
}
