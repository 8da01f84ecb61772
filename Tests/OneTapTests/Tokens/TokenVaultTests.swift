import Foundation
import OneTapTesting
import Testing
@testable import OneTap

/// The vault on a fake clock with a scripted refresher, running as a server runs it. Its tests are split
/// by the part of the vault they exercise, in files named after the part (`SingleFlightTests.swift`,
/// `TokenRefreshTests.swift`, …); each of those files also holds that part's tests in isolation, as a
/// suite nested in this one.
@Suite struct TokenVaultTests {
    let clock = FakeClock()
    let store = InMemoryTokenStore()
    let events = RecordingEventSink()
    static let day = 86_400.0

    /// Background scans in these tests happen once, at start, and then only a day later.
    static let background = TokenVault.Background(scanInterval: .seconds(86_400), concurrentRefreshes: 8, lateAnswerLimit: .seconds(300))

    func vault(
        _ refresher: any TokenRefresher, store: (any TokenStore)? = nil, jitter: Double = 1.0, refreshTimeout: Duration? = .seconds(30),
        background: TokenVault.Background = TokenVaultTests.background
    ) -> TokenVault {
        TokenVault(
            store: store ?? self.store, refresher: refresher, clock: clock, backoff: RefreshBackoff(jitter: { jitter }),
            refreshTimeout: refreshTimeout, background: background, events: events)
    }

