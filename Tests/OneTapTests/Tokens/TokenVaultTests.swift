import Foundation
import OneTapTesting
import Testing
@testable import OneTap

/// The vault on a fake clock with a scripted refresher.
@Suite struct TokenVaultTests {
    let clock = FakeClock()
    let store = InMemoryTokenStore()
    let events = RecordingTokenObserver()

    func vault(_ refresher: MockRefresher, store: (any TokenStore)? = nil, jitter: Double = 1.0) -> TokenVault {
        TokenVault(
            store: store ?? self.store, refresher: refresher, clock: clock, backoff: RefreshBackoff(jitter: { jitter }),
            refreshTimeout: .seconds(30), observer: events)
    }

    /// A token issued `age` seconds ago with a 30-day life.
    func token(_ account: AccountID = "u1", age: Double = 0, refresh: String? = "R0", value: String = "A0", lifetime: Double = 30 * 86_400) -> AccessToken {
        let issued = clock.now().addingTimeInterval(-age)
        return AccessToken(
            value: Secret(value), refreshToken: refresh.map(Secret.init), flow: .tianyi, account: account, issuedAt: issued,
            expiresAt: issued.addingTimeInterval(lifetime))
    }

    static let day = 86_400.0

    @Test func freshTokenIsReturnedWithoutARefresh() async throws {
        let refresher = MockRefresher()
        let vault = vault(refresher)
        try await vault.store(token(age: 3600))
        let got = try await vault.validToken(for: "u1")
        #expect(got.value.reveal() == "A0")
        #expect(refresher.calls == 0)
        #expect(events.names == ["stored"])
    }

    @Test func staleTokenIsRefreshedAndRotated() async throws {
        let refresher = MockRefresher([.success(RefreshResponse(accessToken: Secret("A1"), refreshToken: Secret("R1"), expiresIn: try ExpiresIn("2592000")))])
        let vault = vault(refresher)
        try await vault.store(token(age: 2 * Self.day))
        let got = try await vault.validToken(for: "u1")
        #expect(got.value.reveal() == "A1" && got.refreshToken?.reveal() == "R1")
        #expect(got.issuedAt == clock.now() && got.lifetime == 2_592_000)
        #expect(refresher.calls == 1)
        #expect(refresher.tokensSeen.first?.refreshToken?.reveal() == "R0")
        let stored = try await store.load("u1")
        #expect(stored?.token == got)   // stored in one write before the caller saw it
        #expect(events.names == ["stored", "refreshed"])
        // Now fresh: no second refresh.
        _ = try await vault.validToken(for: "u1")
        #expect(refresher.calls == 1)
        #expect(events.names == ["stored", "refreshed"])
    }