    /// Runs `body` while `vault` runs, as a server's service group would; stops it gracefully after.
    @discardableResult
    func running<T: Sendable>(_ vault: TokenVault, _ body: @Sendable (TokenVault) async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await vault.run(); return nil }
            await clock.waitForSleepers(1)   // the background scan ran once and waits for the next
            let result = try await body(vault)
            await vault.shutdown()
            var value: T? = result
            for try await item in group { value = value ?? item }
            return value!
        }
    }

    /// A token issued `age` seconds ago with a 30-day life.
    func token(_ account: AccountID = "u1", age: Double = 0, refresh: String? = "R0", value: String = "A0", lifetime: Double = 30 * 86_400) -> AccessToken {
        let issued = clock.now().addingTimeInterval(-age)
        return AccessToken(
            value: Secret(value), refreshToken: refresh.map(Secret.init), flow: .tianyi, account: account, issuedAt: issued,
            expiresAt: issued.addingTimeInterval(lifetime))
    }

    /// A token that expired a while ago but still has its refresh token: callers must wait.
    func expired(_ account: AccountID = "u1", value: String = "A0") -> AccessToken {
        token(account, age: 30 * Self.day - 30, value: value)
    }

    func stored(_ account: AccountID = "u1") async throws -> String? {
        try await store.load(account)?.token.value.reveal()
    }

    // MARK: Fresh, stale, expired

    @Test func freshTokenIsReturnedWithoutARefresh() async throws {
        let refresher = MockRefresher()
        try await running(vault(refresher)) { vault in
            try await vault.store(token(age: 3600))
            #expect(try await vault.validToken(for: "u1").value.reveal() == "A0")
        }
        #expect(refresher.calls == 0)
        #expect(events.names == ["stored"])
    }

    /// A stale token is served at once, even while the refresh is held up; the refresh runs behind it.
    @Test func staleTokenIsServedAtOnceWhileOneRefreshRunsBehindIt() async throws {
        let refresher = MockRefresher([.success(RefreshResponse(accessToken: Secret("A1"), refreshToken: Secret("R1"), expiresIn: try ExpiresIn("2592000")))])
        refresher.hold()
        try await running(vault(refresher)) { vault in
            try await vault.store(token(age: 2 * Self.day))
            for _ in 0..<10 {
                #expect(try await vault.validToken(for: "u1").value.reveal() == "A0")   // no wait on the held refresh
            }
            await refresher.waitForCalls(1)
            refresher.release()
            #expect(await events.wait(for: "refreshed"))
            let got = try await vault.validToken(for: "u1")
            #expect(got.value.reveal() == "A1" && got.refreshToken?.reveal() == "R1")
            #expect(got.issuedAt == clock.now() && got.lifetime == 2_592_000)
            #expect(try await store.load("u1")?.token == got)   // stored in one write before anyone saw it
        }
        #expect(refresher.calls == 1)
        #expect(refresher.tokensSeen.first?.refreshToken?.reveal() == "R0")
        #expect(events.names == ["stored", "refreshed"])
    }

    @Test func expiredTokenIsNeverHandedOut() async throws {
        let refresher = MockRefresher([.failure(TokenError(.refreshFailed, message: "503"))])
        try await running(vault(refresher)) { vault in
            try await vault.store(token(age: 31 * Self.day))
            await #expect {
                try await vault.validToken(for: "u1")
            } throws: { error in
                let error = error as! TokenError
                return error.kind == .refreshFailed && error.retryAt == clock.now().addingTimeInterval(30)
            }
            // During the back-off: refused without a call, still never the expired token.
            await #expect { try await vault.validToken(for: "u1") } throws: { ($0 as? TokenError)?.kind == .backingOff }
        }
        #expect(try await store.load("u1") != nil)   // kept for a later refresh
        #expect(refresher.calls == 1)
    }

    @Test func expiredWithoutARefreshTokenRequiresRelogin() async throws {
        let refresher = MockRefresher()
        try await running(vault(refresher)) { vault in
            try await vault.store(token(age: 31 * Self.day, refresh: nil))
            await #expect { try await vault.validToken(for: "u1") } throws: { ($0 as? TokenError)?.kind == .reloginRequired }
        }
        #expect(refresher.calls == 0)
        #expect(try await store.load("u1") == nil)
    }

    @Test func staleWithoutARefreshTokenIsStillServedAndRefreshed() async throws {
        let refresher = MockRefresher()
        try await running(vault(refresher)) { vault in
            try await vault.store(token(age: 2 * Self.day, refresh: nil))
            #expect(try await vault.validToken(for: "u1").value.reveal() == "A0")
            #expect(await events.wait(for: "refreshed"))   // the refresher is asked (it may refresh by access token)
            #expect(try await vault.validToken(for: "u1").value.reveal() == "refreshed-1")
        }
    }

    // MARK: Storing, logging out, reading

    @Test func readFailureIsAClearError() async throws {
        let faulty = FaultyTokenStore(store)
        try await running(vault(MockRefresher(), store: faulty)) { vault in
            try await vault.store(token())
            faulty.fail(.load)
            await #expect {
                try await vault.validToken(for: "u1")
            } throws: { error in
                let error = error as! TokenError
                return error.kind == .storeFailed && error.account == "u1" && error.message.contains("No space left on device")
            }
            #expect(try await vault.validToken(for: "u1").value.reveal() == "A0")
        }
    }

    /// `store` re-reads and retries when another writer got in first, up to five times in a row.
    @Test(arguments: [(4, true), (5, false)])
    func storeRetriesConflicts(conflicts: Int, succeeds: Bool) async throws {
        let faulty = FaultyTokenStore(store)
        try await running(vault(MockRefresher(), store: faulty)) { vault in
            try await vault.store(token(value: "first"))
            faulty.conflict(times: conflicts)
            if succeeds {
                try await vault.store(token(value: "second"))
                #expect(try await stored() == "second")
            } else {
                await #expect {
                    try await vault.store(token(value: "second"))
                } throws: { error in
                    let error = error as! TokenError
                    return error.kind == .storeFailed && error.message.contains("injected conflict")
                }
                #expect(try await stored() == "first")
            }
        }
    }

    @Test func logoutWithAFailingStoreIsAClearErrorAndKeepsTheToken() async throws {
        let faulty = FaultyTokenStore(store)
        try await running(vault(MockRefresher(), store: faulty)) { vault in
            try await vault.store(token())
            faulty.fail(.remove)
            await #expect {
                try await vault.logout("u1")
            } throws: { error in
                let error = error as! TokenError
                return error.kind == .storeFailed && error.account == "u1"
            }
            #expect(try await stored() == "A0")
            try await vault.logout("u1")
        }
        #expect(try await store.load("u1") == nil)
        #expect(events.names == ["stored", "logged-out"])
    }

    @Test func listingDueAccountsWithAFailingStoreNamesNoAccount() async throws {
        let faulty = FaultyTokenStore(store)
        let vault = vault(MockRefresher(), store: faulty)
        faulty.fail(.accounts)
        await #expect {
            try await vault.accountsDue(before: clock.now())
        } throws: { error in
            let error = error as! TokenError
            return error.kind == .storeFailed && error.account == nil && error.description.hasPrefix("store-failed: ")
        }
    }

    @Test func accountsAreIndependentAndDueListing() async throws {
        let refresher = MockRefresher()
        refresher.hold()
        try await running(vault(refresher)) { vault in
            try await vault.store(expired("slow"))
            try await vault.store(token("fresh", age: 60))
            let slow = Task { try await vault.validToken(for: "slow") }
            await refresher.waitForCalls(1)
            // Another account is served while the first waits on its refresh.
            #expect(try await vault.validToken(for: "fresh").value.reveal() == "A0")
            refresher.release()
            _ = try await slow.value
            #expect(try await vault.accountsDue(before: clock.now().addingTimeInterval(Self.day), limit: 10) == ["fresh"])
            #expect(try await vault.accountsDue(before: clock.now().addingTimeInterval(2 * Self.day)) == ["fresh", "slow"])
        }
    }

    @Test func stateReportsThePolicyState() async throws {
        let vault = vault(MockRefresher())
        #expect(try await vault.state(for: "u1") == nil)
        try await vault.store(token(age: 2 * Self.day))
        #expect(try await vault.state(for: "u1") == .stale)
        clock.setWallTime(clock.now().addingTimeInterval(40 * Self.day))
        #expect(try await vault.state(for: "u1") == .expired)
    }

    @Test func clockGoingBackwardsNeverExpiresAFreshToken() async throws {
        let refresher = MockRefresher()
        try await running(vault(refresher)) { vault in
            try await vault.store(token(age: 0))
            clock.setWallTime(clock.now().addingTimeInterval(-10 * Self.day))
            #expect(try await vault.validToken(for: "u1").value.reveal() == "A0")
        }
        #expect(refresher.calls == 0)
    }

    /// The fresh path reads the in-memory store without suspending, but still reads it on every call:
    /// nothing it served before outlives a logout, a refresh, a write by another vault sharing the
    /// store, or the injected clock moving the token to stale or expired.
    @Test func freshPathReadsTheStoreEveryCall() async throws {
        let refresher = MockRefresher()
        let other = vault(MockRefresher())   // another instance over the same store
        try await running(vault(refresher)) { vault in
            try await vault.store(token(age: 60))
            #expect(try await vault.validToken(for: "u1").value.reveal() == "A0")
            // Another vault's write and logout are seen at once.
            try await other.store(token(age: 60, value: "B0"))
            #expect(try await vault.validToken(for: "u1").value.reveal() == "B0")
            try await other.logout("u1")
            await #expect { try await vault.validToken(for: "u1") } throws: { ($0 as? TokenError)?.kind == .notLoggedIn }
            // This vault's own logout.
            try await vault.store(token(age: 60, value: "A1"))
            #expect(try await vault.validToken(for: "u1").value.reveal() == "A1")
            try await vault.logout("u1")
            await #expect { try await vault.validToken(for: "u1") } throws: { ($0 as? TokenError)?.kind == .notLoggedIn }
            // The clock makes a served fresh token stale: served once more while one refresh runs, then the refreshed one.
            try await vault.store(token(age: 60, value: "A2"))
            #expect(try await vault.validToken(for: "u1").value.reveal() == "A2")
            clock.setWallTime(clock.now().addingTimeInterval(2 * Self.day))
            #expect(try await vault.validToken(for: "u1").value.reveal() == "A2")
            #expect(await events.wait(for: "refreshed"))
            #expect(try await vault.validToken(for: "u1").value.reveal() == "refreshed-1")
            // The clock makes it expired: the caller waits for a refresh, never gets the expired token.
            clock.setWallTime(clock.now().addingTimeInterval(31 * Self.day))
            #expect(try await vault.validToken(for: "u1").value.reveal() == "refreshed-2")
        }
        #expect(refresher.calls == 2)
        #expect(events.names == ["stored", "stored", "logged-out", "stored", "logged-out", "stored", "refreshed", "refreshed"])
    }
}

extension AccessToken {
    /// A token issued at the fake clock's epoch with a 30-day life.
    static func sample(_ account: AccountID = "u1", value: String = "A0", refresh: String? = "R0") -> AccessToken {
        AccessToken(
            value: Secret(value), refreshToken: refresh.map(Secret.init), flow: .tianyi, account: account, issuedAt: FakeClock.epoch,
            expiresAt: FakeClock.epoch.addingTimeInterval(30 * 86_400))
    }
}

extension StoredToken {
    /// ``AccessToken/sample(_:value:refresh:)`` as stored at a version.
    static func sample(_ account: AccountID = "u1", value: String = "A0", version: UInt64 = 1) -> StoredToken {
        StoredToken(token: .sample(account, value: value), version: TokenVersion(version))
    }
}