    @Test(arguments: [nil, ""] as [String?])
    func rotationWithoutANewRefreshTokenKeepsTheOld(newRefresh: String?) async throws {
        let refresher = MockRefresher([.success(RefreshResponse(accessToken: Secret("A1"), refreshToken: newRefresh.map(Secret.init)))])
        let vault = vault(refresher)
        try await vault.store(token(age: 2 * Self.day))
        let got = try await vault.validToken(for: "u1")
        #expect(got.refreshToken?.reveal() == "R0")
        #expect(try await store.load("u1")?.token.refreshToken?.reveal() == "R0")
        if case .refreshed(_, _, _, let rotated) = events.recorded.last { #expect(!rotated) } else { Issue.record("no refreshed event") }
    }

    @Test(arguments: [true, false])
    func thousandConcurrentCallersShareOneRefresh(succeeds: Bool) async throws {
        let refresher = MockRefresher(succeeds ? [] : [.failure(TokenRefreshError(.transient, message: "503"))])
        refresher.hold()
        let vault = vault(refresher)
        try await vault.store(token(age: 30 * Self.day - 30, lifetime: 30 * Self.day))  // expired: callers must wait
        let results = await withTaskGroup(of: Result<String, TokenError>.self) { group in
            for _ in 0..<1000 {
                group.addTask {
                    do {
                        return .success(try await vault.validToken(for: "u1").value.reveal())
                    } catch let error as TokenError {
                        return .failure(error)
                    } catch {
                        return .failure(TokenError(.storeFailed, account: "u1", message: "unexpected \(error)"))
                    }
                }
            }
            await refresher.waitForCalls(1)
            // Give every caller time to join the flight before the refresh answers.
            for _ in 0..<50 { await Task.yield() }
            refresher.release()
            var results: [Result<String, TokenError>] = []
            for await result in group { results.append(result) }
            return results
        }
        #expect(refresher.calls == 1)
        #expect(results.count == 1000)
        if succeeds {
            #expect(Set(results.map { try? $0.get() }) == ["refreshed-1"])
            #expect(events.names.filter { $0 == "refreshed" }.count == 1)
        } else {
            let kinds = Set(results.map { result -> TokenError.Kind? in
                if case .failure(let error) = result { return error.kind }
                return nil
            })
            // Joined the flight (refresh-failed) or arrived after it, during the back-off (backing-off).
            #expect(kinds.isSubset(of: [.refreshFailed, .backingOff]))
            #expect(kinds.contains(.refreshFailed))
            #expect(events.names.filter { $0 == "refresh-failed" }.count == 1)
        }
    }

    @Test func cancellingOneWaiterCancelsNeitherTheRefreshNorTheOthers() async throws {
        let refresher = MockRefresher()
        refresher.hold()
        let vault = vault(refresher)
        try await vault.store(token(age: 2 * Self.day))
        let cancelled = Task { try await vault.validToken(for: "u1") }
        let other = Task { try await vault.validToken(for: "u1") }
        await refresher.waitForCalls(1)
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }   // leaves at once
        refresher.release()
        #expect(try await other.value.value.reveal() == "refreshed-1")
        #expect(refresher.calls == 1)
        #expect(try await store.load("u1")?.token.value.reveal() == "refreshed-1")
    }

    @Test func logoutDuringARefreshWins() async throws {
        let refresher = MockRefresher()
        refresher.hold()
        let vault = vault(refresher)
        try await vault.store(token(age: 2 * Self.day))
        let waiter = Task { try await vault.validToken(for: "u1") }
        await refresher.waitForCalls(1)
        try await vault.logout("u1")
        refresher.release()
        await #expect {
            try await waiter.value
        } throws: { error in
            (error as? TokenError)?.kind == .loggedOut
        }
        #expect(try await store.load("u1") == nil)   // the refresh brought nothing back
        #expect(!events.names.contains("refreshed"))
        #expect(events.names.contains("logged-out"))
    }

    @Test func transientFailureKeepsAUsableTokenAndBacksOff() async throws {
        let failure = TokenRefreshError(.transient, message: "timeout")
        let refresher = MockRefresher([.failure(failure), .failure(failure)])
        let vault = vault(refresher)
        try await vault.store(token(age: 2 * Self.day))
        // Stale: the refresh fails, the stored token is returned and kept.
        #expect(try await vault.validToken(for: "u1").value.reveal() == "A0")
        #expect(try await store.load("u1")?.token.value.reveal() == "A0")
        #expect(refresher.calls == 1)
        guard case .refreshFailed(_, _, 1, let retryAt) = events.recorded.last else { Issue.record("no refresh-failed"); return }
        #expect(retryAt == clock.now().addingTimeInterval(30))
        // During the back-off: no new refresh call.
        clock.advance(by: .seconds(29))
        #expect(try await vault.validToken(for: "u1").value.reveal() == "A0")
        #expect(refresher.calls == 1)
        // After it: a retry; a second failure doubles the wait.
        clock.advance(by: .seconds(1))
        _ = try await vault.validToken(for: "u1")
        #expect(refresher.calls == 2)
        guard case .refreshFailed(_, _, 2, let retry2) = events.recorded.last else { Issue.record("no second refresh-failed"); return }
        #expect(retry2 == clock.now().addingTimeInterval(60))
        clock.advance(by: .seconds(60))
        #expect(try await vault.validToken(for: "u1").value.reveal() == "refreshed-3")
        #expect(events.names.suffix(1) == ["refreshed"])
    }

    @Test func finalFailureRemovesTheTokenAndRequiresRelogin() async throws {
        let refresher = MockRefresher([.failure(TokenRefreshError(.final, code: -1, message: "refresh token revoked"))])
        let vault = vault(refresher)
        try await vault.store(token(age: 2 * Self.day))
        await #expect {
            try await vault.validToken(for: "u1")
        } throws: { error in
            (error as? TokenError)?.kind == .reloginRequired
        }
        #expect(try await store.load("u1") == nil)
        #expect(events.names == ["stored", "relogin-required"])
        await #expect { try await vault.validToken(for: "u1") } throws: { ($0 as? TokenError)?.kind == .notLoggedIn }
    }

    @Test func expiredTokenIsNeverHandedOut() async throws {
        let refresher = MockRefresher([.failure(TokenRefreshError(.transient, message: "503"))])
        let vault = vault(refresher)
        try await vault.store(token(age: 31 * Self.day))
        await #expect {
            try await vault.validToken(for: "u1")
        } throws: { error in
            let error = error as! TokenError
            return error.kind == .refreshFailed && error.retryAt != nil
        }
        #expect(try await store.load("u1") != nil)   // kept for a later refresh
        // During the back-off: refused without a call, still never the expired token.
        await #expect { try await vault.validToken(for: "u1") } throws: { ($0 as? TokenError)?.kind == .backingOff }
        #expect(refresher.calls == 1)
    }

    @Test func expiredWithoutARefreshTokenRequiresRelogin() async throws {
        let refresher = MockRefresher()
        let vault = vault(refresher)
        try await vault.store(token(age: 31 * Self.day, refresh: nil))
        await #expect { try await vault.validToken(for: "u1") } throws: { ($0 as? TokenError)?.kind == .reloginRequired }
        #expect(refresher.calls == 0)
        #expect(try await store.load("u1") == nil)
    }

    @Test func staleWithoutARefreshTokenIsStillUsable() async throws {
        let vault = vault(MockRefresher())
        try await vault.store(token(age: 2 * Self.day, refresh: nil))
        // The refresher is asked (it may refresh by access token); here it succeeds.
        #expect(try await vault.validToken(for: "u1").value.reveal() == "refreshed-1")
    }

    @Test func writeFailureAfterTheRefreshLeavesTheOldTokenUsable() async throws {
        let faulty = FaultyTokenStore(store)
        let refresher = MockRefresher()
        let vault = vault(refresher, store: faulty)
        try await vault.store(token(age: 2 * Self.day))
        faulty.fail(.save)
        await #expect {
            try await vault.validToken(for: "u1")
        } throws: { error in
            let error = error as! TokenError
            return error.kind == .storeFailed && error.message.contains("the previous token is unchanged")
        }
        let kept = try await store.load("u1")
        #expect(kept?.token.value.reveal() == "A0")
        #expect(TokenPolicy().state(of: kept!.token, at: clock.now()) != .expired)
        #expect(!events.names.contains("refreshed"))
    }

    @Test func readFailureIsAClearError() async throws {
        let faulty = FaultyTokenStore(store)
        let vault = vault(MockRefresher(), store: faulty)
        try await vault.store(token())
        faulty.fail(.load)
        await #expect {
            try await vault.validToken(for: "u1")
        } throws: { error in
            let error = error as! TokenError
            return error.kind == .storeFailed && error.message.contains("No space left on device")
        }
        #expect(try await vault.validToken(for: "u1").value.reveal() == "A0")
    }

    @Test func anotherInstanceWinningTheWriteIsUsedNotRefreshedAgain() async throws {
        // Two vaults (two server instances) over one store.
        let refresherA = MockRefresher([.success(RefreshResponse(accessToken: Secret("from-A")))])
        let refresherB = MockRefresher([.success(RefreshResponse(accessToken: Secret("from-B")))])
        refresherA.hold()
        let a = vault(refresherA)
        let b = vault(refresherB)
        try await a.store(token(age: 2 * Self.day))
        let first = Task { try await a.validToken(for: "u1") }
        await refresherA.waitForCalls(1)
        // B refreshes and writes first.
        #expect(try await b.validToken(for: "u1").value.reveal() == "from-B")
        refresherA.release()
        // A's write conflicts: it re-reads and uses B's token.
        #expect(try await first.value.value.reveal() == "from-B")
        #expect(try await store.load("u1")?.token.value.reveal() == "from-B")
        #expect(events.names.filter { $0 == "refreshed" }.count == 1)
        #expect(events.names.contains("refreshed-elsewhere"))
    }

    @Test func aStoreReportingAStaleVersionMakesTheVaultReReadNotRefreshAgain() async throws {
        let faulty = FaultyTokenStore(store)
        let refresher = MockRefresher()
        let vault = vault(refresher, store: faulty)
        try await vault.store(token(age: 2 * Self.day))
        faulty.conflict()   // the next save reports that another writer got there first
        let got = try await vault.validToken(for: "u1")
        // The refresh's write was refused; the vault re-read and returned the stored, still usable token.
        #expect(got.value.reveal() == "A0")
        #expect(refresher.calls == 1)
        #expect(events.names.last == "refreshed-elsewhere")
        #expect(try await store.load("u1")?.token.value.reveal() == "A0")
    }

    @Test func logoutAndNewLoginDuringARefreshThatFailsFinallyKeepTheNewLogin() async throws {
        let refresher = MockRefresher([.failure(TokenRefreshError(.final, message: "revoked"))])
        refresher.hold()
        let vault = vault(refresher)
        try await vault.store(token(age: 2 * Self.day))
        let waiter = Task { try await vault.validToken(for: "u1") }
        await refresher.waitForCalls(1)
        try await vault.logout("u1")
        try await vault.store(token(age: 0, value: "NEW-LOGIN"))
        refresher.release()
        await #expect { try await waiter.value } throws: { ($0 as? TokenError)?.kind == .loggedOut }
        #expect(try await store.load("u1")?.token.value.reveal() == "NEW-LOGIN")
    }

    @Test func anotherInstancesLogoutAndNewLoginWinOverALateRefresh() async throws {
        let refresherA = MockRefresher([.success(RefreshResponse(accessToken: Secret("OLD-SESSION-REFRESHED")))])
        refresherA.hold()
        let a = vault(refresherA)
        let b = vault(MockRefresher())
        try await a.store(token(age: 2 * Self.day))
        let first = Task { try await a.validToken(for: "u1") }
        await refresherA.waitForCalls(1)
        try await b.logout("u1")
        try await b.store(token(age: 0, value: "NEW-LOGIN"))
        refresherA.release()
        _ = try? await first.value
        #expect(try await store.load("u1")?.token.value.reveal() == "NEW-LOGIN")
    }

    @Test func aRefreshAnswerAfterTheTimeLimitIsStillKept() async throws {
        let refresher = MockRefresher([.success(RefreshResponse(accessToken: Secret("LATE"), refreshToken: Secret("ROTATED")))])
        refresher.hold()
        let vault = vault(refresher)
        try await vault.store(token(age: 2 * Self.day))
        let call = Task { try await vault.validToken(for: "u1") }
        await refresher.waitForCalls(1)
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(30))
        #expect(try await call.value.value.reveal() == "A0")   // timed out: the usable token
        refresher.release()
        for _ in 0..<200 where (try? await store.load("u1"))?.token.value.reveal() != "LATE" { await Task.yield() }
        let stored = try await store.load("u1")
        #expect(stored?.token.value.reveal() == "LATE" && stored?.token.refreshToken?.reveal() == "ROTATED")
        #expect(events.names.suffix(2) == ["refresh-failed", "refreshed"])
    }

    @Test func refresherErrorsNeverQuoteTheTokens() async throws {
        struct Leaky: Error, CustomStringConvertible {
            var description: String { "GET https://open.e.189.cn/api/oauth2/refreshToken.do?refreshToken=RT-SECRET-9&accessToken=AT-SECRET-9 failed" }
        }
        let refresher = MockRefresher([.failure(Leaky())])
        let vault = vault(refresher)
        try await vault.store(token(age: 2 * Self.day, refresh: "RT-SECRET-9", value: "AT-SECRET-9"))
        _ = try await vault.validToken(for: "u1")
        guard case .refreshFailed(_, let message, _, _) = events.recorded.last else { Issue.record("no refresh-failed"); return }
        #expect(!message.contains("RT-SECRET-9") && !message.contains("AT-SECRET-9"))
    }

    @Test func hungRefresherTimesOutAsATransientFailure() async throws {
        let refresher = MockRefresher([.hang])
        let vault = vault(refresher)
        try await vault.store(token(age: 2 * Self.day))
        let call = Task { try await vault.validToken(for: "u1") }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(30))
        #expect(try await call.value.value.reveal() == "A0")
        #expect(events.names.last == "refresh-failed")
    }

    @Test func accountsAreIndependentAndDueListing() async throws {
        let refresher = MockRefresher()
        refresher.hold()
        let vault = vault(refresher)
        try await vault.store(token("slow", age: 2 * Self.day))
        try await vault.store(token("fresh", age: 60))
        let slow = Task { try await vault.validToken(for: "slow") }
        await refresher.waitForCalls(1)
        // Another account is served while the first waits on its refresh.
        #expect(try await vault.validToken(for: "fresh").value.reveal() == "A0")
        refresher.release()
        _ = try await slow.value
        let due = try await vault.accountsDue(before: clock.now().addingTimeInterval(Self.day), limit: 10)
        #expect(due == ["fresh"])
        #expect(try await vault.accountsDue(before: clock.now().addingTimeInterval(2 * Self.day)) == ["fresh", "slow"])
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
        let vault = vault(refresher)
        try await vault.store(token(age: 0))
        clock.setWallTime(clock.now().addingTimeInterval(-10 * Self.day))
        #expect(try await vault.validToken(for: "u1").value.reveal() == "A0")
        #expect(refresher.calls == 0)
    }

    @Test func managerServesOneAccount() async throws {
        let refresher = MockRefresher()
        let manager = TokenManager(account: "me", refresher: refresher, store: store, clock: clock, observer: events)
        try await manager.store(token("me", age: 2 * Self.day))
        #expect(try await manager.state() == .stale)
        #expect(try await manager.appDidOpen().value.reveal() == "refreshed-1")
        #expect(try await manager.validToken().value.reveal() == "refreshed-1")
        #expect(refresher.calls == 1)
        try await manager.logout()
        #expect(try await manager.state() == nil)
    }

    @Test func eventsNeverCarryTokens() async throws {
        let refresher = MockRefresher([
            .failure(TokenRefreshError(.transient, message: "503")),
        ])
        let vault = vault(refresher)
        try await vault.store(token(age: 2 * Self.day, refresh: "RT-SECRET", value: "AT-SECRET"))
        _ = try await vault.validToken(for: "u1")
        clock.advance(by: .seconds(31))
        _ = try await vault.validToken(for: "u1")
        try await vault.logout("u1")
        let encoder = JSONEncoder()
        for event in events.recorded {
            let json = String(decoding: try encoder.encode(event), as: UTF8.self)
            for text in [event.description, json, String(reflecting: event)] {
                #expect(!text.contains("SECRET") && !text.contains("refreshed-2") && !text.contains("refresh-2"), "leaked: \(text)")
            }
        }
        #expect(events.names == ["stored", "refresh-failed", "refreshed", "logged-out"])
    }
}
